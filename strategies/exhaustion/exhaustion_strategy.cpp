#include "strategies/exhaustion/exhaustion_strategy.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "common/digest.hpp"
#include "common/error.hpp"
#include "common/floor_div.hpp"

namespace tpeopt::strategies {

namespace ex = exhaustion;

exhaustion::Objective parse_exhaustion_objective(const std::string& name) {
  if (name == "total_return") return ex::Objective::TotalReturn;
  if (name == "mean_r") return ex::Objective::MeanR;
  if (name == "sharpe") return ex::Objective::Sharpe;
  if (name == "profit_factor") return ex::Objective::ProfitFactor;
  throw make_error(
      "objective.name: \"{}\" is not an objective of strategy exhaustion (expected total_return, mean_r, sharpe or "
      "profit_factor)",
      name);
}

const char* exit_reason_name(int reason) {
  switch (reason) {
    case ex::kGap:
      return "gap";
    case ex::kStop:
      return "stop";
    case ex::kTarget:
      return "target";
    case ex::kTime:
      return "time";
    default:
      return "none";
  }
}

namespace {

// Largest window or span accepted: bars are indexed with int.
constexpr double kMaxWindow = 1e8;

}  // namespace

ExhaustionStrategy::ExhaustionStrategy(Candles candles, ExhaustionOptions options)
    : candles_(std::move(candles)), options_(options) {
  const std::size_t n = candles_.size();
  if (n < 2)
    throw make_error("data.candles: {} has {} bar(s); the exhaustion strategy needs at least 2", candles_.source, n);
  if (n > static_cast<std::size_t>(std::numeric_limits<int>::max() - 2))
    throw make_error("data.candles: {} has too many bars ({})", candles_.source, n);
  if (options_.min_trades < 0) throw make_error("objective.min_trades: must be >= 0");
  const int ni = static_cast<int>(n);
  cloc_.resize(n);
  tr_.resize(n);
  for (int i = 0; i < ni; ++i) {
    cloc_[i] = ex::close_location(candles_.high[i], candles_.low[i], candles_.close[i]);
    tr_[i] = ex::true_range(candles_.high.data(), candles_.low.data(), candles_.close.data(), i);
  }
  for (auto* v : {&s_tr_, &q_tr_, &s_vol_, &q_vol_}) v->resize(n + 1);
  ex::prefix_sums(tr_.data(), ni, s_tr_.data(), q_tr_.data());
  ex::prefix_sums(candles_.volume.data(), ni, s_vol_.data(), q_vol_.data());
  Digest d;
  d.add(static_cast<std::uint64_t>(n));
  for (std::size_t i = 0; i < n; ++i) {
    d.add(static_cast<std::uint64_t>(candles_.time_ms[i]));
    for (const auto* v : {&candles_.open, &candles_.high, &candles_.low, &candles_.close, &candles_.volume})
      d.add((*v)[i]);
  }
  checksum_ = "candles=" + d.hex();
}

const ParamList& exhaustion_params() {
  const char* window = "must be an integer >= 1 (and < 1e8)";
  const char* bp = "must be >= 0 basis points (and below 10000)";
  static const ParamList list({
      {"ema_fast", NAN, closed_open(0.5, kMaxWindow, window), true, 5, 60},
      {"ema_slow", NAN, closed_open(0.5, kMaxWindow, window), true, 20, 240},
      {"z_window", NAN, closed_open(1.5, kMaxWindow, "must be an integer >= 2 (and < 1e8)"), true, 10, 120},
      {"atr_window", NAN, closed_open(0.5, kMaxWindow, window), true, 5, 50},
      {"vol_z", NAN, any_finite(), false, 0.0, 3.0},
      {"tr_z", NAN, any_finite(), false, 0.0, 3.0},
      {"cloc_min", NAN, closed(0.0, 1.0, "must lie in [0, 1]"), false, 0.0, 0.9},
      {"atr_stop_mult", NAN, above(0.0, "must be > 0"), false, 0.5, 4.0},
      {"reward_r", NAN, above(0.0, "must be > 0"), false, 0.5, 6.0},
      {"max_hold", NAN, closed_open(0.5, kMaxWindow, window), true, 4, 96},
      {"fee_bp", 0.0, closed_open(0.0, 1e4, bp), false, 0.0, 5.0},
      {"slippage_bp", 0.0, closed_open(0.0, 1e4, bp), false, 0.0, 2.0},
  });
  return list;
}

const std::vector<std::string>& ExhaustionStrategy::metric_names() const {
  if (folds_.n_folds() > 0) return fold_names_;
  static const std::vector<std::string> names = {"trades", "wins",          "total_return", "mean_r",
                                                 "sharpe", "profit_factor", "max_drawdown"};
  return names;
}

ex::Bars ExhaustionStrategy::host_bars() const {
  ex::Bars b;
  b.n = n_bars();
  b.open = candles_.open.data();
  b.high = candles_.high.data();
  b.low = candles_.low.data();
  b.close = candles_.close.data();
  b.cloc = cloc_.data();
  b.s_tr = s_tr_.data();
  return b;
}

ex::Bars ExhaustionStrategy::host_bars(const BarBlock& block) const {
  return ex::block_bars(host_bars(), block.begin, block.end);
}

std::int64_t ExhaustionStrategy::atom_time_s(std::size_t k) const {
  const std::int64_t ms = candles_.time_ms.at(k);
  return floor_div(ms, 1000);
}

std::unique_ptr<ExhaustionStrategy> ExhaustionStrategy::with_blocks(std::vector<BarBlock> blocks,
                                                                    int min_trades) const {
  for (const auto& b : blocks)
    TPEOPT_ASSERT(b.begin >= 0 && b.begin < b.end && b.end <= n_bars(), "exhaustion: block outside the series");
  auto out = std::make_unique<ExhaustionStrategy>(*this);
  out->blocks_ = std::move(blocks);
  out->options_.min_trades = min_trades;
  return out;
}

std::unique_ptr<Strategy> ExhaustionStrategy::subset(const std::vector<AtomRange>& ranges,
                                                     std::int64_t min_trades) const {
  std::vector<BarBlock> blocks;
  for (const auto& r : ranges) {
    TPEOPT_ASSERT(r.begin < r.end && r.end <= candles_.size(), "exhaustion: subset range outside the series");
    blocks.push_back({static_cast<int>(r.begin), static_cast<int>(r.end)});
  }
  if (blocks.empty()) throw make_error("exhaustion: an empty subset of the data has nothing to backtest");
  return with_blocks(std::move(blocks), static_cast<int>(std::min<std::int64_t>(min_trades, 1 << 30)));
}

std::unique_ptr<Strategy> ExhaustionStrategy::with_folds(const FoldSpec& folds, const AcrossFolds& rule) const {
  auto out = std::make_unique<ExhaustionStrategy>(*this);
  out->folds_ = FoldSpec{};
  out->rule_ = rule;
  out->fold_compound_ = false;  // a series' own folds score its objective (with_fold_bars says otherwise)
  if (folds.n_folds() == 0) return out;
  check_fold_spec(folds, candles_.size());
  fold_bars_of(
      folds, [](std::size_t atom) { return atom; }, out->fold_edge_, out->fold_embargo_end_);
  out->fold_names_ = fold_metric_names(out->metric_names(), folds.n_folds());  // the base names: no folds yet
  out->folds_ = folds;
  return out;
}

std::unique_ptr<ExhaustionStrategy> ExhaustionStrategy::with_fold_bars(const FoldSpec& folds, const AcrossFolds& rule,
                                                                       std::vector<int> edge,
                                                                       std::vector<int> embargo_end,
                                                                       bool compound) const {
  TPEOPT_ASSERT(folds.n_folds() > 0 && edge.size() == folds.n_folds() + 1 && embargo_end.size() == folds.n_folds(),
                "exhaustion: fold bars do not match the folds");
  auto out = std::make_unique<ExhaustionStrategy>(*this);
  out->folds_ = FoldSpec{};
  out->rule_ = rule;
  out->fold_edge_ = std::move(edge);
  out->fold_embargo_end_ = std::move(embargo_end);
  out->fold_names_ = fold_metric_names(out->metric_names(), folds.n_folds());  // the base names: no folds yet
  out->folds_ = folds;
  out->fold_compound_ = compound;
  return out;
}

void ExhaustionStrategy::ema(int span, double* out) const {
  ex::ema_series(candles_.close.data(), n_bars(), span, out);
}
void ExhaustionStrategy::volume_z(int w, double* out) const {
  ex::z_series(s_vol_.data(), q_vol_.data(), candles_.volume.data(), n_bars(), w, out);
}
void ExhaustionStrategy::tr_z(int w, double* out) const {
  ex::z_series(s_tr_.data(), q_tr_.data(), tr_.data(), n_bars(), w, out);
}

template <typename OnTrade, typename OnBlock>
void ExhaustionStrategy::walk(const double* params, OnTrade&& on_trade, OnBlock&& on_block_begin) const {
  const ex::Params p = ex::unpack_params(params);
  const std::size_t n = candles_.size();
  thread_local std::vector<double> ef, es, vz, tz;
  for (auto* v : {&ef, &es, &vz, &tz}) v->resize(n);
  ema(p.ema_fast, ef.data());
  ema(p.ema_slow, es.data());
  volume_z(p.z_window, vz.data());
  tr_z(p.z_window, tz.data());
  const ex::TrialSeries t{ef.data(), es.data(), vz.data(), tz.data()};
  if (blocks_.empty()) {
    on_block_begin(std::size_t{0});
    ex::run_backtest(host_bars(), p, t, ex::SequentialFinder{}, on_trade);
    return;
  }
  for (std::size_t k = 0; k < blocks_.size(); ++k) {
    on_block_begin(k);
    ex::run_backtest(host_bars(blocks_[k]), p, t, ex::SequentialFinder{}, on_trade);
  }
}

ex::Summary ExhaustionStrategy::summarize(const double* params) const {
  ex::Summary s;
  walk(
      params, [&](const ex::Trade& t) { ex::add_trade(s, t); }, [](std::size_t) {});
  return s;
}

TrialScore ExhaustionStrategy::evaluate(const double* params, double* metrics) const {
  return evaluate(params, metrics, nullptr);
}

TrialScore ExhaustionStrategy::evaluate(const double* params, double* metrics, double* equity) const {
  TrialScore r;
  if (folds_.n_folds() > 0) {
    // The walk of the blocked path below (one block when unblocked: the same bits), each trade
    // also in its fold.
    const FoldBars bars{static_cast<int>(folds_.n_folds()), fold_edge_.data(), fold_embargo_end_.data()};
    thread_local FoldSummaries<ex::Summary> storage;
    const FoldView<ex::Summary> folds = storage.view();
    reset_folds(folds, bars.n);
    ex::Summary all;
    ex::BlockedScore blocked;
    walk(
        params,
        [&](const ex::Trade& t) {
          ex::add_trade(all, t);
          ex::add_block_trade(blocked, t);
          add_fold_trade(folds, bars, t.entry_bar, t.ret, [&](ex::Summary& s) { ex::add_trade(s, t); });
        },
        [&](std::size_t k) {
          if (k > 0) ex::end_block(blocked, options_.objective);
        });
    ex::end_block(blocked, options_.objective);
    const double whole = ex::finish(all, options_.objective, options_.min_trades, metrics, &r.violation);
    const ex::Objective o = options_.objective;
    const bool compound = fold_compound_;
    r.score = finish_folds(
        folds, bars.n, fold_rule(), blocks_.empty() ? whole : blocked.score,
        [&](const ex::Summary& s) { return compound ? s.equity - 1.0 : ex::objective_value(s, o); },
        metrics + ex::kNumMetrics);
    if (equity) *equity = all.equity;
    return r;
  }
  if (blocks_.empty()) {
    const ex::Summary s = summarize(params);
    r.score = ex::finish(s, options_.objective, options_.min_trades, metrics, &r.violation);
    if (equity) *equity = s.equity;
    return r;
  }
  // Blocked: the score is the sum of the blocks' objective values, in block order.
  ex::Summary all;
  ex::BlockedScore blocked;
  walk(
      params,
      [&](const ex::Trade& t) {
        ex::add_trade(all, t);
        ex::add_block_trade(blocked, t);
      },
      [&](std::size_t k) {
        if (k > 0) ex::end_block(blocked, options_.objective);
      });
  ex::end_block(blocked, options_.objective);
  ex::finish(all, options_.objective, options_.min_trades, metrics, &r.violation);
  r.score = blocked.score;
  if (equity) *equity = all.equity;
  return r;
}

std::vector<ex::Trade> ExhaustionStrategy::trades(const double* params, ex::Summary* summary) const {
  std::vector<ex::Trade> out;
  ex::Summary s;
  walk(
      params,
      [&](const ex::Trade& t) {
        ex::add_trade(s, t);
        out.push_back(t);
      },
      [](std::size_t) {});
  if (summary) *summary = s;
  return out;
}

std::vector<std::string> ExhaustionStrategy::data_checksums() const { return {checksum_}; }

}  // namespace tpeopt::strategies
