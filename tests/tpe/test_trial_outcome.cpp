// Told outcomes (tpe/trial_outcome.hpp): a pruned trial is told as Pruned at its rung, and
// every sampler ranks it by tpe::ranked's pair, so telling the explicit outcomes proposes
// exactly what telling those pairs (as complete trials of a study without halving) proposes.
#include <catch2/catch.hpp>

#include <cmath>
#include <memory>
#include <vector>

#include "support/bits.hpp"
#include "support/sampler_fixtures.hpp"
#include "tpe/batch_tpe_sampler.hpp"
#include "tpe/ga_sampler.hpp"
#include "tpe/tpe_sampler.hpp"
#include "tpe/trial_outcome.hpp"

using namespace tpeopt;
using tpe::TrialOutcome;
using tpe::TrialState;

namespace {

std::unique_ptr<tpe::Sampler> make(const std::string& kind, tpe::Direction direction) {
  if (kind == "ga") {
    tpe::GaConfig c;
    c.population = 16;
    return std::make_unique<tpe::GaSampler>(testing::mixed_space(), direction, 7, c);
  }
  if (kind == "batch") {
    tpe::BatchTpeConfig c;
    c.n_startup_trials = 10;
    return std::make_unique<tpe::BatchTpeSampler>(testing::mixed_space(), direction, 7, c);
  }
  tpe::TpeConfig c;
  c.preset = tpe::Preset::Optuna;
  c.n_startup_trials = 10;
  return std::make_unique<tpe::TpeSampler>(testing::mixed_space(), direction, 7, c);
}

/// A halving batch's outcomes: rungs 0..2 (2 = complete), some infeasible, some failed.
std::vector<TrialOutcome> halving_outcomes(const std::vector<double>& params, std::size_t n) {
  const std::size_t d = testing::mixed_space().size();
  std::vector<TrialOutcome> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    TrialOutcome o = testing::mixed_objective(&params[i * d], i);
    o.rung = static_cast<std::int32_t>(i % 3);
    o.state = o.rung < 2 ? TrialState::Pruned : TrialState::Complete;
    out[i] = o;
  }
  return out;
}

}  // namespace

TEST_CASE("told outcomes: each sampler proposes the same after explicit pruned outcomes as after their ranking pairs",
          "[cpu][tpe][halving]") {
  const std::string kind = GENERATE("optuna", "batch", "ga");
  const auto direction = GENERATE(tpe::Direction::Minimize, tpe::Direction::Maximize);
  CAPTURE(kind, direction == tpe::Direction::Minimize);
  const std::size_t d = testing::mixed_space().size(), n = 48;
  auto explicit_told = make(kind, direction), pairs_told = make(kind, direction),
       states_dropped = make(kind, direction);
  std::vector<double> a(n * d), b(n * d), c(n * d);
  for (std::uint64_t block = 0; block < 3; ++block) {
    const std::uint64_t first = block * n;
    explicit_told->ask(first, n, a.data());
    pairs_told->ask(first, n, b.data());
    states_dropped->ask(first, n, c.data());
    REQUIRE(testing::same_bits(a, b));
    const std::vector<TrialOutcome> outcomes = halving_outcomes(a, n);
    std::vector<TrialOutcome> as_pairs, as_complete;
    for (const TrialOutcome& o : outcomes) {
      const tpe::RankedOutcome r = tpe::ranked(o, direction);
      as_pairs.push_back({r.score, r.violation});  // Complete, rung -1: ranked as they are
      as_complete.push_back({o.score, o.violation});
    }
    explicit_told->tell(first, outcomes);
    pairs_told->tell(first, as_pairs);
    states_dropped->tell(first, as_complete);
  }
  explicit_told->ask(3 * n, n, a.data());
  pairs_told->ask(3 * n, n, b.data());
  states_dropped->ask(3 * n, n, c.data());
  REQUIRE(testing::same_bits(a, b));
  // The control: the same scores without their states rank differently, and propose otherwise.
  REQUIRE_FALSE(testing::same_bits(a, c));
}

TEST_CASE("told outcomes: the ranking pair orders complete, then pruned by rung and rung score, then infeasible",
          "[cpu][tpe][halving]") {
  const auto direction = GENERATE(tpe::Direction::Minimize, tpe::Direction::Maximize);
  const double better = direction == tpe::Direction::Minimize ? -1.0 : 1.0;
  auto pair = [&](double score, double violation, TrialState state, int rung) {
    return tpe::ranked(TrialOutcome{score, violation, state, rung}, direction);
  };
  // Without halving (rung -1) the outcome is ranked as it is, NaN scores included.
  const auto plain = pair(NAN, 3.0, TrialState::Complete, -1);
  REQUIRE(std::isnan(plain.score));
  REQUIRE(plain.violation == 3.0);
  // Complete and feasible: the outcome itself.
  REQUIRE(pair(2.5, 0.0, TrialState::Complete, 2).violation == 0.0);
  // Pruned and feasible: a violation in (0, 1), deeper rungs first, then the better rung score.
  const double deep = pair(0.0, 0.0, TrialState::Pruned, 5).violation;
  const double shallow_good = pair(better * 100.0, 0.0, TrialState::Pruned, 1).violation;
  const double shallow_bad = pair(-better * 100.0, 0.0, TrialState::Pruned, 1).violation;
  const double shallow_nan = pair(NAN, 0.0, TrialState::Pruned, 1).violation;
  REQUIRE(deep > 0.0);
  REQUIRE(deep < shallow_good);
  REQUIRE(shallow_good < shallow_bad);
  REQUIRE(shallow_bad < shallow_nan);
  REQUIRE(shallow_nan < 1.0);
  REQUIRE(pair(NAN, 0.0, TrialState::Pruned, 1).score == 0.0);
  // Infeasible, complete or pruned: after every pruned trial, by violation.
  REQUIRE(pair(1.0, 0.5, TrialState::Pruned, 0).violation == 2.5);
  REQUIRE(pair(NAN, 0.5, TrialState::Complete, 2).violation == 2.5);
  REQUIRE(pair(NAN, 0.5, TrialState::Complete, 2).score == 0.0);
}
