// TpeSampler: determinism (seeds, thread counts), domains, startup, failed and infeasible
// trials, and the ask/tell protocol.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <utility>
#include <vector>

#include "common/error.hpp"
#include "support/bits.hpp"
#include "tpe/ga_sampler.hpp"
#include "tpe/random_sampler.hpp"
#include "tpe/tpe_sampler.hpp"

using namespace tpeopt::tpe;

namespace {

Axis float_axis(const char* name, double low, double high, double step = 0.0, bool log = false) {
  Axis a;
  a.name = name;
  a.kind = Axis::Kind::Float;
  a.low = low;
  a.high = high;
  a.step = step;
  a.log = log;
  return a;
}

Axis int_axis(const char* name, double low, double high, double step = 1.0, bool log = false) {
  Axis a = float_axis(name, low, high, step, log);
  a.kind = Axis::Kind::Int;
  return a;
}

Axis categorical_axis(const char* name, std::vector<double> choices) {
  Axis a;
  a.name = name;
  a.kind = Axis::Kind::Categorical;
  a.choices = std::move(choices);
  return a;
}

// Every kind of axis, including two with a single value.
SearchSpace mixed_space() {
  SearchSpace s;
  s.axes = {float_axis("x", -5.0, 5.0),        int_axis("n", -3, 12),
            float_axis("s", 0.0, 10.0, 0.5),   float_axis("lr", 1e-4, 1.0, 0.0, true),
            int_axis("k", 1, 1000, 1.0, true), categorical_axis("c", {10.0, 20.0, 30.0, 40.0}),
            int_axis("m", 0, 30, 3),           float_axis("fixed", 2.5, 2.5),
            categorical_axis("one", {7.0})};
  return s;
}

// A deterministic objective over mixed_space() rows, with failed (NaN) and infeasible trials.
TrialOutcome mixed_objective(const double* p, std::uint64_t trial) {
  TrialOutcome o;
  o.score = (p[0] - 1.0) * (p[0] - 1.0) + 0.1 * std::fabs(p[1] - 4) + 0.2 * std::fabs(p[2] - 7.5) +
            std::fabs(std::log10(p[3]) + 2.0) + 0.3 * std::fabs(std::log10(p[4]) - 1.5) + (p[5] == 30.0 ? 0.0 : 1.0) +
            0.05 * std::fabs(p[6] - 12);
  if (trial % 13 == 5) o.score = std::numeric_limits<double>::quiet_NaN();
  if (p[0] > 3.5) o.violation = p[0] - 3.5;
  return o;
}

// The joint model's cost per (candidate, observation) over mixed_space(), in continuous
// kernel terms (TpeConfig::multivariate_budget): x, lr and c count 1; n, s, k (log int) and
// m, whose terms are cells' masses, 20 each; the two one-value axes are not modelled.
constexpr std::uint64_t kJointTermCost = 3 * 1 + 4 * 20;

using Objective = TrialOutcome (*)(const double*, std::uint64_t);

// Runs the pipeline's schedule (docs/design.md, "Pipeline protocol") with `depth` blocks in flight and
// returns every trial's parameters in trial order.
std::vector<double> run_study(Sampler& sampler, std::size_t d, std::size_t n_trials, std::size_t batch,
                              std::size_t depth, Objective objective) {
  std::vector<double> params(n_trials * d);
  const std::size_t n_blocks = (n_trials + batch - 1) / batch;
  auto block_size = [&](std::size_t k) { return std::min(batch, n_trials - k * batch); };
  auto ask = [&](std::size_t k) { sampler.ask(k * batch, block_size(k), &params[k * batch * d]); };
  for (std::size_t k = 0; k < std::min(depth, n_blocks); ++k) ask(k);
  std::vector<TrialOutcome> outcomes;
  for (std::size_t k = 0; k < n_blocks; ++k) {
    outcomes.resize(block_size(k));
    for (std::size_t i = 0; i < outcomes.size(); ++i) {
      const std::size_t t = k * batch + i;
      outcomes[i] = objective(&params[t * d], t);
    }
    sampler.tell(k * batch, outcomes);
    if (k + depth < n_blocks) ask(k + depth);
  }
  return params;
}

std::vector<double> run_tpe(std::uint64_t seed, TpeConfig config, std::size_t n_trials, std::size_t batch,
                            std::size_t depth) {
  const SearchSpace space = mixed_space();
  TpeSampler sampler(space, Direction::Minimize, seed, config);
  return run_study(sampler, space.size(), n_trials, batch, depth, mixed_objective);
}

using tpeopt::testing::same_bits;

}  // namespace

