// The conformance harness, CPU side: every registered strategy (strategies/registry.hpp),
// over each of its registry samples on the bundled real data, without a test written per
// strategy. What each must do:
//  - build from its config and evaluate random trials; pipelined == serial, bit for bit;
//  - refuse, when the config is loaded, a parameter outside its domain or unknown to it;
//  - with data subsets (StrategyEntry::subsets): the whole data as one part scores as the
//    strategy itself, bit for bit; a hold-out study and a halving study run, pipelined ==
//    serial, and the hold-out's out-of-sample scores are the out-of-sample part's own;
//  - with folds (Strategy::with_folds), where it can be split: rule All keeps its bits, rule
//    Min scores the worst fold, an embargo changes only the folds' columns, and a folded study
//    from data.folds / objective.across_folds runs pipelined == serial;
//  - with a trade export: one list per symbol, as many trades as the metric that counts them
//    says (`trades`, or the entry's count_metric), each with a return column.
// Two more checks of meaning have files of their own: future invariance (the data changed after
// a time changes nothing decided before it: test_conformance_future.cpp) and order independence
// (a trial alone, in a batch, reversed, at any thread count: test_conformance_order.cpp).
// The CUDA side (CPU == GPU for all of this) is tests/gpu/test_conformance_gpu.cpp.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "engine/cpu_executor.hpp"
#include "engine/param_binding.hpp"
#include "strategies/symbol_strategy.hpp"
#include "study/backtest.hpp"
#include "study/data_subsets.hpp"
#include "study/study.hpp"
#include "support/bits.hpp"
#include "support/conformance.hpp"
#include "support/identical_runs.hpp"

using namespace tpeopt;
using tpeopt::testing::ConformanceCase;
using tpeopt::testing::same_bits;

namespace {

/// Values just outside a slot's domain as the strategy reads them (NaN where that side is
/// unbounded): an integer slot rounds, floor(v + 0.5), so its are half an integer beyond the
/// integers it takes (0.49999999999999994 + 0.5 rounds to 1: it is read as 1).
std::pair<double, double> just_outside(const strategies::ParamSpec& p) {
  if (!p.integer) return {p.domain.just_below(), p.domain.just_above()};
  double below = NAN, above = NAN;
  if (std::isfinite(p.domain.low)) {
    double lo = std::ceil(p.domain.low);
    if (p.domain.low_open && lo == p.domain.low) lo += 1.0;
    below = lo - 0.5 - 1e-6;
  }
  if (std::isfinite(p.domain.high)) {
    double hi = std::floor(p.domain.high);
    if (p.domain.high_open && hi == p.domain.high) hi -= 1.0;
    above = hi + 0.5;
  }
  return {below, above};
}

engine::StudyRun run(const io::StudyConfig& config, const strategies::Strategy& strategy, bool serial) {
  engine::RunOptions o;
  o.executor = "cpu";
  o.cpu_threads = 3;
  o.serial = serial;
  o.keep_trials = true;
  return engine::run_study(config, strategy, o);
}

/// The trial's full parameter vector from one row of a batch.
std::vector<double> slots_of(const io::StudyConfig& config, const strategies::Strategy& strategy,
                             const engine::BatchRequest& r, std::size_t i) {
  const engine::ParamBinding binding(strategy, config.space, config.fixed);
  std::vector<double> slots(binding.n_slots());
  binding.fill(&r.values[i * r.n_axes], slots.data());
  return slots;
}

}  // namespace

TEST_CASE("conformance: the registry lists the seven strategies, each with samples", "[cpu][conformance]") {
  const auto names = strategies::registry().names();
  for (const char* n : {"functions", "exhaustion", "trade_filter", "atc", "ema_cross", "bollinger", "donchian"})
    CHECK(std::find(names.begin(), names.end(), n) != names.end());
  std::set<std::string> covered;
  for (const auto& c : tpeopt::testing::conformance_cases()) covered.insert(c.entry->name);
  // Every strategy tpeopt scores itself is covered; only one scored by its caller is not
  // (tests/engine/test_caller_scored.cpp).
  std::size_t scored_here = 0;
  for (const auto& e : strategies::registry().entries()) {
    if (!e.scored_by_caller.empty()) continue;
    ++scored_here;
    CAPTURE(e.name);
    CHECK(covered.count(e.name) == 1);
  }
  CHECK(covered.size() == scored_here);
}

