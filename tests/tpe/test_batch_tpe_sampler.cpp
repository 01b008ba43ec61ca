// BatchTpeSampler (docs/tpe.md, "Batch TPE"): the same trials for any thread count and
// pipelined == serial, domains, startup, failed and infeasible trials, resume (adopt),
// protocol, the operators' shares following their successes, the screening, the config keys
// of both presets, and that it out-searches random search and the GA.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "config/study_config.hpp"
#include "storage/run_files.hpp"
#include "study/study.hpp"
#include "support/bits.hpp"
#include "support/sampler_fixtures.hpp"
#include "support/study_fixtures.hpp"
#include "tpe/batch_tpe_sampler.hpp"
#include "tpe/ga_sampler.hpp"
#include "tpe/random_sampler.hpp"

using namespace tpeopt;
using namespace tpeopt::testing;
using tpe::BatchTpeConfig;
using tpe::BatchTpeSampler;
using tpe::Direction;

namespace {

BatchTpeConfig with_threads(unsigned threads, bool evolve = false) {
  BatchTpeConfig c;
  c.threads = threads;
  c.operators[static_cast<std::size_t>(tpe::ProposalOperator::Evolve)] = evolve;
  return c;
}

// Rotated ellipsoid on [-5, 5]^d (condition 1e4): not separable.
double rotated_ellipsoid(const double* x, std::size_t d) {
  double f = 0.0;
  for (std::size_t i = 0; i < d; ++i) {
    // a fixed rotation: Householder reflection about (1, 1, ..., 1)/sqrt(d)
    double s = 0.0;
    for (std::size_t k = 0; k < d; ++k) s += x[k] - 1.0;
    const double z = (x[i] - 1.0) - 2.0 * s / static_cast<double>(d);
    f += std::pow(1e4, static_cast<double>(i) / static_cast<double>(d - 1)) * z * z;
  }
  return f;
}

double rastrigin(const double* x, std::size_t d) {
  double f = 10.0 * static_cast<double>(d);
  for (std::size_t i = 0; i < d; ++i) f += x[i] * x[i] - 10.0 * std::cos(2.0 * M_PI * x[i]);
  return f;
}

SearchSpace box(std::size_t d, double low, double high) {
  SearchSpace s;
  for (std::size_t i = 0; i < d; ++i) s.axes.push_back(float_axis(("x" + std::to_string(i)).c_str(), low, high));
  return s;
}

template <typename F>
auto objective_of(F f, std::size_t d) {
  return [f, d](const double* p, std::uint64_t) { return TrialOutcome{f(p, d), 0.0}; };
}

}  // namespace

TEST_CASE("Batch TPE: the same trials for every thread count and at every depth, pipelined or not",
          "[cpu][tpe][batch][determinism]") {
  const SearchSpace space = mixed_space();
  const std::size_t d = space.size();
  const std::size_t depth = GENERATE(1u, 2u, 3u);
  const std::size_t batch = GENERATE(37u, 100u);
  const bool evolve = GENERATE(false, true);
  CAPTURE(depth, batch, evolve);
  BatchTpeSampler one(space, Direction::Minimize, 7, with_threads(1, evolve));
  const auto expected = run_schedule(one, d, 1000, batch, depth, mixed_objective);
  if (evolve) {
    // The evolve operator took part: its distribution was updated from told blocks.
    REQUIRE(one.evolve_distribution() != nullptr);
    CHECK(one.evolve_distribution()->generation() + one.evolve_distribution()->restarts() > 0);
  }
  for (unsigned threads : {2u, 4u}) {
    CAPTURE(threads);
    BatchTpeSampler many(space, Direction::Minimize, 7, with_threads(threads, evolve));
    const auto got = run_schedule(many, d, 1000, batch, depth, mixed_objective);
    REQUIRE(std::memcmp(got.data(), expected.data(), got.size() * sizeof(double)) == 0);
  }
  // Another seed gives other trials (the comparison above is not vacuous).
  BatchTpeSampler other(space, Direction::Minimize, 8, with_threads(1, evolve));
  const auto different = run_schedule(other, d, 1000, batch, depth, mixed_objective);
  REQUIRE(std::memcmp(different.data(), expected.data(), different.size() * sizeof(double)) != 0);
}

