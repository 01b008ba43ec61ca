// Fold scores in the same walk (Strategy::with_folds, strategies/folds.hpp): each fold's columns
// against the trades entered in it (counted here from the strategy's own trade list), rule All
// against the strategy without folds, the embargo, every rule's value, folds with the hold-out
// subset, the config's errors, and the determinism of runs with folds (pipelined == serial,
// resume == uninterrupted) for every rule. trade_filter (atoms are trading days) at the end.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/candles.hpp"
#include "common/error.hpp"
#include "engine/param_binding.hpp"
#include "storage/journal.hpp"
#include "storage/run_directory.hpp"
#include "strategies/atc/atc_strategy.hpp"
#include "strategies/bollinger/bollinger.hpp"
#include "strategies/donchian/donchian.hpp"
#include "strategies/ema_cross/ema_cross_strategy.hpp"
#include "strategies/exhaustion/exhaustion_strategy.hpp"
#include "strategies/exhaustion/exhaustion_symbols_strategy.hpp"
#include "strategies/folds.hpp"
#include "strategies/registry.hpp"
#include "strategies/signal_strategy.hpp"
#include "strategies/symbol_strategy.hpp"
#include "strategies/trade_filter/trade_filter_exact_grid.hpp"
#include "strategies/trade_filter/trade_filter_folds.hpp"
#include "strategies/trade_filter/trade_filter_strategy.hpp"
#include "study/data_subsets.hpp"
#include "study/selection_pass.hpp"
#include "study/selection_sample.hpp"
#include "study/study.hpp"
#include "support/bits.hpp"
#include "support/conformance.hpp"
#include "support/files.hpp"
#include "support/identical_runs.hpp"
#include "support/paths.hpp"
#include "support/process.hpp"
#include "support/trade_filter_fixture.hpp"
#include "tpe/trial_rng.hpp"

#include <boost/random/uniform_real_distribution.hpp>

using namespace tpeopt;
using strategies::AcrossFolds;
using strategies::FoldSpec;
using tpeopt::testing::equal_folds;
using tpeopt::testing::same_bits;
using Rule = AcrossFolds::Rule;

namespace {

/// A study of `strategy` (exhaustion, ema_cross, bollinger or donchian) on the bundled EURUSD bars; `data_extra` and
/// `objective_extra` are appended to the data and objective objects.
io::StudyConfig signal_config(const std::string& strategy, const std::string& data_extra,
                              const std::string& objective_extra, std::uint64_t trials = 60, std::uint64_t batch = 20,
                              std::uint64_t depth = 2, const std::string& objective = "sharpe",
                              const std::string& data = "") {
  const std::string params =
      strategy == "exhaustion"
          ? R"("ema_fast": {"type": "int", "low": 5, "high": 60}, "ema_slow": {"type": "int", "low": 20, "high": 240},
               "z_window": {"type": "int", "low": 10, "high": 120}, "atr_window": {"type": "int", "low": 5, "high": 50},
               "vol_z": {"type": "float", "low": 0.0, "high": 3.0}, "tr_z": {"type": "float", "low": 0.0, "high": 3.0},
               "cloc_min": 0.0, "atr_stop_mult": {"type": "float", "low": 0.5, "high": 4.0},
               "reward_r": {"type": "float", "low": 0.5, "high": 6.0}, "max_hold": {"type": "int", "low": 4, "high": 96},
               "fee_bp": 1.0)"
      : strategy == "ema_cross"
          ? R"("ema_fast": {"type": "int", "low": 5, "high": 60}, "ema_slow": {"type": "int", "low": 20, "high": 240},
               "sl_pct": {"type": "float", "low": 0.0, "high": 3.0}, "tp_pct": {"type": "float", "low": 0.0, "high": 6.0},
               "fee_bp": 1.0)"
      : strategy == "atc"
          ? R"("ema_len": {"type": "int", "low": 5, "high": 60}, "long_threshold": {"type": "float", "low": 0.0, "high": 0.5})"
      : strategy == "bollinger"
          ? R"("window": {"type": "int", "low": 10, "high": 80}, "num_std": {"type": "float", "low": 1.0, "high": 3.0},
               "atr_window": 14, "atr_stop": {"type": "float", "low": 0.0, "high": 4.0}, "fee_bp": 1.0)"
          : R"("channel": {"type": "int", "low": 10, "high": 80}, "exit_channel": {"type": "int", "low": 5, "high": 40},
               "atr_window": 14, "atr_stop": {"type": "float", "low": 0.0, "high": 4.0}, "fee_bp": 1.0)";
  const std::string text = fmt::format(
      R"({{"strategy": "{}", "data": {{{}{}}},
           "objective": {{"name": "{}", "min_trades": 5{}}},
           "search": {{"sampler": "tpe", "trials": {}, "batch": {}, "depth": {}, "seed": 11, "top_k": 5,
                       "tpe": {{"n_startup_trials": 10}}}},
           "params": {{{}}}}})",
      strategy, data.empty() ? fmt::format(R"("candles": "{}/backtesting-py/EURUSD.csv")", testing::data_dir()) : data,
      data_extra, objective, objective_extra, trials, batch, depth, params);
  return io::parse_study_config(io::Json::parse(text), "folds.json", ".");
}

/// Random slot values of a signal strategy over its typical ranges.
std::vector<double> random_slots(const strategies::Strategy& s, std::uint64_t k) {
  auto rng = tpe::make_trial_engine(5, k);
  std::vector<double> out;
  for (const auto& spec : s.params().specs()) {
    const double v = boost::random::uniform_real_distribution<double>(spec.typical_low, spec.typical_high)(rng);
    out.push_back(spec.integer ? std::floor(v + 0.5) : v);
  }
  return out;
}

struct Evaluated {
  strategies::TrialScore score;
  std::vector<double> metrics;
};

Evaluated evaluate(const strategies::Strategy& s, const std::vector<double>& slots) {
  Evaluated e;
  e.metrics.resize(s.metric_names().size());
  e.score = s.evaluate(slots.data(), e.metrics.data());
  return e;
}

/// The column of metric `name`.
std::size_t column(const strategies::Strategy& s, const std::string& name) {
  const auto& n = s.metric_names();
  const auto it = std::find(n.begin(), n.end(), name);
  REQUIRE(it != n.end());
  return static_cast<std::size_t>(it - n.begin());
}

/// (entry bar, return) of each trade of a trial, in order.
struct EntryReturn {
  int entry_bar;
  double ret;
};

template <typename Logic>
std::vector<EntryReturn> signal_trades(const strategies::Strategy& s, const std::vector<double>& slots) {
  std::vector<EntryReturn> out;
  for (const auto& t : dynamic_cast<const strategies::SignalStrategy<Logic>&>(s).trades(slots.data(), 0))
    out.push_back({t.entry_bar, t.ret});
  return out;
}

std::vector<EntryReturn> exhaustion_trades(const strategies::Strategy& s, const std::vector<double>& slots) {
  std::vector<EntryReturn> out;
  for (const auto& t : dynamic_cast<const strategies::ExhaustionStrategy&>(s).trades(slots.data()))
    out.push_back({t.entry_bar, t.ret});
  return out;
}

std::vector<EntryReturn> ema_cross_trades(const strategies::Strategy& s, const std::vector<double>& slots) {
  std::vector<EntryReturn> out;
  for (const auto& t : dynamic_cast<const strategies::EmaCrossStrategy&>(s).trades(slots.data()))
    out.push_back({t.entry_bar, t.ret});
  return out;
}