TEST_CASE("TPE: same seed gives the same trials, for every thread count", "[cpu][tpe][determinism]") {
  const std::uint64_t seed = GENERATE(as<std::uint64_t>{}, 1, 42, 0xdeadbeefcafeULL);
  const Multivariate model = GENERATE(Multivariate::Off, Multivariate::On, Multivariate::Auto);
  const Acquisition acquisition = GENERATE(Acquisition::Fast, Acquisition::Exact);
  CAPTURE(seed, static_cast<int>(model), acquisition == Acquisition::Fast);
  TpeConfig config;
  config.multivariate = model;
  // Auto: the joint model up to 150 observations, per axis after (kJointTermCost).
  config.multivariate_budget = 24 * 150 * kJointTermCost;
  config.acquisition = acquisition;
  // The fast univariate sampler runs past ObservedKernels::kFromObservations (256
  // observations), where it keeps g as running sums.
  const bool running_sums = acquisition == Acquisition::Fast && model != Multivariate::On;
  const std::size_t n_trials = running_sums ? 420 : 240, batch = 13, depth = 2;

  const auto reference = run_tpe(seed, config, n_trials, batch, depth);
  CHECK(same_bits(run_tpe(seed, config, n_trials, batch, depth), reference));
  for (unsigned threads : {2u, 4u}) {
    CAPTURE(threads);
    TpeConfig threaded = config;
    threaded.threads = threads;
    CHECK(same_bits(run_tpe(seed, threaded, n_trials, batch, depth), reference));
  }
  // A different seed gives different trials, startup and TPE phases alike.
  const auto other = run_tpe(seed + 1, config, n_trials, batch, depth);
  const std::size_t d = mixed_space().size();
  CHECK_FALSE(std::equal(other.begin(), other.begin() + 10 * d, reference.begin()));
  CHECK_FALSE(std::equal(other.begin() + 100 * d, other.end(), reference.begin() + 100 * d));
  // A different schedule (depth) is a different, equally valid run.
  CHECK_FALSE(same_bits(run_tpe(seed, config, n_trials, batch, 1), reference));
}

TEST_CASE("TPE auto: the joint model while a trial costs at most the budget, one per axis after", "[cpu][tpe]") {
  // The same told trials (adopted from the random sampler) in samplers of each model; an
  // auto sampler must propose, bit for bit, what the joint one does at its budget and what
  // the per-axis one does one kernel term under it.
  const std::size_t n_told = GENERATE(as<std::size_t>{}, 40, 300);  // 300: past the running sums' start
  const Acquisition acquisition = GENERATE(Acquisition::Fast, Acquisition::Exact);
  CAPTURE(n_told, acquisition == Acquisition::Fast);
  const SearchSpace space = mixed_space();
  const std::size_t d = space.size(), batch = 16;
  std::vector<double> history(n_told * d);
  RandomSampler random(space, 21);
  random.ask(0, n_told, history.data());
  std::vector<TrialOutcome> outcomes(n_told);
  for (std::size_t t = 0; t < n_told; ++t) outcomes[t] = mixed_objective(&history[t * d], t);

  auto proposals = [&](Multivariate model, std::uint64_t budget, std::size_t* n_observations = nullptr) {
    TpeConfig config;
    config.multivariate = model;
    config.multivariate_budget = budget;
    config.acquisition = acquisition;
    TpeSampler sampler(space, Direction::Minimize, 8, config);
    // Told in two blocks, so the per-axis sampler's sorted order is built by merging.
    const std::size_t first = n_told / 3;
    sampler.adopt(0, first, history.data());
    sampler.adopt(first, n_told - first, &history[first * d]);
    sampler.tell(0, std::span<const TrialOutcome>(outcomes.data(), first));
    sampler.tell(first, std::span<const TrialOutcome>(outcomes.data() + first, n_told - first));
    if (n_observations) *n_observations = sampler.n_observations();
    std::vector<double> out(batch * d);
    sampler.ask(n_told, batch, out.data());
    return out;
  };
  std::size_t n_obs = 0;
  const auto joint = proposals(Multivariate::On, 0, &n_obs);
  const auto per_axis = proposals(Multivariate::Off, 0);
  REQUIRE_FALSE(same_bits(joint, per_axis));
  // 24 candidates per trial.
  const std::uint64_t terms = 24 * kJointTermCost * n_obs;
  CHECK(same_bits(proposals(Multivariate::Auto, terms), joint));
  CHECK(same_bits(proposals(Multivariate::Auto, terms - 1), per_axis));
  CHECK(same_bits(proposals(Multivariate::Auto, 0), per_axis));
}