TEST_CASE("Batch TPE: a study's pipelined and serial runs are identical bit for bit",
          "[cpu][tpe][batch][determinism][pipeline]") {
  const std::uint64_t depth = GENERATE(1u, 2u, 3u);
  const std::uint64_t batch = GENERATE(64u, 20u);
  CAPTURE(depth, batch);
  auto config = mixed_space_config(400, batch, depth, 3);
  REQUIRE(config.search.tpe.preset == tpe::Preset::Batch);  // the default
  engine::RunOptions o;
  o.executor = "cpu";
  o.cpu_threads = 2;
  o.keep_trials = true;
  const auto pipelined = engine::run_study(config, o);
  o.serial = true;
  const auto serial = engine::run_study(config, o);
  REQUIRE(pipelined.result.n_trials() == 400);
  REQUIRE(pipelined.result.digest_hex() == serial.result.digest_hex());
  const auto& a = pipelined.result.trials();
  const auto& b = serial.result.trials();
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i)
    for (std::size_t p = 0; p < a[i].params.size(); ++p) REQUIRE(same_bits(a[i].params[p], b[i].params[p]));
}

TEST_CASE("Batch TPE: 3000 trials stay in their domains and on their grids", "[cpu][tpe][batch]") {
  const SearchSpace space = mixed_space();
  const std::size_t d = space.size();
  BatchTpeSampler sampler(space, Direction::Minimize, 11);
  const auto params = run_schedule(sampler, d, 3000, 150, 2, mixed_objective);
  for (std::size_t t = 0; t < 3000; ++t)
    for (std::size_t a = 0; a < d; ++a) {
      CAPTURE(t, a, params[t * d + a]);
      REQUIRE(in_domain(space.axes[a], params[t * d + a]));
    }
  // Single-valued axes never move.
  for (std::size_t t = 0; t < 3000; ++t) {
    REQUIRE(params[t * d + 7] == 2.5);
    REQUIRE(params[t * d + 8] == 7.0);
  }
}

TEST_CASE("Batch TPE: startup trials are the random sampler's", "[cpu][tpe][batch]") {
  const SearchSpace space = mixed_space();
  const std::size_t d = space.size();
  BatchTpeSampler sampler(space, Direction::Minimize, 5);
  tpe::RandomSampler random(space, 5);
  std::vector<double> a(50 * d), b(50 * d);
  sampler.ask(0, 50, a.data());  // nothing told yet: random
  random.ask(0, 50, b.data());
  REQUIRE(std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
  std::vector<TrialOutcome> outcomes(50);
  for (std::size_t i = 0; i < 50; ++i) outcomes[i] = mixed_objective(&a[i * d], i);
  sampler.tell(0, outcomes);
  sampler.ask(50, 50, a.data());  // modelled now
  random.ask(50, 50, b.data());
  REQUIRE(std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) != 0);
}

TEST_CASE("Batch TPE: failed trials are not observations and infeasible ones rank last", "[cpu][tpe][batch]") {
  // One float axis; every trial with x > 0.5 fails. The sampler must keep proposing: with
  // only failed trials told it stays random (startup counts non-failed trials).
  SearchSpace space = box(1, 0.0, 1.0);
  BatchTpeSampler sampler(space, Direction::Minimize, 3);
  std::vector<double> x(100);
  std::vector<TrialOutcome> o(100);
  sampler.ask(0, 100, x.data());
  for (std::size_t i = 0; i < 100; ++i)
    o[i] = x[i] > 0.5 ? TrialOutcome{std::numeric_limits<double>::quiet_NaN(), 0.0}
                      : TrialOutcome{x[i], x[i] < 0.1 ? 1.0 : 0.0};  // x < 0.1 infeasible
  sampler.tell(0, o);
  // Good set: feasible trials first, best (smallest x >= 0.1) first; the next batch gathers
  // around 0.1 from above, not around the infeasible trials below 0.1 nor the failed ones.
  for (int k = 1; k < 6; ++k) {
    sampler.ask(100 * k, 100, x.data());
    for (std::size_t i = 0; i < 100; ++i)
      o[i] = x[i] > 0.5 ? TrialOutcome{std::numeric_limits<double>::quiet_NaN(), 0.0}
                        : TrialOutcome{x[i], x[i] < 0.1 ? 1.0 : 0.0};
    sampler.tell(100 * k, o);
  }
  sampler.ask(600, 100, x.data());
  std::vector<double> sorted(x);
  std::sort(sorted.begin(), sorted.end());
  const double median = 0.5 * (sorted[49] + sorted[50]);
  CAPTURE(median);
  CHECK(median > 0.08);
  CHECK(median < 0.2);
}