template <typename TradesOf>
void check_fold_columns(const std::string& name, TradesOf&& trades_of) {
  const auto config = signal_config(name, "", "");
  const auto plain = engine::make_strategy(config);
  const std::size_t n = plain->n_atoms(), K = 6, embargo = GENERATE(0u, 40u);
  CAPTURE(embargo);
  const FoldSpec spec = equal_folds(100, n - 50, K, embargo);  // some bars before and after the folds
  const auto folded = plain->with_folds(spec, {});
  REQUIRE(folded->metric_names().size() == plain->metric_names().size() + 4 * K);
  REQUIRE(folded->metric_names()[plain->metric_names().size()] == "fold0_score");
  REQUIRE(folded->metric_names().back() == fmt::format("fold{}_sumsq", K - 1));
  std::size_t counted = 0, dropped = 0;
  for (std::uint64_t t = 0; t < 40; ++t) {
    CAPTURE(t);
    const auto slots = random_slots(*plain, t);
    const auto trades = trades_of(*plain, slots);
    const Evaluated f = evaluate(*folded, slots);
    for (std::size_t k = 0; k < K; ++k) {
      CAPTURE(k);
      // The trades entered in fold k, outside its embargo, counted here in trade order.
      const auto begin = static_cast<int>(spec.edges[k]), end = static_cast<int>(spec.edges[k + 1]);
      const int from = k == 0 ? begin : begin + static_cast<int>(embargo);
      strategies::ReturnStats s;
      double sum = 0.0, sumsq = 0.0;
      int count = 0;
      for (const auto& tr : trades) {
        if (tr.entry_bar >= begin && tr.entry_bar < from) ++dropped;
        if (tr.entry_bar < from || tr.entry_bar >= end) continue;
        strategies::add_return(s, tr.ret);
        sum += tr.ret;
        sumsq += tr.ret * tr.ret;
        ++count;
      }
      counted += static_cast<std::size_t>(count);
      const std::string p = fmt::format("fold{}_", k);
      REQUIRE(f.metrics[column(*folded, p + "n")] == count);
      REQUIRE(same_bits(f.metrics[column(*folded, p + "sum")], sum));
      REQUIRE(same_bits(f.metrics[column(*folded, p + "sumsq")], sumsq));
      // The objective (sharpe) over those trades: the strategy's own statistics of them, and
      // within rounding of the two-pass formula mean / sd * sqrt(n).
      const double score = f.metrics[column(*folded, p + "score")];
      REQUIRE(same_bits(score, strategies::sharpe(s)));
      if (count > 1) {
        const double mean = sum / count;
        double ss = 0.0;
        for (const auto& tr : trades)
          if (tr.entry_bar >= from && tr.entry_bar < end) ss += (tr.ret - mean) * (tr.ret - mean);
        if (ss > 1e-20) REQUIRE(score == Approx(mean / std::sqrt(ss / count) * std::sqrt(count)).epsilon(1e-9));
      }
    }
  }
  REQUIRE(counted > 200);
  if (embargo > 0) REQUIRE(dropped > 0);
}

/// The rule's value from fold scores, written here from the definitions (docs/strategies.md, "Folds").
double rule_value(std::vector<double> v, const AcrossFolds& a) {
  const double K = static_cast<double>(v.size());
  double sum = 0.0;
  for (double x : v) sum += x;
  const double mean = sum / K;
  switch (a.rule) {
    case Rule::Min:
      return *std::min_element(v.begin(), v.end());
    case Rule::Quantile: {
      std::sort(v.begin(), v.end());
      const double h = a.q * (K - 1);
      const auto lo = static_cast<std::size_t>(std::floor(h));
      return lo + 1 >= v.size() ? v.back() : v[lo] + (h - std::floor(h)) * (v[lo + 1] - v[lo]);
    }
    case Rule::MeanMinusStd: {
      double ss = 0.0;
      for (double x : v) ss += (x - mean) * (x - mean);
      return mean - a.lambda * std::sqrt(ss / K);
    }
    default:
      return mean;
  }
}

/// One symbol's trades of a trial over several symbols: (entry bar, return), its bar times, and
/// the objective of a group of its trades (`portfolio`: their compound return), computed with
/// the strategy's own per-trade summary.
struct SymbolTrades {
  std::vector<EntryReturn> trades;
  std::vector<std::int64_t> time_ms;
};

/// The symbols' trades of a trial and each fold group's objective value, per strategy.
struct SymbolsView {
  std::size_t S = 0;
  std::function<SymbolTrades(const std::vector<double>&, std::size_t)> symbol;
  std::function<double(const std::vector<double>&, std::size_t, const std::vector<std::size_t>&, bool)> value;
};

template <typename Logic>
SymbolsView signal_view(const strategies::Strategy& st, const std::string& objective) {
  const auto& s = dynamic_cast<const strategies::SignalStrategy<Logic>&>(st);
  const auto o = strategies::parse_signal_objective(objective, s.name());
  SymbolsView v;
  v.S = s.n_symbols();
  v.symbol = [&s](const std::vector<double>& slots, std::size_t k) {
    SymbolTrades out;
    for (const auto& t : s.trades(slots.data(), k)) out.trades.push_back({t.entry_bar, t.ret});
    out.time_ms = s.data().symbol(s.data_symbol(k)).time_ms;
    return out;
  };
  // The objective over the listed trades (indices into the symbol's trade list).
  v.value = [&s, o](const std::vector<double>& slots, std::size_t k, const std::vector<std::size_t>& which,
                    bool portfolio) {
    const auto trades = s.trades(slots.data(), k);
    strategies::long_short::Summary sum;
    for (std::size_t i : which) strategies::long_short::add_trade(sum, trades[i]);
    return portfolio ? strategies::long_short::compound_return(sum) : strategies::long_short::objective_value(sum, o);
  };
  return v;
}

SymbolsView exhaustion_view(const strategies::Strategy& st, const std::string& objective) {
  const auto& s = dynamic_cast<const strategies::ExhaustionSymbolsStrategy&>(st);
  const auto o = strategies::parse_exhaustion_objective(objective);
  SymbolsView v;
  v.S = s.n_symbols();
  v.symbol = [&s](const std::vector<double>& slots, std::size_t k) {
    SymbolTrades out;
    for (const auto& t : s.symbol(k).trades(slots.data())) out.trades.push_back({t.entry_bar, t.ret});
    out.time_ms = s.symbol(k).candles().time_ms;
    return out;
  };
  v.value = [&s, o](const std::vector<double>& slots, std::size_t k, const std::vector<std::size_t>& which,
                    bool portfolio) {
    const auto trades = s.symbol(k).trades(slots.data());
    strategies::exhaustion::Summary sum;
    for (std::size_t i : which) strategies::exhaustion::add_trade(sum, trades[i]);
    return portfolio ? sum.equity - 1.0 : strategies::exhaustion::objective_value(sum, o);
  };
  return v;
}

/// atc's "trades" here are its per-bar returns: (bar, return) of every return bar, the return
/// made again from the bar's price return and the positions the walk reports at that bar.
SymbolsView atc_view(const strategies::Strategy& st, const std::string& objective) {
  const auto& s = dynamic_cast<const strategies::AtcStrategy&>(st);
  const auto o = strategies::parse_atc_objective(objective);
  SymbolsView v;
  v.S = s.n_symbols();
  auto returns = [&s](const std::vector<double>& slots, std::size_t k) {
    const strategies::atc::Params p = strategies::atc::unpack_params(slots.data());
    const double* R = s.returns().data() + s.offsets()[k];
    std::vector<EntryReturn> out;
    s.walk_symbol(p, k, [&](int t, const strategies::atc::TradeState& state) {
      const int pos = state.p1, dp = std::abs(state.p1 - state.p2);
      const double gross = pos > 0 ? R[t] : (pos < 0 ? -R[t] : 0.0);
      out.push_back({t, gross - p.fee * static_cast<double>(dp)});
    });
    return out;
  };
  v.symbol = [&s, returns](const std::vector<double>& slots, std::size_t k) {
    SymbolTrades out;
    out.trades = returns(slots, k);
    const auto b = s.times_ms().begin() + s.offsets()[k];
    out.time_ms.assign(b, b + s.lengths()[k]);
    return out;
  };
  v.value = [returns, o](const std::vector<double>& slots, std::size_t k, const std::vector<std::size_t>& which,
                         bool portfolio) {
    const auto r = returns(slots, k);
    double total = 0.0, sumsq = 0.0, equity = 1.0;
    for (std::size_t i : which) {
      total += r[i].ret;
      sumsq += r[i].ret * r[i].ret;
      equity *= 1.0 + r[i].ret;
    }
    if (portfolio) return equity - 1.0;
    if (o == strategies::atc::Objective::TotalReturn) return total;
    if (which.empty()) return 0.0;
    const double n = static_cast<double>(which.size()), mean = total / n;
    return strategies::sharpe_ratio(mean, sumsq / n - mean * mean, n);
  };
  return v;
}