TEST_CASE("TPE auto: a study's asks are the joint sampler's, then the per-axis sampler's, on the same trials",
          "[cpu][tpe]") {
  // An auto study whose joint asks were told (two blocks in flight), against fresh joint and
  // per-axis samplers that adopt the same blocks on the same schedule: each of auto's blocks
  // must be, bit for bit, the joint sampler's until the budget is passed and the per-axis
  // sampler's after, so nothing the joint phase left behind changes the per-axis draws.
  const Acquisition acquisition = GENERATE(Acquisition::Fast, Acquisition::Exact);
  CAPTURE(acquisition == Acquisition::Fast);
  const SearchSpace space = mixed_space();
  const std::size_t d = space.size(), batch = 16, n_blocks = 24, depth = 2;
  TpeConfig config;
  config.acquisition = acquisition;
  config.multivariate = Multivariate::Auto;
  config.multivariate_budget = 24 * 150 * kJointTermCost;  // joint up to 150 observations
  TpeSampler automatic(space, Direction::Minimize, 13, config);
  const auto params = run_study(automatic, d, n_blocks * batch, batch, depth, mixed_objective);
  TpeConfig joint_config = config, per_axis_config = config;
  joint_config.multivariate = Multivariate::On;
  per_axis_config.multivariate = Multivariate::Off;

  std::size_t joint_blocks = 0, per_axis_blocks = 0;
  std::vector<TrialOutcome> outcomes(batch);
  for (std::size_t k = 0; k < n_blocks; ++k) {
    CAPTURE(k);
    // The reference sampler sees what auto saw at this ask: blocks 0 .. k-1 asked, all but
    // the last (depth - 1) told.
    TpeSampler joint_probe(space, Direction::Minimize, 13, joint_config);
    TpeSampler per_axis_probe(space, Direction::Minimize, 13, per_axis_config);
    std::vector<double> joint_out(batch * d), per_axis_out(batch * d);
    for (TpeSampler* probe : {&joint_probe, &per_axis_probe}) {
      for (std::size_t b = 0; b < k; ++b) probe->adopt(b * batch, batch, &params[b * batch * d]);
      for (std::size_t b = 0; b + depth - 1 < k; ++b) {
        for (std::size_t i = 0; i < batch; ++i)
          outcomes[i] = mixed_objective(&params[(b * batch + i) * d], b * batch + i);
        probe->tell(b * batch, outcomes);
      }
    }
    joint_probe.ask(k * batch, batch, joint_out.data());
    per_axis_probe.ask(k * batch, batch, per_axis_out.data());
    const std::vector<double> mine(params.begin() + k * batch * d, params.begin() + (k + 1) * batch * d);
    const std::size_t n_obs = per_axis_probe.n_observations();
    if (n_obs < 10) continue;  // startup: random either way
    if (24 * kJointTermCost * n_obs <= config.multivariate_budget) {
      CHECK(same_bits(mine, joint_out));
      ++joint_blocks;
    } else {
      CHECK(same_bits(mine, per_axis_out));
      ++per_axis_blocks;
    }
  }
  // The schedule crosses the switch, with running sums (from 256 observations) after it.
  CHECK(joint_blocks >= 5);
  CHECK(per_axis_blocks >= 10);
}