TEST_CASE("conformance: every strategy runs its samples, pipelined == serial", "[cpu][conformance][determinism]") {
  for (const ConformanceCase& c : tpeopt::testing::conformance_cases()) {
    CAPTURE(c.label);
    const io::StudyConfig config = tpeopt::testing::conformance_study(c);
    const auto strategy = engine::make_strategy(config);
    REQUIRE(strategy->name() == c.entry->name);
    REQUIRE(strategy->param_names() == (c.entry->params_from_config ? config.param_order : c.entry->params.names()));
    const auto pipelined = run(config, *strategy, false);
    const auto serial = run(config, *strategy, true);
    tpeopt::testing::require_identical(pipelined.result, serial.result);
    // Some trial scores a finite number: the samples exercise the strategy, not only its refusals.
    std::size_t finite = 0;
    for (const auto& t : pipelined.result.trials()) finite += std::isfinite(t.score) ? 1 : 0;
    CHECK(finite > 0);
  }
}

TEST_CASE("conformance: parameters outside a strategy's domain are refused when the config is loaded",
          "[cpu][conformance][config]") {
  std::set<std::string> seen;
  for (const ConformanceCase& c : tpeopt::testing::conformance_cases()) {
    if (!seen.insert(c.entry->name).second) continue;  // one sample per strategy is enough
    CAPTURE(c.label);
    if (!c.entry->params_from_config)  // (the functions strategy takes any parameter)
      REQUIRE_THROWS_WITH(tpeopt::testing::conformance_study(c, {{"params", {{"no_such_parameter", 1.0}}}}),
                          Catch::Contains("params.no_such_parameter"));
    for (const auto& p : c.entry->params.specs()) {
      CAPTURE(p.name);
      const auto [below, above] = just_outside(p);
      for (const double outside : {below, above}) {
        if (std::isnan(outside)) continue;
        CAPTURE(outside);
        // As a fixed number and as the end of a range.
        CHECK_THROWS_WITH(tpeopt::testing::conformance_study(c, {{"params", {{p.name, outside}}}}),
                          Catch::Contains("params." + p.name));
        const double inside = p.typical_low;
        const io::Json range = {{"type", "float"},
                                {"low", std::min(inside, outside)},
                                {"high", std::max(inside, outside)}};
        CHECK_THROWS_WITH(tpeopt::testing::conformance_study(c, {{"params", {{p.name, range}}}}),
                          Catch::Contains("params." + p.name));
      }
      CHECK(p.domain.accepts(p.typical_low, p.typical_high));  // the typical range is inside the domain
    }
  }
}

TEST_CASE("conformance: every parameter outside its domain is reported in one message, each by its key",
          "[cpu][conformance][config]") {
  std::set<std::string> seen;
  for (const ConformanceCase& c : tpeopt::testing::conformance_cases()) {
    if (!seen.insert(c.entry->name).second || c.entry->params_from_config) continue;
    CAPTURE(c.label);
    // Every slot with a lower bound as a range starting just below it, every other slot
    // fixed just above its upper bound; plus an unknown name.
    io::Json params = io::Json::object();
    std::vector<std::string> keys;
    for (const auto& p : c.entry->params.specs()) {
      const auto [below, above] = just_outside(p);
      if (!std::isnan(below)) {
        params[p.name] = {{"type", "float"}, {"low", below}, {"high", p.typical_high}};
        keys.push_back("params." + p.name + ".low: ");
      } else if (!std::isnan(above)) {
        params[p.name] = above;
        keys.push_back("params." + p.name + ": ");
      }
    }
    params["no_such_parameter"] = 1.0;
    keys.push_back("params.no_such_parameter: not a parameter of strategy " + c.entry->name);
    std::string message;
    try {
      tpeopt::testing::conformance_study(c, {{"params", params}});
    } catch (const Error& e) {
      message = e.what();
    }
    CAPTURE(message);
    CHECK_THAT(message, Catch::Contains(fmt::format("{} errors:", keys.size())));
    for (const auto& k : keys) CHECK_THAT(message, Catch::Contains("\n  " + k));
  }
}

TEST_CASE("conformance: an integer slot's largest value as read is the top of its domain",
          "[cpu][conformance][config]") {
  std::set<std::string> seen;
  std::size_t checked = 0;
  for (const ConformanceCase& c : tpeopt::testing::conformance_cases()) {
    if (!seen.insert(c.entry->name).second || c.entry->params_from_config) continue;
    for (const auto& p : c.entry->params.specs()) {
      if (!p.integer || !std::isfinite(p.domain.high)) continue;
      CAPTURE(c.label, p.name);
      // The largest integer the domain takes, and the first value read as the next one.
      double top = std::floor(p.domain.high);
      if (p.domain.high_open && top == p.domain.high) top -= 1.0;
      const io::Json ok = {{"type", "float"}, {"low", p.typical_low}, {"high", top + 0.49}};
      CHECK_NOTHROW(tpeopt::testing::conformance_study(c, {{"params", {{p.name, ok}}}}));
      const io::Json over = {{"type", "float"}, {"low", p.typical_low}, {"high", top + 0.5}};
      CHECK_THROWS_WITH(tpeopt::testing::conformance_study(c, {{"params", {{p.name, over}}}}),
                        Catch::Contains(fmt::format("params.{}.high: ", p.name)) && Catch::Contains("is above"));
      ++checked;
    }
  }
  CHECK(checked >= 10);
}