/// A folded study of several symbols against a direct computation (docs/strategies.md, "Folds"):
/// each symbol's trades put in the fold of their entry bar's atom (the symbols' distinct bar
/// times), each fold's columns per symbol from those trades, and the trial's by the aggregate's
/// rule over the symbols in order; rule All keeps the unfolded bits, and a subset keeps folds.
void check_symbol_folds(const std::string& name, const std::string& aggregate,
                        SymbolsView (*view_of)(const strategies::Strategy&, const std::string&)) {
  const std::string objective = aggregate == "portfolio"
                                    ? (name == "exhaustion" || name == "atc" ? "total_return" : "compound_return")
                                    : "sharpe";
  const auto config =
      signal_config(name, "", fmt::format(R"(, "aggregate": "{}")", aggregate), 60, 20, 2, objective,
                    fmt::format(R"("candles_dir": "{}")", testing::conformance_data().candles_dir.generic_string()));
  const auto plain = engine::make_strategy(config);
  const std::size_t n = plain->n_atoms(), K = 5, embargo = 30;
  const FoldSpec spec = equal_folds(60, n - 40, K, embargo);
  const auto folded = plain->with_folds(spec, {});
  const AcrossFolds min_rule{Rule::Min};
  const auto folded_min = plain->with_folds(spec, min_rule);
  const SymbolsView view = view_of(*plain, objective);
  REQUIRE(view.S == 3);
  const std::size_t M = plain->metric_names().size();
  REQUIRE(folded->metric_names() == strategies::fold_metric_names(plain->metric_names(), K));
  // The atoms: the symbols' distinct bar times.
  std::vector<std::int64_t> atoms;
  for (std::size_t k = 0; k < view.S; ++k) {
    const auto t = view.symbol(random_slots(*plain, 0), k).time_ms;
    atoms.insert(atoms.end(), t.begin(), t.end());
  }
  std::sort(atoms.begin(), atoms.end());
  atoms.erase(std::unique(atoms.begin(), atoms.end()), atoms.end());
  REQUIRE(atoms.size() == n);
  const bool portfolio = aggregate == "portfolio";
  int traded_folds = 0;
  for (std::uint64_t t = 0; t < 12; ++t) {
    CAPTURE(t);
    const auto slots = random_slots(*plain, t);
    const Evaluated a = evaluate(*plain, slots), b = evaluate(*folded, slots), m = evaluate(*folded_min, slots);
    // Rule All: the unfolded score, violation and metrics, bit for bit.
    REQUIRE(same_bits(a.score.score, b.score.score));
    REQUIRE(same_bits(a.score.violation, b.score.violation));
    REQUIRE(same_bits(a.metrics, std::vector<double>(b.metrics.begin(), b.metrics.begin() + M)));
    REQUIRE(same_bits(b.metrics, m.metrics));  // the rule changes the score only
    std::vector<double> fold_scores(K);
    for (std::size_t f = 0; f < K; ++f) {
      CAPTURE(f);
      double score = 0.0, count = 0.0, sum = 0.0, sumsq = 0.0;
      for (std::size_t k = 0; k < view.S; ++k) {
        const SymbolTrades st = view.symbol(slots, k);
        std::vector<std::size_t> in_fold;
        double s_sum = 0.0, s_sumsq = 0.0;
        for (std::size_t i = 0; i < st.trades.size(); ++i) {
          const std::int64_t time = st.time_ms[static_cast<std::size_t>(st.trades[i].entry_bar)];
          const auto atom =
              static_cast<std::size_t>(std::lower_bound(atoms.begin(), atoms.end(), time) - atoms.begin());
          const std::size_t from = f == 0 ? spec.edges[f] : spec.edges[f] + embargo;
          if (atom < from || atom >= spec.edges[f + 1]) continue;
          in_fold.push_back(i);
          s_sum += st.trades[i].ret;
          s_sumsq += st.trades[i].ret * st.trades[i].ret;
        }
        const double v = view.value(slots, k, in_fold, portfolio);
        const auto c = static_cast<double>(in_fold.size());
        if (k == 0) {
          score = v;
          count = c;
          sum = s_sum;
          sumsq = s_sumsq;
        } else {
          score = aggregate == "worst" ? (v != v || v < score ? v : score) : score + v;
          count += c;
          sum += s_sum;
          sumsq += s_sumsq;
        }
      }
      if (aggregate == "mean" || portfolio) score /= static_cast<double>(view.S);
      traded_folds += count > 0 ? 1 : 0;
      REQUIRE(same_bits(b.metrics[M + 4 * f], score));
      REQUIRE(b.metrics[M + 4 * f + 1] == count);
      REQUIRE(same_bits(b.metrics[M + 4 * f + 2], sum));
      REQUIRE(same_bits(b.metrics[M + 4 * f + 3], sumsq));
      fold_scores[f] = score;
    }
    REQUIRE(same_bits(m.score.score, rule_value(fold_scores, min_rule)));
  }
  REQUIRE(traded_folds > 12);
  // Folding a folded strategy again (the selection pass's sub-periods after a folded run) is
  // folding the strategy without folds.
  const FoldSpec other = equal_folds(0, n, 7);
  const auto refolded = folded_min->with_folds(other, {}), once = plain->with_folds(other, {});
  REQUIRE(refolded->metric_names() == once->metric_names());
  for (std::uint64_t t = 0; t < 3; ++t) {
    const auto slots = random_slots(*plain, t);
    const Evaluated e = evaluate(*refolded, slots), g = evaluate(*once, slots);
    REQUIRE(same_bits(e.metrics, g.metrics));
    REQUIRE(same_bits(e.score.score, g.score.score));
  }
  // A subset (successive halving, a hold-out) keeps the folds: folding then cutting is cutting then folding.
  const std::vector<strategies::AtomRange> part{{0, n / 3}, {n / 2, n}};
  const auto folded_part = folded_min->subset(part, 3);
  const auto part_folded = plain->subset(part, 3)->with_folds(spec, min_rule);
  REQUIRE(folded_part->folds().edges == spec.edges);
  REQUIRE(folded_part->metric_names() == folded->metric_names());
  // And against a direct count: the subset's own trades (its blocks start flat), each in the
  // fold of its entry bar's atom of the whole data. (atc's view walks whole series only.)
  const auto plain_part = plain->subset(part, 3);
  const std::optional<SymbolsView> part_view =
      name == "atc" ? std::nullopt : std::optional<SymbolsView>(view_of(*plain_part, objective));
  double part_counted = 0.0;
  for (std::uint64_t t = 0; t < 6; ++t) {
    CAPTURE(t);
    const auto slots = random_slots(*plain, t);
    const Evaluated e = evaluate(*folded_part, slots), g = evaluate(*part_folded, slots);
    REQUIRE(same_bits(e.metrics, g.metrics));
    REQUIRE(same_bits(e.score.score, g.score.score));
    if (!part_view) continue;
    for (std::size_t f = 0; f < K; ++f) {
      CAPTURE(f);
      double count = 0.0;
      for (std::size_t k = 0; k < part_view->S; ++k) {
        const SymbolTrades st = part_view->symbol(slots, k);
        for (const EntryReturn& tr : st.trades) {
          const std::int64_t time = st.time_ms[static_cast<std::size_t>(tr.entry_bar)];
          const auto atom =
              static_cast<std::size_t>(std::lower_bound(atoms.begin(), atoms.end(), time) - atoms.begin());
          const std::size_t from = f == 0 ? spec.edges[f] : spec.edges[f] + embargo;
          if (atom >= from && atom < spec.edges[f + 1]) count += 1.0;
        }
      }
      REQUIRE(e.metrics[M + 4 * f + 1] == count);
      part_counted += count;
    }
  }
  if (part_view) REQUIRE(part_counted > 0.0);
}