TEST_CASE("TPE: startup trials are the random sampler's", "[cpu][tpe]") {
  const std::uint64_t seed = GENERATE(as<std::uint64_t>{}, 3, 77);
  CAPTURE(seed);
  const SearchSpace space = mixed_space();
  const std::size_t d = space.size();
  TpeSampler tpe(space, Direction::Minimize, seed);
  RandomSampler random(space, seed);
  // 25 trials asked before anything is told: all startup.
  std::vector<double> a(25 * d), b(25 * d);
  tpe.ask(0, 25, a.data());
  random.ask(0, 25, b.data());
  CHECK(same_bits(a, b));

  // Startup counts told, non-failed trials: 12 told with 4 failed leaves 8 < 10.
  auto feasible = [&](const double* p) { return TrialOutcome{p[0] * p[0] + p[1], 0.0}; };
  std::vector<TrialOutcome> first12(12);
  for (std::size_t i = 0; i < 12; ++i) first12[i] = feasible(&a[i * d]);
  for (std::size_t i : {0, 3, 6, 9}) first12[i].score = std::numeric_limits<double>::quiet_NaN();
  TpeSampler tpe2(space, Direction::Minimize, seed);
  std::vector<double> c(12 * d), e(5 * d), f(5 * d);
  tpe2.ask(0, 12, c.data());
  tpe2.tell(0, first12);
  CHECK(tpe2.n_observations() == 8);
  tpe2.ask(12, 5, e.data());
  random.ask(12, 5, f.data());
  CHECK(same_bits(e, f));
  // After 10 non-failed: TPE.
  std::vector<TrialOutcome> next5(5);
  for (std::size_t i = 0; i < 5; ++i) next5[i] = feasible(&e[i * d]);
  tpe2.tell(12, next5);
  CHECK(tpe2.n_observations() == 13);
  tpe2.ask(17, 5, e.data());
  random.ask(17, 5, f.data());
  CHECK_FALSE(same_bits(e, f));
}

TEST_CASE("TPE: 2000 trials stay in their domains and on their grids", "[cpu][tpe]") {
  // Multivariate runs fewer trials: its exact joint densities on stepped axes are not cached.
  const auto [multivariate, n_trials] =
      GENERATE(std::pair<bool, std::size_t>{false, 2000}, std::pair<bool, std::size_t>{true, 1000});
  CAPTURE(multivariate, n_trials);
  TpeConfig config;
  config.multivariate = multivariate ? Multivariate::On : Multivariate::Off;
  config.threads = 2;
  const SearchSpace space = mixed_space();
  const std::size_t d = space.size();
  const auto params = run_tpe(99, config, n_trials, 100, 2);
  std::size_t bad = 0;
  for (std::size_t t = 0; t < n_trials; ++t) {
    for (std::size_t a = 0; a < d; ++a) {
      const Axis& axis = space.axes[a];
      const double v = params[t * d + a];
      bool ok;
      if (axis.kind == Axis::Kind::Categorical) {
        ok = axis.choice_index(v) != Axis::npos;
      } else {
        ok = v >= axis.low && v <= axis.high;
        if (axis.kind == Axis::Kind::Int) ok = ok && v == std::floor(v);
        if (axis.step > 0.0) {
          const double k = (v - axis.low) / axis.step;
          ok = ok && std::fabs(k - std::round(k)) < 1e-9;
        }
      }
      if (!ok) {
        ++bad;
        CAPTURE(t, a, v);
        FAIL_CHECK("value outside its axis' domain");
      }
    }
  }
  CHECK(bad == 0);
  // TPE used the whole range of each axis (not stuck on a few values), and the grid ends.
  for (std::size_t a : {1u, 2u, 6u}) {
    const Axis& axis = space.axes[a];
    bool low_seen = false, high_seen = false;
    for (std::size_t t = 0; t < n_trials; ++t) {
      low_seen |= params[t * d + a] == axis.low;
      high_seen |= params[t * d + a] == axis.high;
    }
    CAPTURE(a);
    CHECK(low_seen);
    CHECK(high_seen);
  }
  for (double choice : space.axes[5].choices) {
    std::size_t seen = 0;
    for (std::size_t t = 0; t < n_trials; ++t) seen += params[t * d + 5] == choice ? 1 : 0;
    CAPTURE(choice);
    CHECK(seen > 0);
  }
}