TEST_CASE("conformance: every strategy whose metrics count trades exports them", "[cpu][conformance][trades]") {
  for (const ConformanceCase& c : tpeopt::testing::conformance_cases()) {
    CAPTURE(c.label);
    const io::StudyConfig config = tpeopt::testing::conformance_study(c);
    const auto strategy = engine::make_strategy(config);
    const auto& names = strategy->metric_names();
    const bool counts_trades = std::find(names.begin(), names.end(), "trades") != names.end() ||
                               std::find(names.begin(), names.end(), "kept") != names.end();
    CHECK(c.entry->trades.available() == counts_trades);
    if (!c.entry->trades.available()) continue;
    const auto& columns = c.entry->trades.columns;
    CHECK(std::find(columns.begin(), columns.end(), "return") != columns.end());
    CHECK(std::find(names.begin(), names.end(), c.entry->trades.count_metric) != names.end());
  }
}

TEST_CASE("conformance: folds, where a strategy can be split into them", "[cpu][conformance][folds]") {
  using Rule = strategies::AcrossFolds::Rule;
  std::set<std::string> split, unsplit;
  for (const ConformanceCase& c : tpeopt::testing::conformance_cases()) {
    CAPTURE(c.label);
    const io::StudyConfig config = tpeopt::testing::conformance_study(c);
    const auto strategy = engine::make_strategy(config);
    const auto all = tpeopt::testing::folded_or_null(*strategy, 4, 0, {Rule::All});
    if (!all) {
      unsplit.insert(c.label);
      continue;
    }
    split.insert(c.label);
    const auto worst = tpeopt::testing::folded_or_null(*strategy, 4, 5, {Rule::Min});
    REQUIRE(worst);
    const std::size_t M = strategy->metric_names().size(), K = 4;
    REQUIRE(all->metric_names().size() == M + 4 * K);
    const auto batch = tpeopt::testing::random_batch(config, 24, 12);
    for (std::size_t i = 0; i < batch.n_trials; ++i) {
      CAPTURE(i);
      const auto slots = slots_of(config, *strategy, batch, i);
      std::vector<double> plain(M), folded(M + 4 * K), embargoed(M + 4 * K);
      const auto a = strategy->evaluate(slots.data(), plain.data());
      const auto b = all->evaluate(slots.data(), folded.data());
      const auto w = worst->evaluate(slots.data(), embargoed.data());
      // Rule All keeps the strategy's own bits; the fold columns are extra.
      CHECK(same_bits(a.score, b.score));
      CHECK(same_bits(a.violation, b.violation));
      CHECK(same_bits(plain, std::vector<double>(folded.begin(), folded.begin() + M)));
      // Rule Min scores the worst fold, and an embargo changes the folds' columns only.
      double lowest = embargoed[M];
      for (std::size_t k = 1; k < K; ++k) lowest = std::min(lowest, embargoed[M + 4 * k]);
      CHECK(same_bits(w.score, lowest));
      CHECK(same_bits(plain, std::vector<double>(embargoed.begin(), embargoed.begin() + M)));
      // A fold's observations are no more with an embargo than without.
      for (std::size_t k = 0; k < K; ++k) CHECK(embargoed[M + 4 * k + 1] <= folded[M + 4 * k + 1]);
    }
    // A folded study from the config's keys: pipelined == serial.
    const io::StudyConfig study =
        tpeopt::testing::conformance_study(c, {{"data", {{"folds", 4}, {"embargo", 5}}},
                                               {"objective", {{"across_folds", "min"}, {"min_trades", 0}}}});
    tpeopt::testing::require_identical(run(study, *engine::make_strategy(study), false).result,
                                       run(study, *engine::make_strategy(study), true).result);
  }
  // Which registered strategies score folds (docs/will-it-hold-up.md lists them).
  INFO("split into folds: " << fmt::format("{}", fmt::join(split, ", ")));
  INFO("cannot be split: " << fmt::format("{}", fmt::join(unsplit, ", ")));
  CHECK(!split.empty());
}