engine::StudyRun run(const io::StudyConfig& c, const strategies::Strategy& s, bool serial,
                     std::vector<engine::ReplayedBatch> replay = {}, engine::BatchObserver* observer = nullptr) {
  engine::RunOptions o;
  o.serial = serial;
  o.executor = "cpu";
  o.cpu_threads = 2;
  o.keep_trials = true;
  return engine::run_study(c, s, o, observer, std::move(replay));
}

std::string config_error(const std::string& data_extra, const std::string& objective_extra,
                         const std::string& strategy = "bollinger") {
  try {
    const auto c = signal_config(strategy, data_extra, objective_extra);
    engine::make_strategy(c);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("folds: each fold's columns are those of the trades entered in it (bollinger)", "[cpu][folds]") {
  check_fold_columns("bollinger", signal_trades<strategies::bollinger::Logic>);
}

TEST_CASE("folds: each fold's columns are those of the trades entered in it (donchian)", "[cpu][folds]") {
  check_fold_columns("donchian", signal_trades<strategies::donchian::Logic>);
}

TEST_CASE("folds: each fold's columns are those of the trades entered in it (exhaustion)", "[cpu][folds]") {
  check_fold_columns("exhaustion", exhaustion_trades);
}

TEST_CASE("folds: each fold's columns are those of the trades entered in it (ema_cross)", "[cpu][folds]") {
  check_fold_columns("ema_cross", ema_cross_trades);
}

TEST_CASE("folds: several symbols score each symbol's folds in its own bars and aggregate them by objective.aggregate",
          "[cpu][folds]") {
  const std::string aggregate = GENERATE("sum", "mean", "worst", "portfolio");
  CAPTURE(aggregate);
  SECTION("bollinger") { check_symbol_folds("bollinger", aggregate, signal_view<strategies::bollinger::Logic>); }
  SECTION("donchian") { check_symbol_folds("donchian", aggregate, signal_view<strategies::donchian::Logic>); }
  SECTION("exhaustion") { check_symbol_folds("exhaustion", aggregate, exhaustion_view); }
  SECTION("atc") { check_symbol_folds("atc", aggregate, atc_view); }
}

TEST_CASE("folds: exhaustion over a data set of one symbol scores folds as over one series", "[cpu][folds]") {
  const auto config = signal_config("exhaustion", "", "");
  const auto plain = engine::make_strategy(config);
  const auto& one = dynamic_cast<const strategies::ExhaustionStrategy&>(*plain);
  CandleSet set;
  set.append("EURUSD", "EURUSD.csv", one.candles());
  const std::string aggregate = GENERATE("sum", "mean", "worst");
  CAPTURE(aggregate);
  const strategies::ExhaustionSymbolsStrategy symbols(set, one.options(), strategies::parse_aggregate(aggregate), true);
  const FoldSpec spec = equal_folds(50, plain->n_atoms() - 20, 6, 12);
  for (const AcrossFolds a : {AcrossFolds{Rule::All}, AcrossFolds{Rule::Min}, AcrossFolds{Rule::Quantile, 0.3},
                              AcrossFolds{Rule::MeanMinusStd, 0.5, 0.7}}) {
    CAPTURE(strategies::across_folds_name(a.rule));
    const auto series = plain->with_folds(spec, a), set_folded = symbols.with_folds(spec, a);
    REQUIRE(series->metric_names() == set_folded->metric_names());
    for (std::uint64_t t = 0; t < 10; ++t) {
      const auto slots = random_slots(*plain, t);
      const Evaluated e = evaluate(*series, slots), f = evaluate(*set_folded, slots);
      REQUIRE(same_bits(e.score.score, f.score.score));
      REQUIRE(same_bits(e.score.violation, f.score.violation));
      REQUIRE(same_bits(e.metrics, f.metrics));
    }
  }
}

TEST_CASE("folds: the selection pass scores a run over three symbols", "[cpu][folds][selection]") {
  const std::string name = GENERATE("bollinger", "exhaustion");
  CAPTURE(name);
  const auto config =
      signal_config(name, R"(, "holdout": 0.2)", R"(, "aggregate": "mean")", 200, 50, 2, "sharpe",
                    fmt::format(R"("candles_dir": "{}")", testing::conformance_data().candles_dir.generic_string()));
  const auto strategy = engine::make_strategy(config);
  engine::RunOptions options;
  options.executor = "cpu";
  options.cpu_threads = 2;
  engine::SelectionSettings settings;
  settings.top = 50, settings.sample = 50, settings.sub_periods = 8;
  engine::SelectionSample sample(settings.top, settings.sample, config.search.seed, config.objective.direction,
                                 nullptr);
  engine::run_study(config, *strategy, options, &sample);
  const engine::SelectionBias s = engine::selection_bias(config, *strategy, sample, options, settings);
  INFO(engine::selection_bias_line(s));
  REQUIRE(s.unavailable.empty());
  REQUIRE(s.cscv);
  CHECK(s.cscv->in_sample_sets.size() == 70);
  REQUIRE(s.dsr);
  CHECK(s.dsr->n_observations > 0);  // the pooled trades of the symbols in the in-sample span
  CHECK(s.in_sample_atoms > strategy->n_atoms() / 2);
  CHECK(s.in_sample_atoms < strategy->n_atoms());
}

TEST_CASE("folds: rule All keeps the score, violation and metrics of the strategy without folds, bit for bit",
          "[cpu][folds]") {
  const std::string name = GENERATE("bollinger", "donchian", "exhaustion", "ema_cross");
  const std::string objective = GENERATE("sharpe", "total_return", "profit_factor");
  CAPTURE(name, objective);
  const auto config = signal_config(name, "", "", 60, 20, 2, objective);
  const auto plain = engine::make_strategy(config);
  const std::size_t n = plain->n_atoms();
  const auto folded = plain->with_folds(equal_folds(0, n, 8), {});
  // The same on a subset (the in-sample part of a hold-out), folded before or after the cut.
  const std::vector<strategies::AtomRange> part{{0, n * 7 / 10}};
  const auto plain_part = plain->subset(part, 5);
  const auto folded_part = folded->subset(part, 5);
  const auto part_folded = plain_part->with_folds(equal_folds(0, n * 7 / 10, 8), {});
  const auto part_folded_whole = plain_part->with_folds(equal_folds(0, n, 8), {});  // folded's folds
  const std::size_t M = plain->metric_names().size();
  for (std::uint64_t t = 0; t < 30; ++t) {
    const auto slots = random_slots(*plain, t);
    const Evaluated a = evaluate(*plain, slots), b = evaluate(*folded, slots);
    REQUIRE(same_bits(a.score.score, b.score.score));
    REQUIRE(same_bits(a.score.violation, b.score.violation));
    REQUIRE(same_bits(a.metrics, std::vector<double>(b.metrics.begin(), b.metrics.begin() + M)));
    const Evaluated c = evaluate(*plain_part, slots), d = evaluate(*part_folded, slots);
    REQUIRE(same_bits(c.score.score, d.score.score));
    REQUIRE(same_bits(c.score.violation, d.score.violation));
    REQUIRE(same_bits(c.metrics, std::vector<double>(d.metrics.begin(), d.metrics.begin() + M)));
    // Folding then cutting is cutting then folding (the same folds: atoms of the whole data).
    const Evaluated e = evaluate(*folded_part, slots), g = evaluate(*part_folded_whole, slots);
    REQUIRE(same_bits(e.metrics, g.metrics));
    REQUIRE(same_bits(e.score.score, g.score.score));
  }
  // A FoldSpec without edges gives back the strategy without folds.
  REQUIRE(folded->with_folds({}, {})->metric_names() == plain->metric_names());
}

TEST_CASE("folds: every rule's score is its value over the fold scores", "[cpu][folds]") {
  const auto config = signal_config("bollinger", "", "");
  const auto plain = engine::make_strategy(config);
  const std::size_t n = plain->n_atoms(), K = 7, M = plain->metric_names().size();
  for (const AcrossFolds a :
       {AcrossFolds{Rule::Mean}, AcrossFolds{Rule::Min}, AcrossFolds{Rule::Quantile, 0.0},
        AcrossFolds{Rule::Quantile, 0.3}, AcrossFolds{Rule::Quantile, 0.5}, AcrossFolds{Rule::Quantile, 1.0},
        AcrossFolds{Rule::MeanMinusStd, 0.5, 0.0}, AcrossFolds{Rule::MeanMinusStd, 0.5, 1.5}}) {
    CAPTURE(strategies::across_folds_name(a.rule), a.q, a.lambda);
    const auto folded = plain->with_folds(equal_folds(0, n, K, 10), a);
    const auto all = plain->with_folds(equal_folds(0, n, K, 10), {});
    int distinct = 0;
    for (std::uint64_t t = 0; t < 25; ++t) {
      const auto slots = random_slots(*plain, t);
      const Evaluated e = evaluate(*folded, slots), w = evaluate(*all, slots);
      std::vector<double> v;
      for (std::size_t k = 0; k < K; ++k) v.push_back(e.metrics[M + 4 * k]);
      REQUIRE(same_bits(e.score.score, rule_value(v, a)));
      REQUIRE(same_bits(e.metrics, w.metrics));  // the rule changes the score only
      REQUIRE(same_bits(e.score.violation, w.score.violation));
      distinct += same_bits(e.score.score, w.score.score) ? 0 : 1;
    }
    REQUIRE(distinct > 0);
  }
}

TEST_CASE("folds: across_folds_score, by hand", "[cpu][folds]") {
  auto score = [](std::vector<double> v, Rule r, double q, double lambda, bool maximize) {
    return strategies::across_folds_score(v.data(), static_cast<int>(v.size()),
                                          strategies::fold_rule(AcrossFolds{r, q, lambda}, maximize));
  };
  const std::vector<double> v{3.0, -1.0, 2.0, 0.0};
  REQUIRE(score(v, Rule::Mean, 0, 0, true) == 1.0);
  REQUIRE(score(v, Rule::Min, 0, 0, true) == -1.0);
  REQUIRE(score(v, Rule::Min, 0, 0, false) == 3.0);        // the worst fold of a minimized objective
  REQUIRE(score(v, Rule::Quantile, 0.5, 0, true) == 1.0);  // numpy.quantile([-1, 0, 2, 3], 0.5)
  REQUIRE(score(v, Rule::Quantile, 0.25, 0, true) == -0.25);
  REQUIRE(score(v, Rule::Quantile, 0.25, 0, false) == 2.25);  // quantile 0.75
  // Deviations 2, -2, 1, -1: population variance 10 / 4.
  REQUIRE(score(v, Rule::MeanMinusStd, 0, 2.0, true) == 1.0 - 2.0 * std::sqrt(2.5));
  REQUIRE(score(v, Rule::MeanMinusStd, 0, 2.0, false) == 1.0 + 2.0 * std::sqrt(2.5));
  REQUIRE(std::isnan(score({1.0, NAN}, Rule::Min, 0, 0, true)));
}

TEST_CASE("folds: data.folds cuts the in-sample span after the hold-out into equal folds", "[cpu][folds][config]") {
  const auto config = signal_config("bollinger", R"(, "holdout": 0.3, "folds": 4, "embargo": 5)",
                                    R"(, "across_folds": "quantile", "q": 0.25)");
  REQUIRE(config.folds.folds == 4);
  REQUIRE(config.folds.embargo == 5);
  REQUIRE(config.folds.across.rule == Rule::Quantile);
  REQUIRE(config.folds.across.q == 0.25);
  const auto strategy = engine::make_strategy(config);
  const auto in_sample = engine::in_sample_ranges(*strategy, config);
  REQUIRE(in_sample.size() == 1);
  const FoldSpec& f = strategy->folds();
  REQUIRE(f.edges.size() == 5);
  REQUIRE(f.embargo == 5);
  REQUIRE(f.edges.front() == in_sample.front().begin);
  REQUIRE(f.edges.back() == in_sample.front().end);
  for (std::size_t k = 0; k < 4; ++k) {
    const std::size_t len = f.edges[k + 1] - f.edges[k];
    REQUIRE(len * 4 >= in_sample.front().end - 4);
    REQUIRE(len * 4 <= in_sample.front().end + 4);
  }
  // The resolved config (a run directory's config.json) reads back the same.
  const auto back = io::parse_study_config(config.resolved(), "resolved", ".");
  REQUIRE(back.folds.folds == 4);
  REQUIRE(back.folds.embargo == 5);
  REQUIRE(back.folds.across.rule == Rule::Quantile);
  REQUIRE(back.resolved() == config.resolved());
  // Without folds, the resolved config has none of their keys (its digest stays as it was).
  const auto plain = signal_config("bollinger", "", "");
  REQUIRE_FALSE(plain.resolved()["data"].contains("folds"));
  REQUIRE_FALSE(plain.resolved()["objective"].contains("across_folds"));
}

TEST_CASE("folds: config errors name the key, before anything runs", "[cpu][folds][config]") {
  REQUIRE_THAT(config_error(R"(, "folds": 1)", ""), Catch::Contains("data.folds") && Catch::Contains("[2, 64]"));
  REQUIRE_THAT(config_error(R"(, "folds": 65)", ""), Catch::Contains("data.folds"));
  REQUIRE_THAT(config_error(R"(, "folds": "many")", ""), Catch::Contains("data.folds"));
  REQUIRE_THAT(config_error(R"(, "embargo": 3)", ""), Catch::Contains("data.embargo: needs data.folds"));
  REQUIRE_THAT(config_error(R"(, "folds": 4, "embargo": -1)", ""), Catch::Contains("data.embargo"));
  REQUIRE_THAT(config_error("", R"(, "across_folds": "mean")"),
               Catch::Contains("objective.across_folds: \"mean\" needs data.folds"));
  REQUIRE_THAT(config_error(R"(, "folds": 4)", R"(, "across_folds": "median")"),
               Catch::Contains("objective.across_folds"));
  REQUIRE_THAT(config_error(R"(, "folds": 4)", R"(, "across_folds": "quantile", "q": 1.5)"),
               Catch::Contains("objective.q: expected a number in [0, 1]"));
  REQUIRE_THAT(config_error(R"(, "folds": 4)", R"(, "across_folds": "mean", "q": 0.5)"),
               Catch::Contains("objective.q: only with"));
  REQUIRE_THAT(config_error(R"(, "folds": 4)", R"(, "across_folds": "mean_minus_std", "lambda": -1)"),
               Catch::Contains("objective.lambda"));
  // 5000 bars in 64 folds: 78 bars each, fewer than the window's 80 at the top of its range.
  REQUIRE_THAT(config_error(R"(, "folds": 64)", ""),
               Catch::Contains("data.folds: fold 0 holds 78 bars, fewer than the strategy's longest window (80"));
  REQUIRE_THAT(config_error(R"(, "folds": 10, "embargo": 500)", ""),
               Catch::Contains("data.embargo: 500 bars cover all of fold 1"));
  REQUIRE_THAT(config_error(R"(, "folds": 4)", R"(, "across_folds": "all")"), Catch::Equals(""));
  // A strategy whose data has no time atoms cannot be split.
  try {
    const std::string text = R"({"strategy": "functions", "function": "sphere",
      "params": {"x0": {"type": "float", "low": -1, "high": 1}}})";
    auto c = io::parse_study_config(io::Json::parse(text), "f.json", ".");
    c.folds.folds = 4;
    engine::make_strategy(c);
    FAIL("functions with folds was accepted");
  } catch (const Error& e) {
    REQUIRE_THAT(e.what(), Catch::Contains("f.json: data.folds: strategy functions cannot be split into folds"));
  }
}