namespace {

// One float axis x in [0, 10]; 200 random trials asked at once (all startup), told with
// `outcome(x)`, then `n_proposals` TPE trials in one block. Returns the proposals. (With few
// observations TPE's proposals follow the gaps of g(x) more than l(x); 200 make the
// below group's location dominate, in Optuna as here.)
template <typename Outcome>
std::vector<double> propose_after(std::uint64_t seed, Direction direction, Outcome outcome,
                                  std::size_t n_proposals = 60) {
  constexpr std::size_t n = 200;
  SearchSpace space;
  space.axes = {float_axis("x", 0.0, 10.0)};
  TpeSampler sampler(space, direction, seed);
  std::vector<double> x(n);
  sampler.ask(0, n, x.data());
  std::vector<TrialOutcome> outcomes(n);
  for (std::size_t i = 0; i < n; ++i) outcomes[i] = outcome(x[i]);
  sampler.tell(0, outcomes);
  std::vector<double> proposals(n_proposals);
  sampler.ask(n, n_proposals, proposals.data());
  return proposals;
}

double fraction_near(const std::vector<double>& v, double centre, double radius) {
  return static_cast<double>(
             std::count_if(v.begin(), v.end(), [&](double x) { return std::fabs(x - centre) < radius; })) /
         static_cast<double>(v.size());
}

double fraction_at_least(const std::vector<double>& v, double threshold) {
  return static_cast<double>(std::count_if(v.begin(), v.end(), [&](double x) { return x >= threshold; })) /
         static_cast<double>(v.size());
}

}  // namespace

TEST_CASE("TPE: infeasible trials rank after every feasible one", "[cpu][tpe]") {
  const std::uint64_t seed = GENERATE(as<std::uint64_t>{}, 5, 6, 7);
  CAPTURE(seed);
  // x < 5 has the best scores but violates a constraint; among feasible trials (x >= 5)
  // the best are near 5. TPE must model the feasible best (x >= 5).
  auto constrained = [](double x) {
    TrialOutcome o;
    o.score = x < 5.0 ? -100.0 - x : x;
    o.violation = x < 5.0 ? 1.0 : 0.0;
    return o;
  };
  const double with_constraint = fraction_at_least(propose_after(seed, Direction::Minimize, constrained), 5.0);
  // Control: the same scores, all feasible, pull TPE to x < 5.
  auto unconstrained = [&](double x) {
    TrialOutcome o = constrained(x);
    o.violation = 0.0;
    return o;
  };
  const double without_constraint = fraction_at_least(propose_after(seed, Direction::Minimize, unconstrained), 5.0);
  CAPTURE(with_constraint, without_constraint);
  CHECK(with_constraint > 0.7);
  CHECK(without_constraint < 0.3);

  // Only infeasible trials: the least violating are "below". Violation grows away from 8.
  auto all_infeasible = [](double x) {
    TrialOutcome o;
    o.score = -x;  // would pull towards 10 if scores counted
    o.violation = 0.1 + std::fabs(x - 8.0);
    return o;
  };
  const double near8 = fraction_near(propose_after(seed, Direction::Minimize, all_infeasible), 8.0, 1.0);
  CAPTURE(near8);
  CHECK(near8 > 0.7);
}

TEST_CASE("TPE: failed (NaN) trials are ignored", "[cpu][tpe]") {
  const std::uint64_t seed = GENERATE(as<std::uint64_t>{}, 5, 6, 7);
  CAPTURE(seed);
  // Trials with x < 5 fail, with scores that would be the best if they counted; feasible
  // ones are best near 7.
  auto failing = [](double x) {
    TrialOutcome o;
    o.score = x < 5.0 ? std::numeric_limits<double>::quiet_NaN() : std::fabs(x - 7.0);
    return o;
  };
  // The rate near 7 depends on the 200 random observations much more than on the draws:
  // with 2000 proposals after one observation set (binomial error <= 0.011) seeds 5, 6, 7
  // gave 0.91, 0.58 and 1.00 (failed trials leave a hole in g(x) below 5 that l's prior
  // kernel can hit). So the fraction is pooled over kStudies independent studies (observation
  // sets) of kPerStudy proposals each: the pooled rate estimates the mean over observation
  // sets with a standard error of about (spread over sets, ~0.15) / sqrt(kStudies) = 0.027,
  // and the thresholds 0.7 and 0.3 stay over six standard errors from the pooled rates
  // (seeds 5, 6, 7: near 7 0.97, 0.89, 0.92; control 0.00). (A single seed's 60 proposals, as before, gave 42 of 60 for seed 6.)
  constexpr std::uint64_t kStudies = 32;
  constexpr std::size_t kPerStudy = 64;
  // Control: the same trials told with a low score instead of NaN.
  auto low_score = [&](double x) {
    TrialOutcome o = failing(x);
    if (std::isnan(o.score)) o.score = -1.0 - x;
    return o;
  };
  double near7 = 0.0, control_near7 = 0.0;
  for (std::uint64_t study = 0; study < kStudies; ++study) {
    const std::uint64_t study_seed = seed * 1000 + study;
    near7 += fraction_near(propose_after(study_seed, Direction::Minimize, failing, kPerStudy), 7.0, 1.0);
    control_near7 += fraction_near(propose_after(study_seed, Direction::Minimize, low_score, kPerStudy), 7.0, 1.0);
  }
  near7 /= static_cast<double>(kStudies);
  control_near7 /= static_cast<double>(kStudies);
  CAPTURE(near7, control_near7);
  std::printf("failed trials ignored: seed %llu: near 7 %.4f, control %.4f (%llu studies x %zu proposals)\n",
              static_cast<unsigned long long>(seed), near7, control_near7, static_cast<unsigned long long>(kStudies),
              kPerStudy);
  CHECK(near7 > 0.7);
  CHECK(control_near7 < 0.3);

  // Failed trials are not observations.
  SearchSpace space;
  space.axes = {float_axis("x", 0.0, 10.0)};
  TpeSampler sampler(space, Direction::Minimize, seed);
  std::vector<double> x(40);
  sampler.ask(0, 40, x.data());
  std::vector<TrialOutcome> outcomes(40);
  std::size_t failed = 0;
  for (std::size_t i = 0; i < 40; ++i) {
    outcomes[i] = failing(x[i]);
    failed += std::isnan(outcomes[i].score) ? 1 : 0;
  }
  CHECK(failed > 5);
  sampler.tell(0, outcomes);
  CHECK(sampler.n_observations() == 40 - failed);
}