TEST_CASE("conformance: data subsets, where a strategy declares them", "[cpu][conformance][subsets]") {
  for (const ConformanceCase& c : tpeopt::testing::conformance_cases()) {
    CAPTURE(c.label);
    const io::StudyConfig config = tpeopt::testing::conformance_study(c);
    const auto strategy = engine::make_strategy(config);
    REQUIRE((strategy->n_atoms() > 0) == c.entry->subsets);
    if (!c.entry->subsets) continue;
    // The whole data as one part is the strategy itself, bit for bit.
    const auto whole = strategy->subset({{0, strategy->n_atoms()}}, strategy->min_trades());
    const auto batch = tpeopt::testing::random_batch(config, 24, 11);
    const std::size_t M = strategy->metric_names().size();
    for (std::size_t i = 0; i < batch.n_trials; ++i) {
      const auto slots = slots_of(config, *strategy, batch, i);
      std::vector<double> m1(M), m2(M);
      const auto a = strategy->evaluate(slots.data(), m1.data());
      const auto b = whole->evaluate(slots.data(), m2.data());
      CAPTURE(i);
      CHECK(same_bits(a.score, b.score));
      CHECK(same_bits(a.violation, b.violation));
      CHECK(same_bits(m1, m2));
    }
    // A hold-out study: in-sample during the run, out-of-sample scores after it.
    const io::StudyConfig holdout =
        tpeopt::testing::conformance_study(c, {{"data", {{"holdout", 0.3}}}, {"objective", {{"min_trades", 0}}}});
    const auto h1 = run(holdout, *strategy, false);
    const auto h2 = run(holdout, *strategy, true);
    tpeopt::testing::require_identical(h1.result, h2.result);
    REQUIRE(h1.holdout);
    REQUIRE(h1.holdout->scores.size() == h1.result.top().size());
    CHECK(h1.holdout->out_of_sample_atoms > 0);
    CHECK(h1.holdout->in_sample_atoms > 0);
    const auto split = engine::split_parts(*strategy, holdout);
    const auto oos = strategy->subset(split.out_of_sample, 0);
    const engine::ParamBinding binding(*oos, holdout.space, holdout.fixed);
    std::vector<double> slots(binding.n_slots()), m(oos->metric_names().size());
    for (std::size_t i = 0; i < h1.result.top().size(); ++i) {
      binding.fill(h1.result.top()[i].params.data(), slots.data());
      CHECK(same_bits(oos->evaluate(slots.data(), m.data()).score, h1.holdout->scores[i]));
    }
    // Successive halving over 4 slices of the data.
    const io::StudyConfig halving =
        tpeopt::testing::conformance_study(c, {{"search", {{"halving", {{"eta", 2}, {"slices", 4}}}}},
                                               {"objective", {{"min_trades", 0}}}});
    tpeopt::testing::require_identical(run(halving, *strategy, false).result, run(halving, *strategy, true).result);
  }
}

TEST_CASE("conformance: a strategy's trade export agrees with its trades metric", "[cpu][conformance][trades]") {
  for (const ConformanceCase& c : tpeopt::testing::conformance_cases()) {
    if (!c.entry->trades.available()) continue;
    CAPTURE(c.label);
    const io::StudyConfig config = tpeopt::testing::conformance_study(c);
    const auto strategy = engine::make_strategy(config);
    const auto& names = strategy->metric_names();
    const auto trades_metric = std::find(names.begin(), names.end(), c.entry->trades.count_metric) - names.begin();
    REQUIRE(trades_metric < static_cast<std::ptrdiff_t>(names.size()));
    const auto* symbols = dynamic_cast<const strategies::SymbolStrategy*>(strategy.get());
    const auto batch = tpeopt::testing::random_batch(config, 8, 5);
    for (std::size_t i = 0; i < batch.n_trials; ++i) {
      const auto slots = slots_of(config, *strategy, batch, i);
      const engine::Backtest b = engine::backtest_params(*strategy, slots, "cpu", true, 128);
      REQUIRE(b.trades);
      CHECK(b.trades->size() == (symbols ? symbols->n_symbols() : 1));
      std::size_t total = 0;
      for (const auto& list : *b.trades) {
        total += list.size();
        for (const auto& t : list) {
          CHECK(t.fields.size() == c.entry->trades.columns.size());
          CHECK(t.entry_time_ms <= t.exit_time_ms);
        }
      }
      CHECK(static_cast<double>(total) == b.metrics[static_cast<std::size_t>(trades_metric)]);
    }
  }
}