TEST_CASE("folds: pipelined == serial and resume == uninterrupted, with folds and each rule",
          "[cpu][folds][determinism]") {
  const std::string objective =
      GENERATE(as<std::string>{}, "", R"(, "across_folds": "mean")", R"(, "across_folds": "min")",
               R"(, "across_folds": "quantile", "q": 0.3)", R"(, "across_folds": "mean_minus_std", "lambda": 0.5)");
  CAPTURE(objective);
  const auto config = signal_config("bollinger", R"(, "holdout": 0.25, "folds": 5, "embargo": 3)", objective, 80, 16);
  const auto strategy = engine::make_strategy(config);
  const auto pipelined = run(config, *strategy, false);
  const auto serial = run(config, *strategy, true);
  testing::require_identical(pipelined.result, serial.result);
  REQUIRE(strategy->metric_names().size() == 7 + 4 * 5);

  const std::string dir = testing::make_process_temp_dir("folds_resume") + "/run";
  {
    auto recorder = engine::RunRecorder::create(dir, config, *strategy, "cpu");
    const auto recorded = run(config, *strategy, false, {}, recorder.get());
    recorder->finish(recorded.result, recorded.summary, recorded.holdout ? &*recorded.holdout : nullptr);
    testing::require_identical(recorded.result, pipelined.result);
  }
  auto journal = engine::read_journal(std::filesystem::path(dir) / "journal.bin");
  REQUIRE(journal.records.size() == 5);
  std::vector<engine::ReplayedBatch> replay;
  for (std::size_t k = 0; k < 2; ++k) replay.push_back(journal.records[k].batch);
  const auto resumed = run(config, *strategy, false, std::move(replay));
  testing::require_identical(resumed.result, pipelined.result);

  // The hold-out is scored by the whole-span objective of the strategy without folds.
  REQUIRE(pipelined.holdout.has_value());
  const auto split = engine::split_holdout(*strategy, config.holdout);
  const auto oos =
      strategy->with_folds({}, {})->subset(split.out_of_sample,
                                           engine::scaled_min_trades(5, engine::atom_count(split.out_of_sample),
                                                                     engine::atom_count(split.in_sample)));
  const engine::ParamBinding binding(*oos, config.space, config.fixed);
  std::vector<double> slots(binding.n_slots());
  for (std::size_t i = 0; i < pipelined.result.top().size(); ++i) {
    binding.fill(pipelined.result.top()[i].params.data(), slots.data());
    REQUIRE(same_bits(evaluate(*oos, slots).score.score, pipelined.holdout->scores[i]));
  }
  // top.json shows each top trial's fold scores and its hold-out score.
  const io::Json top = testing::read_json(dir + "/top.json");
  REQUIRE(top.size() == pipelined.result.top().size());
  REQUIRE(top[0]["fold_scores"].size() == 5);
  REQUIRE(same_bits(top[0]["fold_scores"][2].get<double>(), pipelined.result.top()[0].metrics[7 + 4 * 2]));
  REQUIRE(top[0].contains("out_of_sample"));
}