TEST_CASE("TPE: maximize mirrors minimize", "[cpu][tpe]") {
  auto score = [](double x) { return TrialOutcome{std::fabs(x - 3.0), 0.0}; };
  const double max_near9 = fraction_near(propose_after(11, Direction::Maximize, score), 9.0, 1.0);
  const double min_near3 = fraction_near(propose_after(11, Direction::Minimize, score), 3.0, 1.0);
  CAPTURE(max_near9, min_near3);
  CHECK(max_near9 > 0.7);
  CHECK(min_near3 > 0.7);
}

TEST_CASE("TPE: the ask/tell protocol is checked", "[cpu][tpe]") {
  SearchSpace space;
  space.axes = {float_axis("x", 0.0, 1.0)};
  TpeSampler sampler(space, Direction::Minimize, 1);
  std::vector<double> out(10);
  std::vector<TrialOutcome> five(5), four(4);
  CHECK_THROWS_AS(sampler.tell(0, five), tpeopt::Error);  // nothing asked
  sampler.ask(0, 5, out.data());
  sampler.ask(5, 5, out.data() + 5);
  CHECK_THROWS_AS(sampler.ask(20, 5, out.data()), tpeopt::Error);  // gap
  CHECK_THROWS_AS(sampler.ask(5, 5, out.data()), tpeopt::Error);   // asked twice
  CHECK_THROWS_AS(sampler.tell(5, five), tpeopt::Error);           // out of order
  CHECK_THROWS_AS(sampler.tell(0, four), tpeopt::Error);           // wrong size
  five[2].violation = std::numeric_limits<double>::quiet_NaN();
  CHECK_THROWS_AS(sampler.tell(0, five), tpeopt::Error);  // NaN violation
  five[2].violation = 0.0;
  sampler.tell(0, five);
  CHECK(sampler.n_observations() == 5);
  CHECK_THROWS_AS(sampler.tell(0, five), tpeopt::Error);  // told twice
  sampler.tell(5, five);
  CHECK(sampler.n_observations() == 10);
  CHECK_THROWS_AS(sampler.tell(10, five), tpeopt::Error);  // not asked

  TpeConfig bad;
  bad.n_ei_candidates = 0;
  CHECK_THROWS_AS(TpeSampler(space, Direction::Minimize, 1, bad), tpeopt::Error);
  bad = TpeConfig{};
  bad.prior_weight = 0.0;
  CHECK_THROWS_AS(TpeSampler(space, Direction::Minimize, 1, bad), tpeopt::Error);
  SearchSpace broken;
  broken.axes = {float_axis("x", 1.0, 0.0)};
  CHECK_THROWS_AS(TpeSampler(broken, Direction::Minimize, 1), tpeopt::Error);
}

