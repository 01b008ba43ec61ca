// The conformance harness, CPU side: every registered strategy (strategies/registry.hpp),
// over each of its registry samples on the bundled real data, without a test written per
// strategy. What each must do:
//  - build from its config and evaluate random trials; pipelined == serial, bit for bit;
//  - refuse, when the config is loaded, a parameter outside its domain or unknown to it;
//  - with data subsets (StrategyEntry::subsets): the whole data as one part scores as the
//    strategy itself, bit for bit; a hold-out study and a halving study run, pipelined ==
//    serial, and the hold-out's out-of-sample scores are the out-of-sample part's own;
//  - with a trade export: one list per symbol, as many trades as the `trades` metric says.
// The CUDA side (CPU == GPU for all of this) is tests/gpu/test_conformance_gpu.cpp.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <set>

#include "study/backtest.hpp"
#include "engine/cpu_executor.hpp"
#include "study/data_subsets.hpp"
#include "engine/param_binding.hpp"
#include "study/study.hpp"
#include "strategies/symbol_strategy.hpp"
#include "support/bits.hpp"
#include "support/conformance.hpp"
#include "support/identical_runs.hpp"

using namespace tpeopt;
using tpeopt::testing::ConformanceCase;
using tpeopt::testing::same_bits;

namespace {

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
  CHECK(covered.size() == names.size());
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
      for (const double outside : {p.domain.just_below(), p.domain.just_above()}) {
        if (std::isnan(outside)) continue;
        CAPTURE(outside);
        // As a fixed number and as the end of a range.
        CHECK_THROWS_WITH(tpeopt::testing::conformance_study(c, {{"params", {{p.name, outside}}}}),
                          Catch::Contains("params." + p.name));
        const double inside = p.typical_low;
        const io::Json range = {{"type", "float"}, {"low", std::min(inside, outside)}, {"high", std::max(inside, outside)}};
        CHECK_THROWS_WITH(tpeopt::testing::conformance_study(c, {{"params", {{p.name, range}}}}),
                          Catch::Contains("params." + p.name));
      }
      CHECK(p.domain.accepts(p.typical_low, p.typical_high));  // the typical range is inside the domain
    }
  }
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
    const io::StudyConfig halving = tpeopt::testing::conformance_study(
        c, {{"search", {{"halving", {{"eta", 2}, {"slices", 4}}}}}, {"objective", {{"min_trades", 0}}}});
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
    const auto trades_metric = std::find(names.begin(), names.end(), "trades") - names.begin();
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