TEST_CASE("folds: over a hold-out with a hole, every in-sample trade is in a fold, after the folds none is",
          "[cpu][folds][holdout]") {
  const std::string name = GENERATE("exhaustion", "bollinger", "ema_cross");
  const std::string holdout = GENERATE(as<std::string>{}, R"({"ranges": [["2017-09-01", "2017-10-15"]]})", "0.3");
  CAPTURE(name, holdout);
  const auto config = signal_config(name, R"(, "holdout": )" + holdout + R"(, "folds": 6)", "");
  const auto folded = engine::make_strategy(config);
  const auto split = engine::split_holdout(*folded, config.holdout);
  const bool hole = split.in_sample.size() == 2;
  REQUIRE(hole == (holdout != "0.3"));
  const auto in = folded->subset(split.in_sample, 5);
  const auto out = folded->subset(split.out_of_sample, 5);
  const std::size_t M = 7;
  int with_trades = 0;
  for (std::uint64_t t = 0; t < 20; ++t) {
    const auto slots = random_slots(*folded, t);
    const Evaluated a = evaluate(*in, slots), b = evaluate(*out, slots);
    double in_folds = 0.0, out_folds = 0.0;
    for (std::size_t k = 0; k < 6; ++k) {
      in_folds += a.metrics[M + 4 * k + 1];
      out_folds += b.metrics[M + 4 * k + 1];
    }
    REQUIRE(in_folds == a.metrics[0]);  // the trades column
    // Folds are contiguous atom ranges: a hole inside their span is in a fold (the hold-out is
    // scored without folds, study/study.cpp), the hold-out after them in none.
    if (!hole) REQUIRE(out_folds == 0.0);
    with_trades += a.metrics[0] > 0 ? 1 : 0;
  }
  REQUIRE(with_trades > 10);
}

// ---- trade_filter: atoms are trading days, a kept trade joins the fold of its entry day ----

namespace {

/// A trade_filter strategy over generated data: 20 trading days, 2,000 trades.
std::shared_ptr<const strategies::TradeFilterStrategy> trade_filter_days20() {
  const auto cache = testing::trade_filter_cache(20, 2000, 7);
  const auto config = testing::trade_filter_config(cache, testing::trade_filter_continuous_params(0.2, 3.0),
                                                   R"({"sampler": "random", "trials": 10, "batch": 5})");
  return std::shared_ptr<const strategies::TradeFilterStrategy>(
      dynamic_cast<strategies::TradeFilterStrategy*>(engine::make_strategy(config).release()));
}

/// trade_filter slot values over the generator's metric ranges (most trials keep trades).
std::vector<double> trade_filter_slots(std::uint64_t k) {
  auto rng = tpe::make_trial_engine(17, k);
  auto u = [&](double lo, double hi) { return boost::random::uniform_real_distribution<double>(lo, hi)(rng); };
  return {u(0, 0.3), u(0, 0.6), u(0, 15), u(0, 15), u(0, 15), u(0.2, 3.0), -u(0.2, 3.0)};
}

/// A fold's totals counted here from the trial's exported trades (tpeopt backtest --trades-out):
/// each trade's day as an index of the strategy's days, its outcome back in 1e-9 percent.
struct TradeLogFold {
  std::int64_t n = 0, sum_q = 0;
  strategies::trade_filter::HostUint128 sumsq_q = 0;  ///< exact: q^2 needs up to 122 bits
  double sumsq_percent = 0.0;                         ///< in trade order, as doubles: an independent check
};

/// `only` (optional): the trades of these ranges of the strategy's days only (a subset's).
std::vector<TradeLogFold> trade_log_folds(const strategies::TradeFilterStrategy& s, const std::vector<double>& slots,
                                          const FoldSpec& spec, std::size_t* in_embargo,
                                          const std::vector<strategies::AtomRange>& only = {}) {
  const auto& entry = strategies::registry().at("trade_filter").trades;
  const auto percent_column = static_cast<std::size_t>(
      std::find(entry.columns.begin(), entry.columns.end(), "percent") - entry.columns.begin());
  std::vector<TradeLogFold> out(spec.n_folds());
  const strategies::ExportedTrades trades = entry.cpu(s, slots.data());
  for (const auto& t : trades.at(0)) {
    const std::int64_t day = t.entry_time_ms / 1000 / 86400;
    const auto it = std::lower_bound(s.days().begin(), s.days().end(), day);
    REQUIRE((it != s.days().end() && *it == day));
    const auto atom = static_cast<std::size_t>(it - s.days().begin());
    if (!only.empty() && std::none_of(only.begin(), only.end(),
                                      [&](const strategies::AtomRange& r) { return atom >= r.begin && atom < r.end; }))
      continue;
    for (std::size_t k = 0; k < spec.n_folds(); ++k) {
      if (atom < spec.edges[k] || atom >= spec.edges[k + 1]) continue;
      if (k > 0 && atom < spec.edges[k] + spec.embargo) {
        ++*in_embargo;
        continue;
      }
      const double percent = std::stod(t.fields.at(percent_column));
      const std::int64_t q = std::llround(percent * 1e9);
      REQUIRE(same_bits(static_cast<double>(q) / 1e9, percent));  // the exact outcome, recovered
      out[k].n += 1;
      out[k].sum_q += q;
      const auto a = static_cast<strategies::trade_filter::HostUint128>(q < 0 ? -q : q);
      out[k].sumsq_q += a * a;
      out[k].sumsq_percent += percent * percent;
    }
  }
  return out;
}

}  // namespace