TEST_CASE("TPE fast: g's running sums built over many tells propose what one tell's do", "[cpu][tpe]") {
  // The same 1,000 observations told in one batch (the running sums built at once) and in
  // seven (built at the 300th trial, then updated by five tells, one of a single trial): the
  // next batch's proposals must be the same. A wrong update (neighbours, positions, the merge)
  // changes g far beyond the sums' rounding (1e-13), and with it the argmax of many draws.
  const SearchSpace space = mixed_space();
  const std::size_t d = space.size(), n = 1000, batch = 64;
  RandomSampler random(space, 5);
  std::vector<double> rows(n * d);
  random.ask(0, n, rows.data());
  // 19 in 20 observations of the two float axes squeezed into 5% of their range, the rest
  // spread over all of it: sparse regions whose kernels are wider than magic clip's
  // smallest and change when a neighbour arrives.
  for (std::size_t t = 0; t < n; ++t) {
    if (t % 20 == 0) continue;
    rows[t * d + 0] = -5.0 + 0.05 * (rows[t * d + 0] + 5.0);          // x: [-5, -4.5]
    rows[t * d + 3] = 1e-4 * std::pow(rows[t * d + 3] / 1e-4, 0.05);  // lr: log10 in [-4, -3.8]
  }
  std::vector<TrialOutcome> outcomes(n);
  for (std::size_t t = 0; t < n; ++t) outcomes[t] = mixed_objective(&rows[t * d], t);

  auto proposals = [&](const std::vector<std::size_t>& tells) {
    TpeSampler sampler(space, Direction::Minimize, 77, TpeConfig{});
    std::size_t first = 0;
    for (const std::size_t k : tells) {
      sampler.adopt(first, k, &rows[first * d]);
      sampler.tell(first, std::span<const TrialOutcome>(&outcomes[first], k));
      first += k;
    }
    REQUIRE(first == n);
    std::vector<double> next(batch * d);
    sampler.ask(n, batch, next.data());
    return next;
  };
  const auto at_once = proposals({n});
  const auto in_steps = proposals({100, 200, 50, 7, 1, 300, 342});
  CHECK(same_bits(in_steps, at_once));
}

TEST_CASE("Samplers refuse to adopt values their axes cannot take", "[cpu][tpe]") {
  // adopt() replays a journal's trials; a value off its axis (out of range, off the grid, not
  // an integer, not a choice, NaN) is an error naming the trial and the parameter, and the
  // sampler is left as it was.
  const SearchSpace space = mixed_space();
  const std::size_t d = space.size();
  RandomSampler random(space, 3);
  std::vector<double> rows(4 * d);
  random.ask(0, 4, rows.data());
  struct Bad {
    std::size_t axis;
    double value;
  };
  for (const Bad bad : {Bad{0, 5.5}, Bad{1, 2.5}, Bad{2, 7.25}, Bad{3, 0.0}, Bad{4, 1001.0}, Bad{5, 15.0}, Bad{6, 4.0},
                        Bad{7, 2.0}, Bad{8, 8.0}, Bad{0, std::numeric_limits<double>::quiet_NaN()}}) {
    CAPTURE(bad.axis, bad.value);
    std::vector<double> broken = rows;
    broken[2 * d + bad.axis] = bad.value;  // trial 12 of the block adopted at 10
    TpeSampler tpe(space, Direction::Minimize, 1);
    GaSampler ga(space, Direction::Minimize, 1);
    for (Sampler* sampler : {static_cast<Sampler*>(&tpe), static_cast<Sampler*>(&ga)}) {
      try {
        sampler->adopt(10, 4, broken.data());
        FAIL("adopt took a value off its axis");
      } catch (const tpeopt::Error& e) {
        CHECK_THAT(e.what(), Catch::Contains("of trial 12: params." + space.axes[bad.axis].name + " = "));
      }
      sampler->adopt(10, 4, rows.data());  // nothing was taken: the same block adopts cleanly
    }
    // ... and the TPE sampler then proposes what one that never saw the bad block does.
    TpeSampler clean(space, Direction::Minimize, 1);
    clean.adopt(10, 4, rows.data());
    std::vector<TrialOutcome> outcomes(4);
    for (std::size_t t = 0; t < 4; ++t) outcomes[t] = mixed_objective(&rows[t * d], 10 + t);
    tpe.tell(10, outcomes);
    clean.tell(10, outcomes);
    std::vector<double> next(4 * d), next_clean(4 * d);
    tpe.ask(14, 4, next.data());
    clean.ask(14, 4, next_clean.data());
    CHECK(same_bits(next, next_clean));
  }
}