TEST_CASE("Batch TPE: maximize mirrors minimize", "[cpu][tpe][batch]") {
  const SearchSpace space = mixed_space();
  const std::size_t d = space.size();
  BatchTpeSampler min_sampler(space, Direction::Minimize, 9), max_sampler(space, Direction::Maximize, 9);
  const auto a = run_schedule(min_sampler, d, 600, 60, 2, mixed_objective);
  const auto b = run_schedule(max_sampler, d, 600, 60, 2, [](const double* p, std::uint64_t t) {
    TrialOutcome o = mixed_objective(p, t);
    o.score = -o.score;
    return o;
  });
  REQUIRE(std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

TEST_CASE("Batch TPE: adopting journaled blocks resumes the run bit for bit", "[cpu][tpe][batch]") {
  const SearchSpace space = mixed_space();
  const std::size_t d = space.size();
  constexpr std::size_t batch = 40, n_trials = 800, depth = 2, replayed_blocks = 9;
  const bool evolve = GENERATE(false, true);
  CAPTURE(evolve);
  BatchTpeSampler whole(space, Direction::Minimize, 21, with_threads(1, evolve));
  const auto expected = run_schedule(whole, d, n_trials, batch, depth, mixed_objective);
  BatchTpeSampler resumed(space, Direction::Minimize, 21, with_threads(1, evolve));
  const auto params =
      run_resumed_schedule(resumed, expected, d, n_trials, batch, depth, replayed_blocks, mixed_objective);
  REQUIRE(std::memcmp(params.data(), expected.data(), params.size() * sizeof(double)) == 0);
}

TEST_CASE("Batch TPE: evolve alone searches, and is refused for a space without numeric axes", "[cpu][tpe][batch]") {
  BatchTpeConfig only;
  only.operators = {false, false, false, true};
  // 20 batches of 200 at depth 2 on a rotated ellipsoid: the last batch's best is under 1e-3
  // of the first's in the median of 7 seeds (one seed's run may stall longer).
  constexpr std::size_t d = 4;
  std::vector<double> ratios;
  for (std::uint64_t seed = 1; seed <= 7; ++seed) {
    BatchTpeSampler evolve(box(d, -5.0, 5.0), Direction::Minimize, seed, only);
    const auto params = run_schedule(evolve, d, 4000, 200, 2, objective_of(rotated_ellipsoid, d));
    double first = INFINITY, last = INFINITY;
    for (std::size_t i = 0; i < 200; ++i) first = std::min(first, rotated_ellipsoid(&params[i * d], d));
    for (std::size_t i = 3800; i < 4000; ++i) last = std::min(last, rotated_ellipsoid(&params[i * d], d));
    ratios.push_back(last / first);
    REQUIRE(evolve.evolve_distribution() != nullptr);
  }
  std::nth_element(ratios.begin(), ratios.begin() + 3, ratios.end());
  CHECK(ratios[3] < 1e-3);
  SearchSpace categorical;
  categorical.axes = {categorical_axis("c", {1.0, 2.0, 3.0}), categorical_axis("e", {4.0, 5.0})};
  // Listed, evolve is refused there; by default (all four operators) it is left out.
  BatchTpeConfig with_evolve;
  with_evolve.operators_listed = true;
  try {
    BatchTpeSampler refused(categorical, Direction::Minimize, 1, with_evolve);
    FAIL("accepted");
  } catch (const Error& e) {
    CHECK_THAT(e.what(), Catch::Contains("search.tpe.operators: \"evolve\" draws the numeric axes"));
  }
  BatchTpeSampler by_default(categorical, Direction::Minimize, 1);
  CHECK(by_default.shares()[3] == 0.0);
  CHECK(by_default.shares()[0] > 0.0);
  // It searches: every proposal is one of its axis' choices, and later batches find the best.
  const auto chosen = run_schedule(by_default, 2, 400, 40, 2,
                                   objective_of([](const double* x, std::size_t) { return x[0] + x[1]; }, 2));
  for (std::size_t i = 0; i < 400; ++i)
    for (std::size_t a = 0; a < 2; ++a) CHECK(in_domain(categorical.axes[a], chosen[i * 2 + a]));
  double last_best = INFINITY;
  for (std::size_t i = 360; i < 400; ++i) last_best = std::min(last_best, chosen[i * 2] + chosen[i * 2 + 1]);
  CHECK(last_best == 5.0);
  CHECK(by_default.evolve_distribution() == nullptr);
}

TEST_CASE("Batch TPE: the ask/tell protocol is checked", "[cpu][tpe][batch]") {
  const SearchSpace space = box(1, 0.0, 1.0);
  BatchTpeSampler sampler(space, Direction::Minimize, 1);
  std::vector<double> out(10);
  std::vector<TrialOutcome> five(5), four(4);
  CHECK_THROWS_AS(sampler.tell(0, five), Error);  // nothing asked
  sampler.ask(0, 5, out.data());
  sampler.ask(5, 5, out.data() + 5);
  CHECK_THROWS_AS(sampler.ask(20, 5, out.data()), Error);    // gap
  CHECK_THROWS_AS(sampler.ask(5, 5, out.data()), Error);     // asked twice
  CHECK_THROWS_AS(sampler.adopt(20, 5, out.data()), Error);  // gap
  CHECK_THROWS_AS(sampler.tell(5, five), Error);             // out of order
  CHECK_THROWS_AS(sampler.tell(0, four), Error);             // wrong size
  five[2].violation = std::numeric_limits<double>::quiet_NaN();
  CHECK_THROWS_AS(sampler.tell(0, five), Error);  // NaN violation
  five[2].violation = 0.0;
  sampler.tell(0, five);
  sampler.tell(5, five);
  CHECK_THROWS_AS(sampler.tell(10, five), Error);  // not asked
  std::vector<double> bad = {2.0};
  CHECK_THROWS_AS(sampler.adopt(10, 1, bad.data()), Error);  // outside the axis
}

TEST_CASE("Batch TPE: each operator's share follows its successes", "[cpu][tpe][batch]") {
  // On a rotated ellipsoid the joint kernel (which draws along the good set's correlations)
  // earns the largest share; on separable Rastrigin the per-axis operators do while the
  // search is still choosing among the basins (the first batches; once it is in the right
  // basin, the joint kernel's refinement wins there too).
  constexpr std::size_t d = 10;
  BatchTpeSampler rotated(box(d, -5.0, 5.0), Direction::Minimize, 2);
  run_schedule(rotated, d, 20000, 1000, 1, objective_of(rotated_ellipsoid, d));
  const auto r = rotated.shares();
  CAPTURE(r[0], r[1], r[2]);
  CHECK(r[0] > r[1]);
  CHECK(r[0] > r[2]);
  BatchTpeSampler separable(box(d, -5.12, 5.12), Direction::Minimize, 2);
  run_schedule(separable, d, 5000, 1000, 1, objective_of(rastrigin, d));
  const auto s = separable.shares();
  CAPTURE(s[0], s[1], s[2]);
  CHECK(s[0] < std::max(s[1], s[2]));
  for (const auto& shares : {r, s})
    for (std::size_t o = 0; o < 4; ++o) CHECK(shares[o] >= 0.05 - 1e-12);  // min_share
}

TEST_CASE("Batch TPE out-searches random search and the GA at 20,000 trials in batches of 1,000", "[cpu][tpe][batch]") {
  // Rastrigin-10 and a rotated ellipsoid, median of 5 seeds, the pipeline's schedule at depth
  // 2 (the default), the GA with its defaults.
  constexpr std::size_t d = 10;
  for (int f = 0; f < 2; ++f) {
    auto objective = f == 0 ? objective_of(rastrigin, d) : objective_of(rotated_ellipsoid, d);
    const SearchSpace space = f == 0 ? box(d, -5.12, 5.12) : box(d, -5.0, 5.0);
    std::vector<double> best_tpe, best_ga, best_random;
    for (std::uint64_t seed = 0; seed < 5; ++seed) {
      BatchTpeSampler t(space, Direction::Minimize, seed);
      tpe::GaSampler g(space, Direction::Minimize, seed);
      tpe::RandomSampler r(space, seed);
      for (auto [sampler, out] :
           {std::pair<tpe::Sampler*, std::vector<double>*>{&t, &best_tpe}, {&g, &best_ga}, {&r, &best_random}}) {
        double best = std::numeric_limits<double>::infinity();
        run_schedule(*sampler, d, 20000, 1000, 2, [&](const double* p, std::uint64_t i) {
          const TrialOutcome o = objective(p, i);
          best = std::min(best, o.score);
          return o;
        });
        out->push_back(best);
      }
    }
    CAPTURE(f, best_tpe, best_ga, best_random);
    CHECK(median(best_tpe) < median(best_ga));
    CHECK(median(best_tpe) < median(best_random));
  }
}

TEST_CASE("Batch TPE: search.tpe keys of each preset, validated by key and written back", "[cpu][tpe][batch][config]") {
  auto parse = [](const io::Json& tpe) {
    io::Json j = {{"strategy", "functions"},
                  {"function", "sphere"},
                  {"search", {{"tpe", tpe}}},
                  {"params", {{"x", {{"type", "float"}, {"low", 0}, {"high", 1}}}}}};
    return io::parse_study_config(j, "test.json", ".");
  };
  const auto batch = parse(io::Json::object());
  CHECK(batch.search.tpe.preset == tpe::Preset::Batch);
  CHECK(batch.search.tpe.batch.candidates == 4);
  CHECK(batch.resolved()["search"]["tpe"]["preset"] == "batch");
  const auto custom = parse({{"good_fraction", 0.2}, {"min_good", 10}, {"n_ei_candidates", 8}, {"min_share", 0.1}});
  CHECK(custom.search.tpe.batch.good_fraction == 0.2);
  CHECK(custom.search.tpe.batch.min_good == 10);
  CHECK(custom.search.tpe.batch.candidates == 8);
  CHECK(parse(custom.resolved()["search"]["tpe"]).resolved() == custom.resolved());
  // The joint step rule: written back only when set (an older run's config digest stays).
  CHECK_FALSE(batch.resolved()["search"]["tpe"].contains("joint_success_target"));
  const auto stepped = parse({{"joint_success_target", 0.1}});
  CHECK(stepped.search.tpe.batch.joint_success_target == 0.1);
  CHECK(parse(stepped.resolved()["search"]["tpe"]).resolved() == stepped.resolved());
  // Distinct trials: on by default and then not written back; off is written back, and its
  // runs record the draws of version 8.
  CHECK(batch.search.tpe.batch.distinct);
  CHECK_FALSE(batch.resolved()["search"]["tpe"].contains("distinct"));
  const auto repeats = parse({{"distinct", false}});
  CHECK_FALSE(repeats.search.tpe.batch.distinct);
  CHECK(repeats.resolved()["search"]["tpe"]["distinct"] == false);
  CHECK(parse(repeats.resolved()["search"]["tpe"]).resolved() == repeats.resolved());
  CHECK(engine::sampler_draws_version(batch) == 9);
  CHECK(engine::sampler_draws_version(repeats) == 8);
  // The operators: all four by default, not written back (a space without a numeric axis runs
  // the default set without evolve, and refuses a listed one); a list is written back.
  CHECK_FALSE(batch.resolved()["search"]["tpe"].contains("operators"));
  CHECK(batch.search.tpe.batch.operators == std::array<bool, 4>{true, true, true, true});
  CHECK_FALSE(batch.search.tpe.batch.operators_listed);
  const auto three = parse({{"operators", {"joint", "marginal", "recombine"}}});
  CHECK_FALSE(three.search.tpe.batch.operators[3]);
  CHECK(three.resolved()["search"]["tpe"]["operators"] == io::Json({"joint", "marginal", "recombine"}));
  CHECK(parse(three.resolved()["search"]["tpe"]).resolved() == three.resolved());
  // The ask workers: not written back when left out (a study then gets more of them beside a
  // GPU, engine::make_sampler, and the count changes no trial), a count given is kept.
  CHECK_FALSE(batch.resolved()["search"]["tpe"].contains("threads"));
  CHECK_FALSE(batch.search.tpe.threads_listed);
  const auto two = parse({{"threads", 2}});
  CHECK(two.search.tpe.threads_listed);
  CHECK(two.search.tpe.batch.threads == 2);
  CHECK(two.resolved()["search"]["tpe"]["threads"] == 2);
  CHECK(parse(two.resolved()["search"]["tpe"]).resolved() == two.resolved());
  const auto optuna_three = parse({{"preset", "optuna"}, {"threads", 3}});
  CHECK(optuna_three.search.tpe.threads == 3);
  CHECK(optuna_three.resolved()["search"]["tpe"]["threads"] == 3);
  CHECK_FALSE(parse({{"preset", "optuna"}}).resolved()["search"]["tpe"].contains("threads"));
  // A listed count stays where a run made before wrote it: the resolved config is ordered
  // JSON, and resume compares its digest with the journal's.
  auto keys = [](const io::Json& tpe) {
    std::vector<std::string> out;
    for (const auto& item : tpe.items()) out.push_back(item.key());
    return out;
  };
  CHECK(keys(optuna_three.resolved()["search"]["tpe"]) ==
        std::vector<std::string>{"preset", "n_startup_trials", "n_ei_candidates", "multivariate", "prior_weight",
                                 "consider_magic_clip", "consider_endpoints", "threads", "acquisition"});
  CHECK(keys(two.resolved()["search"]["tpe"]) == std::vector<std::string>{"preset", "n_startup_trials",
                                                                          "n_ei_candidates", "good_fraction",
                                                                          "min_good", "min_share", "threads"});
  // Beside a GPU: two threads left to the sampler and the executor, at least 1, at most 8.
  CHECK(engine::sampler_threads_beside_gpu(1) == 1);
  CHECK(engine::sampler_threads_beside_gpu(3) == 1);
  CHECK(engine::sampler_threads_beside_gpu(4) == 2);
  CHECK(engine::sampler_threads_beside_gpu(10) == 8);
  CHECK(engine::sampler_threads_beside_gpu(16) == 8);
  const auto optuna = parse({{"preset", "optuna"}, {"multivariate", true}});
  CHECK(optuna.search.tpe.preset == tpe::Preset::Optuna);
  CHECK(optuna.search.tpe.n_ei_candidates == 24);
  auto message = [&](const io::Json& tpe) {
    try {
      parse(tpe);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  CHECK_THAT(message({{"multivariate", true}}),
             Catch::Contains("search.tpe.multivariate: only with \"preset\": \"optuna\""));
  CHECK_THAT(message({{"preset", "optuna"}, {"good_fraction", 0.2}}),
             Catch::Contains("search.tpe.good_fraction: only with \"preset\": \"batch\""));
  CHECK_THAT(message({{"good_fraction", 0.0}}), Catch::Contains("search.tpe.good_fraction"));
  CHECK_THAT(message({{"min_good", 1}}), Catch::Contains("search.tpe.min_good"));
  CHECK_THAT(message({{"min_share", 0.5}}), Catch::Contains("search.tpe.min_share"));
  CHECK_THAT(message({{"joint_success_target", 1.0}}), Catch::Contains("search.tpe.joint_success_target"));
  CHECK_THAT(message({{"distinct", 1}}), Catch::Contains("search.tpe.distinct"));
  CHECK_THAT(message({{"preset", "optuna"}, {"distinct", false}}),
             Catch::Contains("search.tpe.distinct: only with \"preset\": \"batch\""));
  CHECK_THAT(message({{"preset", "optuna"}, {"joint_success_target", 0.1}}),
             Catch::Contains("search.tpe.joint_success_target: only with \"preset\": \"batch\""));
  CHECK_THAT(message({{"preset", "bayes"}}), Catch::Contains("search.tpe.preset"));
  CHECK_THAT(message({{"operators", {"joint", "marginal", "recombine", "evolve"}}, {"min_share", 0.3}}),
             Catch::Contains("search.tpe.min_share: expected a number in [0, 1/4] (4 operators)"));
  CHECK(parse({{"operators", {"evolve"}}}).search.tpe.batch.operators[3]);  // alone: allowed
  CHECK_THAT(message({{"operators", {"joint", "cma"}}}),
             Catch::Contains("search.tpe.operators: \"cma\" is not one of: joint, marginal, recombine, evolve"));
}