TEST_CASE("folds: each fold's columns are those of the kept trades entered on its days (trade_filter)",
          "[cpu][folds][trade_filter]") {
  const auto plain = trade_filter_days20();
  const std::size_t n = plain->n_atoms(), K = 5, embargo = GENERATE(0u, 1u);
  CAPTURE(embargo);
  REQUIRE(n == 20);
  const FoldSpec spec = equal_folds(1, n - 1, K, embargo);  // a day before and after the folds
  const auto folded = plain->with_folds(spec, {});
  REQUIRE(folded->metric_names().size() == 3 + 4 * K);
  REQUIRE(folded->metric_names()[3] == "fold0_score");
  REQUIRE(folded->metric_names().back() == fmt::format("fold{}_sumsq", K - 1));
  std::size_t counted = 0, in_embargo = 0;
  for (std::uint64_t t = 0; t < 30; ++t) {
    CAPTURE(t);
    const auto slots = trade_filter_slots(t);
    const Evaluated f = evaluate(*folded, slots);
    const auto expected = trade_log_folds(*plain, slots, spec, &in_embargo);
    for (std::size_t k = 0; k < K; ++k) {
      CAPTURE(k);
      const std::string p = fmt::format("fold{}_", k);
      const double sum = static_cast<double>(expected[k].sum_q) / 1e9;
      REQUIRE(f.metrics[column(*folded, p + "n")] == static_cast<double>(expected[k].n));
      REQUIRE(same_bits(f.metrics[column(*folded, p + "score")], sum));  // the exact total percent return
      REQUIRE(same_bits(f.metrics[column(*folded, p + "sum")], sum));
      // The exact 128-bit sum of squares in 1e-18 percent^2, within two roundings of its double.
      const double sumsq = f.metrics[column(*folded, p + "sumsq")];
      REQUIRE(sumsq == Approx(static_cast<double>(expected[k].sumsq_q) / 1e18).epsilon(1e-15));
      REQUIRE(sumsq == Approx(expected[k].sumsq_percent).epsilon(1e-12));
      counted += static_cast<std::size_t>(expected[k].n);
    }
  }
  REQUIRE(counted > 1000);
  if (embargo > 0) REQUIRE(in_embargo > 0);
}

TEST_CASE("folds: trade_filter's rule All keeps its bits, and a subset keeps its folds", "[cpu][folds][trade_filter]") {
  const auto plain = trade_filter_days20();
  const std::size_t n = plain->n_atoms(), M = 3;
  const FoldSpec spec = equal_folds(0, n, 4, 1);
  const auto folded = plain->with_folds(spec, {});
  // A subset (a hold-out's in-sample part, halving's slices): folded then cut, or cut then
  // folded over the whole data's days.
  const std::vector<strategies::AtomRange> part{{0, 6}, {9, 17}};
  const auto folded_part = folded->subset(part, 3);
  const auto part_folded = plain->subset(part, 3)->with_folds(spec, {});
  REQUIRE(folded_part->folds().edges == spec.edges);
  REQUIRE(folded_part->metric_names() == folded->metric_names());
  int partial = 0;
  for (std::uint64_t t = 0; t < 30; ++t) {
    CAPTURE(t);
    const auto slots = trade_filter_slots(t);
    const Evaluated a = evaluate(*plain, slots), b = evaluate(*folded, slots);
    REQUIRE(same_bits(a.score.score, b.score.score));
    REQUIRE(same_bits(a.score.violation, b.score.violation));
    REQUIRE(same_bits(a.metrics, std::vector<double>(b.metrics.begin(), b.metrics.begin() + M)));
    const Evaluated c = evaluate(*folded_part, slots), d = evaluate(*part_folded, slots);
    REQUIRE(same_bits(c.metrics, d.metrics));
    REQUIRE(same_bits(c.score.score, d.score.score));
    // Fold 3 (days 15 to 19, day 15 embargoed) has only day 16 in the subset: a fold counts
    // the subset's trades of its days only.
    const double n_sub =
        c.metrics[M + 4 * 0 + 1] + c.metrics[M + 4 * 1 + 1] + c.metrics[M + 4 * 2 + 1] + c.metrics[M + 4 * 3 + 1];
    REQUIRE(n_sub <= c.metrics[0]);
    REQUIRE(c.metrics[M + 4 * 3 + 1] <= b.metrics[M + 4 * 3 + 1]);
    // Counted here from the whole log's trades on the subset's days, numbered as whole days.
    std::size_t in_embargo = 0;
    const auto expected = trade_log_folds(*plain, slots, spec, &in_embargo, part);
    for (std::size_t k = 0; k < spec.n_folds(); ++k) {
      CAPTURE(k);
      REQUIRE(c.metrics[M + 4 * k + 1] == static_cast<double>(expected[k].n));
      REQUIRE(same_bits(c.metrics[M + 4 * k + 2], static_cast<double>(expected[k].sum_q) / 1e9));
    }
    partial += c.metrics[M + 4 * 3 + 1] < b.metrics[M + 4 * 3 + 1] ? 1 : 0;
  }
  REQUIRE(partial > 0);
  REQUIRE(folded->with_folds({}, {})->metric_names() == plain->metric_names());
  // The exact grid scores the whole span: it refuses a folded strategy, naming the key.
  REQUIRE_THROWS_WITH(strategies::trade_filter_grid_cpu(*folded), Catch::Contains("data.folds"));
}

TEST_CASE("folds: every rule's score is its value over trade_filter's fold scores", "[cpu][folds][trade_filter]") {
  const auto plain = trade_filter_days20();
  const std::size_t n = plain->n_atoms(), K = 5, M = 3;
  for (const AcrossFolds a : {AcrossFolds{Rule::Mean}, AcrossFolds{Rule::Min}, AcrossFolds{Rule::Quantile, 0.3},
                              AcrossFolds{Rule::Quantile, 1.0}, AcrossFolds{Rule::MeanMinusStd, 0.5, 1.5}}) {
    CAPTURE(strategies::across_folds_name(a.rule), a.q, a.lambda);
    const auto folded = plain->with_folds(equal_folds(0, n, K, 1), a);
    const auto all = plain->with_folds(equal_folds(0, n, K, 1), {});
    int distinct = 0;
    for (std::uint64_t t = 0; t < 20; ++t) {
      const auto slots = trade_filter_slots(t);
      const Evaluated e = evaluate(*folded, slots), w = evaluate(*all, slots);
      std::vector<double> v;
      for (std::size_t k = 0; k < K; ++k) v.push_back(e.metrics[M + 4 * k]);
      REQUIRE(same_bits(e.score.score, rule_value(v, a)));
      REQUIRE(same_bits(e.metrics, w.metrics));
      REQUIRE(same_bits(e.score.violation, w.score.violation));
      distinct += same_bits(e.score.score, w.score.score) ? 0 : 1;
    }
    REQUIRE(distinct > 0);
  }
}

TEST_CASE("folds: a trade_filter config with data.folds runs, and its run reports the selection bias",
          "[cpu][folds][trade_filter][config]") {
  const auto cache = testing::trade_filter_cache(20, 2000, 7);
  const std::string dir = testing::make_temp_dir("tf_folds_cli");
  const io::Json config = {{"strategy", "trade_filter"},
                           {"data", {{"cache", cache.string()}, {"holdout", 0.2}, {"folds", 4}, {"embargo", 1}}},
                           {"objective", {{"min_trades", 5}, {"across_folds", "quantile"}, {"q", 0.25}}},
                           {"search", {{"sampler", "tpe"}, {"trials", 200}, {"batch", 50}, {"seed", 3}}},
                           {"params", io::Json::parse(testing::trade_filter_continuous_params(0.2, 3.0))}};
  const auto parsed = io::parse_study_config(config, "tf.json", ".");
  REQUIRE(parsed.folds.folds == 4);
  REQUIRE(parsed.folds.across.rule == Rule::Quantile);
  const auto strategy = engine::make_strategy(parsed);
  REQUIRE(strategy->folds().n_folds() == 4);
  REQUIRE(strategy->folds().edges.back() == 16);  // the 16 in-sample days of 20
  std::ofstream(dir + "/config.json") << config.dump(2);
  const auto run =
      testing::run_cli({"run", "--config", dir + "/config.json", "--executor", "cpu", "--out", dir + "/run"});
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  const io::Json summary = testing::read_json(dir + "/run/summary.json");
  INFO(summary["selection_bias"].dump(2));
  REQUIRE(summary["selection_bias"]["available"] == true);
  CHECK(summary["selection_bias"]["dsr"]["dsr"].is_number());
  CHECK(summary["selection_bias"]["pbo"].is_object());
  const io::Json top = testing::read_json(dir + "/run/top.json");
  REQUIRE(top[0]["fold_scores"].size() == 4);
  REQUIRE(top[0].contains("out_of_sample"));

  // `tpeopt grid` of a folded config: the grid sampler through the pipeline (not the exact
  // grid, which scores the whole span), fold columns and all.
  io::Json grid = config;
  grid["data"].erase("holdout");
  grid["params"] = {{"min_volatility", {{"values", {0.0, 0.2}}}},
                    {"min_ratio", {{"values", {0.0, 0.5}}}},
                    {"target_pct", {{"values", {0.5, 1.0, 2.0}}}},
                    {"stop_pct", {{"values", {-1.0, -0.5}}}}};
  std::ofstream(dir + "/grid.json") << grid.dump(2);
  const auto g =
      testing::run_cli({"grid", "--config", dir + "/grid.json", "--executor", "cpu", "--out", dir + "/grid"});
  INFO(g.output);
  REQUIRE(g.exit_code == 0);
  CHECK(g.output.find("24 combinations in batches of") != std::string::npos);
  const io::Json grid_top = testing::read_json(dir + "/grid/top.json");
  REQUIRE(grid_top[0]["fold_scores"].size() == 4);
}

TEST_CASE("folds: trade_filter's fold totals by runs of chunks and lanes, merged in any order, give the CPU's bits",
          "[cpu][folds][trade_filter]") {
  // The device's way (tally_trades_folded over a chunk of trades, a thread's stride 1 or a
  // lane's stride 32, each piece of a fold run handed over and added in any order, its
  // whole-span totals too), run here on the host arrays, against TradeFilterStrategy::evaluate.
  namespace tf = strategies::trade_filter;
  const auto plain = trade_filter_days20();
  const std::size_t K = 6;
  const auto folded = plain->with_folds(equal_folds(1, plain->n_atoms(), K, 1), {Rule::MeanMinusStd, 0.5, 0.7});
  const auto& s = dynamic_cast<const strategies::TradeFilterStrategy&>(*folded);
  const tf::TradeArrays a = s.arrays();
  const std::uint64_t n = a.n;
  // The runs cover the trades in order, each one fold, neighbours of different folds.
  REQUIRE(a.n_fold_runs >= K);
  REQUIRE(a.fold_run_start[0] == 0);
  REQUIRE(a.fold_run_start[a.n_fold_runs] == n);
  for (std::uint64_t r = 0; r < a.n_fold_runs; ++r) {
    REQUIRE(a.fold_run_start[r] < a.fold_run_start[r + 1]);
    if (r > 0) REQUIRE(a.fold_run_fold[r] != a.fold_run_fold[r - 1]);
    for (std::uint64_t i = a.fold_run_start[r]; i < a.fold_run_start[r + 1]; ++i)
      REQUIRE(s.trade_folds()[i] == a.fold_run_fold[r]);
  }
  std::size_t embargoed = 0;  // the embargo's days: trades of no fold
  for (const std::int8_t k : s.trade_folds()) embargoed += k < 0 ? 1 : 0;
  REQUIRE(embargoed > 0);
  // The same folds cut into runs of 5 trades (a log out of time order has short runs): a lane's
  // stride of 32 steps over runs, and neighbouring runs may share a fold.
  std::vector<std::uint64_t> short_start;
  std::vector<std::int8_t> short_fold;
  for (std::uint64_t r = 0; r < a.n_fold_runs; ++r)
    for (std::uint64_t i = a.fold_run_start[r]; i < a.fold_run_start[r + 1]; i += 5) {
      short_start.push_back(i);
      short_fold.push_back(a.fold_run_fold[r]);
    }
  short_start.push_back(n);
  tf::TradeArrays short_runs = a;
  short_runs.n_fold_runs = short_fold.size();
  short_runs.fold_run_start = short_start.data();
  short_runs.fold_run_fold = short_fold.data();
  for (std::uint64_t t = 0; t < 12; ++t) {
    CAPTURE(t);
    const auto slots = trade_filter_slots(t);
    const tf::Params p = tf::params_from_slots(slots.data());
    const Evaluated cpu = evaluate(s, slots);
    for (const std::uint64_t chunk : {std::uint64_t{1}, std::uint64_t{64}, std::uint64_t{777}, n}) {
      for (const std::uint64_t step : {std::uint64_t{1}, std::uint64_t{32}}) {
        for (const bool cut : {false, true}) {
          CAPTURE(chunk, step, cut);
          const tf::TradeArrays& runs = cut ? short_runs : a;
          tf::Tally whole;
          std::vector<tf::FoldTally> folds(K);
          std::size_t flushes = 0;
          // Chunks last to first, lanes in reverse: another order of the same integer additions.
          for (std::uint64_t c = (n + chunk - 1) / chunk; c-- > 0;) {
            const std::uint64_t begin = c * chunk, end = std::min(n, begin + chunk);
            for (std::uint64_t lane = step; lane-- > 0;) {
              if (begin + lane >= end) continue;
              tf::tally_trades_folded(runs, p, begin + lane, end, step, [&](int k, const tf::RunTally& run) {
                REQUIRE(k >= -1);
                REQUIRE(run.kept > 0);
                const tf::Tally part = tf::whole_part(run);
                whole.sum_q += part.sum_q, whole.kept += part.kept, whole.wins += part.wins,
                    whole.losses += part.losses;
                if (k >= 0) tf::fold_tally_merge(folds[static_cast<std::size_t>(k)], tf::fold_part(run));
                ++flushes;
              });
            }
          }
          std::vector<double> metrics(3 + 4 * K);
          metrics[0] = static_cast<double>(whole.kept);
          metrics[1] = static_cast<double>(whole.wins);
          metrics[2] = static_cast<double>(whole.losses);
          const double score = tf::finish_fold_tallies(folds.data(), static_cast<int>(K), s.fold_rule(),
                                                       tf::from_fixed_point(whole.sum_q), metrics.data() + 3);
          REQUIRE(same_bits(metrics, cpu.metrics));
          REQUIRE(same_bits(score, cpu.score.score));
          if (whole.kept > 0) REQUIRE(flushes > 0);
        }
      }
    }
  }
}

TEST_CASE("folds: trade_filter's 128-bit sums of squares carry between their words", "[cpu][folds][trade_filter]") {
  namespace tf = strategies::trade_filter;
  // Outcomes near the 2^61 bound: their squares (about 2^121) fill the high word.
  const std::int64_t big = tf::kMaxAbsSum / 3;
  // Around 2^32, where add_square leaves its one-word product for the full one.
  const std::int64_t w = std::int64_t{1} << 32;
  const std::vector<std::int64_t> qs{
      big, -big, 1, -(std::int64_t{1} << 40), 123456789012345, big / 7, -3, w - 1, -(w - 1), w, -w, w + 1};
  tf::FoldTally t, u;
  tf::HostUint128 expected = 0;
  for (const std::int64_t q : qs) {
    tf::fold_tally_add(t, q);
    tf::FoldTally one;
    tf::fold_tally_add(one, q);
    tf::fold_tally_merge(u, one);
    const auto m = static_cast<tf::HostUint128>(q < 0 ? -q : q);
    expected += m * m;
  }
  REQUIRE(t.kept == static_cast<std::int64_t>(qs.size()));
  REQUIRE(t.sq_lo == static_cast<std::uint64_t>(expected));
  REQUIRE(t.sq_hi == static_cast<std::uint64_t>(expected >> 64));
  REQUIRE((u.sq_lo == t.sq_lo && u.sq_hi == t.sq_hi && u.sum_q == t.sum_q && u.kept == t.kept));
  REQUIRE(tf::sumsq_percent(t) == Approx(static_cast<double>(expected) / 1e18).epsilon(1e-15));
}
