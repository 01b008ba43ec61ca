// GaSampler (docs/samplers.md): pipelined == serial, domains, elitism, population 1
// and 65,536, ranking of infeasible and failed trials, resume (adopt), protocol, config, and
// that it beats random search on Rastrigin-10.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "common/error.hpp"
#include "config/study_config.hpp"
#include "strategies/functions/functions.hpp"
#include "study/study.hpp"
#include "support/bits.hpp"
#include "support/sampler_fixtures.hpp"
#include "support/study_fixtures.hpp"
#include "tpe/ga_sampler.hpp"
#include "tpe/random_sampler.hpp"

using namespace tpeopt;
using tpe::Axis;
using tpe::Direction;
using tpe::GaConfig;
using tpe::GaSampler;
using tpe::SearchSpace;
using tpe::TrialOutcome;
using namespace tpeopt::testing;

namespace {

// The pool's order (docs/samplers.md, "Ranking"), to check the sampler against.
bool ranks_before(const TrialOutcome& x, std::uint64_t tx, const TrialOutcome& y, std::uint64_t ty) {
  const auto cls = [](const TrialOutcome& o) { return std::isnan(o.score) ? 2 : (o.violation > 0.0 ? 1 : 0); };
  if (cls(x) != cls(y)) return cls(x) < cls(y);
  if (cls(x) == 0 && x.score != y.score) return x.score < y.score;
  if (cls(x) == 1 && x.violation != y.violation) return x.violation < y.violation;
  return tx < ty;
}

using tpeopt::testing::same_bits;

engine::StudyRun run(const io::StudyConfig& c, bool serial) {
  engine::RunOptions o;
  o.serial = serial;
  o.executor = "cpu";
  o.cpu_threads = 2;
  o.keep_trials = true;
  return engine::run_study(c, o);
}

}  // namespace

TEST_CASE("GA: pipelined and serial runs are identical bit for bit", "[cpu][ga][determinism][pipeline]") {
  const std::uint64_t seed = GENERATE(1u, 12345u);
  const std::uint64_t depth = GENERATE(1u, 2u, 3u);
  // 200 trials: batch 64 leaves a remainder of 8, 20 is an exact multiple, 16 leaves 8.
  const std::uint64_t batch = GENERATE(64u, 20u, 16u);
  const std::uint64_t population = GENERATE(8u, 64u);
  CAPTURE(seed, depth, batch, population);
  auto config = testing::mixed_space_config(200, batch, depth, seed);
  config.search.sampler = "ga";
  config.search.ga.population = population;
  const auto pipelined = run(config, false);
  const auto serial = run(config, true);
  REQUIRE(pipelined.result.n_trials() == 200);
  const auto& a = pipelined.result.trials();
  const auto& b = serial.result.trials();
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    CAPTURE(i);
    REQUIRE(a[i].trial == b[i].trial);
    for (std::size_t p = 0; p < a[i].params.size(); ++p) REQUIRE(same_bits(a[i].params[p], b[i].params[p]));
    REQUIRE(same_bits(a[i].score, b[i].score));
  }
  REQUIRE(pipelined.result.digest_hex() == serial.result.digest_hex());

  // Not trivially equal: the first D generations (asked before any tell) are the random
  // sampler's trials, and every later one is bred, so it differs from random's.
  config.search.sampler = "random";
  const auto random = run(config, true);
  const std::uint64_t n_random = std::min<std::uint64_t>(200, depth * batch);
  for (std::size_t i = 0; i < a.size(); ++i) {
    CAPTURE(i);
    REQUIRE((a[i].params == random.result.trials()[i].params) == (i < n_random));
  }
}

TEST_CASE("GA: parameters stay in their domains over many generations", "[cpu][ga]") {
  struct Setting {
    tpe::Crossover crossover;
    std::uint64_t population, elite;
    double blend_alpha, mutation_scale, mutation_rate;
  };
  const Setting setting = GENERATE(Setting{tpe::Crossover::Uniform, 16, 2, 0.5, 0.1, -1.0},
                                   Setting{tpe::Crossover::Blend, 16, 2, 0.5, 0.1, -1.0},
                                   // wide blends and mutations lean on reflection and truncation
                                   Setting{tpe::Crossover::Blend, 200, 0, 10.0, 10.0, 1.0},
                                   Setting{tpe::Crossover::Blend, 1, 1, 0.5, 0.02, 0.0});
  CAPTURE(static_cast<int>(setting.crossover), setting.population, setting.elite, setting.blend_alpha,
          setting.mutation_scale, setting.mutation_rate);
  GaConfig config;
  config.crossover = setting.crossover;
  config.population = setting.population;
  config.elite = setting.elite;
  config.blend_alpha = setting.blend_alpha;
  config.mutation_scale = setting.mutation_scale;
  config.mutation_rate = setting.mutation_rate;
  const SearchSpace space = mixed_space();
  const std::size_t d = space.size();
  GaSampler sampler(space, Direction::Minimize, 99, config);
  constexpr std::size_t n_trials = 3000, batch = 50;  // 60 generations
  const auto params = run_schedule(sampler, d, n_trials, batch, 2, mixed_objective);
  std::size_t bad = 0;
  for (std::size_t t = 0; t < n_trials; ++t)
    for (std::size_t a = 0; a < d; ++a)
      if (!in_domain(space.axes[a], params[t * d + a])) {
        ++bad;
        CAPTURE(t, a, params[t * d + a]);
        FAIL_CHECK("value outside its axis' domain");
      }
  CHECK(bad == 0);
  for (std::size_t t = 0; t < n_trials; ++t) {
    REQUIRE(params[t * d + 7] == 2.5);  // single-valued axes never move
    REQUIRE(params[t * d + 8] == 7.0);
  }
  if (setting.population == 1) return;  // a hill-climber follows one point (its own test below)
  for (double choice : space.axes[5].choices) {
    std::size_t seen = 0;
    for (std::size_t t = 2 * batch; t < n_trials; ++t) seen += params[t * d + 5] == choice ? 1 : 0;
    CAPTURE(choice);
    CHECK(seen > 0);  // bred trials keep every choice in play
  }
  // Both ends of every range are reachable: pulled towards one end (score: the summed
  // distances from it, in each axis' internal coordinate), bred trials get there exactly on
  // linear discrete axes, and within 1% of the range on continuous and log axes (a log int
  // axis' last integers are 1e-4 of its log range apart: near, not necessarily on, the end).
  for (const bool high_end : {false, true}) {
    CAPTURE(high_end);
    const auto position = [&](const Axis& axis, double v) {  // 0 at low, 1 at high
      const auto f = [&](double x) { return axis.log ? std::log(x) : x; };
      return (f(v) - f(axis.low)) / (f(axis.high) - f(axis.low));
    };
    const auto towards_end = [&](const double* p, std::uint64_t) {
      double distance = 0.0;
      for (std::size_t a = 0; a < d; ++a) {
        const Axis& axis = space.axes[a];
        if (axis.kind == Axis::Kind::Categorical || axis.low == axis.high) continue;
        distance += high_end ? 1.0 - position(axis, p[a]) : position(axis, p[a]);
      }
      return TrialOutcome{distance, 0.0};
    };
    GaSampler pulled(space, Direction::Minimize, 7, config);
    const auto ends = run_schedule(pulled, d, n_trials, batch, 2, towards_end);
    for (std::size_t a = 0; a < d; ++a) {
      const Axis& axis = space.axes[a];
      if (axis.kind == Axis::Kind::Categorical || axis.low == axis.high) continue;
      const double end = high_end ? axis.high : axis.low;
      double closest = std::numeric_limits<double>::infinity();
      for (std::size_t t = 2 * batch; t < n_trials; ++t)
        closest = std::min(closest, std::fabs(position(axis, ends[t * d + a]) - position(axis, end)));
      CAPTURE(a, closest);
      if (axis.step > 0.0 && !axis.log) CHECK(closest == 0.0);
      else CHECK(closest < 0.01);
    }
  }
}

TEST_CASE("GA: elitism never loses the best told trial", "[cpu][ga]") {
  // An objective that gets worse with every generation: each new generation is entirely
  // worse than the best trial of the first one, so only elitism can keep it.
  const SearchSpace space = mixed_space();
  const std::size_t d = space.size();
  constexpr std::size_t batch = 40, n_trials = 800;
  auto worsening = [&](const double* p, std::uint64_t trial) {
    TrialOutcome o = mixed_objective(p, trial);
    o.score += 1000.0 * static_cast<double>(trial / batch);
    return o;
  };
  const std::uint64_t elite = GENERATE(0u, 1u, 3u, 16u);
  CAPTURE(elite);
  GaConfig config;
  config.population = 16;  // smaller than a generation, so non-elites are all replaced
  config.elite = elite;
  GaSampler sampler(space, Direction::Minimize, 5, config);
  std::vector<TrialOutcome> told;
  std::vector<double> params;
  bool best_always_first = true;
  params = run_schedule(
      sampler, d, n_trials, batch, 2,
      [&](const double* p, std::uint64_t t) {
        told.push_back(worsening(p, t));
        return told.back();
      },
      [&](std::size_t n_told) {
        std::uint64_t best = 0;
        for (std::uint64_t t = 1; t < n_told; ++t)
          if (ranks_before(told[t], t, told[best], best)) best = t;
        const auto pool = sampler.pool_trials();
        REQUIRE(pool.size() == config.population);
        best_always_first = best_always_first && pool.front() == best;
      });
  // With elite 0 the pool is the last generation's best, so the first generation's best is
  // lost: the test can tell the two apart.
  CHECK(best_always_first == (elite > 0));
}

TEST_CASE("GA: the pool is the best told trials in the documented order", "[cpu][ga]") {
  // Infeasible trials rank after every feasible one (by violation), failed ones last; with
  // elite == population the pool is the best `population` trials ever told.
  const SearchSpace space = mixed_space();
  const std::size_t d = space.size();
  GaConfig config;
  config.population = 24;
  config.elite = 24;
  const auto direction = GENERATE(Direction::Minimize, Direction::Maximize);
  GaSampler sampler(space, direction, 3, config);
  std::vector<TrialOutcome> told;
  std::size_t checks = 0;
  run_schedule(
      sampler, d, 600, 30, 3,
      [&](const double* p, std::uint64_t t) {
        TrialOutcome o = mixed_objective(p, t);
        if (direction == Direction::Maximize) o.score = -o.score;
        told.push_back(o);
        return o;
      },
      [&](std::size_t n_told) {
        std::vector<std::uint64_t> order(n_told);
        for (std::uint64_t t = 0; t < n_told; ++t) order[t] = t;
        const double sign = direction == Direction::Maximize ? -1.0 : 1.0;
        std::sort(order.begin(), order.end(), [&](std::uint64_t x, std::uint64_t y) {
          TrialOutcome a = told[x], b = told[y];
          a.score *= sign;
          b.score *= sign;
          return ranks_before(a, x, b, y);
        });
        order.resize(std::min<std::size_t>(n_told, 24));
        REQUIRE(sampler.pool_trials() == order);
        ++checks;
      });
  CHECK(checks == 20);
  // The objective has both kinds: the check above saw infeasible and failed trials.
  CHECK(std::any_of(told.begin(), told.end(), [](const TrialOutcome& o) { return o.violation > 0.0; }));
  CHECK(std::any_of(told.begin(), told.end(), [](const TrialOutcome& o) { return std::isnan(o.score); }));
}

TEST_CASE("GA: infeasible and failed trials are bred from only when nothing better is told", "[cpu][ga]") {
  SearchSpace space;
  space.axes = {float_axis("x", 0.0, 1.0)};
  GaConfig config;
  config.population = 4;
  config.elite = 0;
  GaSampler sampler(space, Direction::Maximize, 1, config);
  std::vector<double> x(6);
  sampler.ask(0, 6, x.data());
  const double nan = std::numeric_limits<double>::quiet_NaN();
  // trial: 0 failed, 1 infeasible (0.5), 2 feasible 1.0, 3 infeasible (0.1) with a huge score,
  // 4 feasible 3.0, 5 failed with a violation.
  const std::vector<TrialOutcome> outcomes = {{nan, 0.0}, {9.0, 0.5}, {1.0, 0.0}, {99.0, 0.1}, {3.0, 0.0}, {nan, 1.0}};
  sampler.tell(0, outcomes);
  CHECK(sampler.pool_trials() == std::vector<std::uint64_t>{4, 2, 3, 1});
}

TEST_CASE("GA: population 1 is a mutation hill-climber", "[cpu][ga]") {
  // One parent, the best trial so far (elite 1); with mutation_rate 0 each child is that
  // parent with exactly one gene mutated, and the best never gets worse.
  const SearchSpace space = mixed_space();
  const std::size_t d = space.size();
  GaConfig config;
  config.population = 1;
  config.elite = 1;
  config.mutation_rate = 0.0;
  GaSampler sampler(space, Direction::Minimize, 17, config);
  constexpr std::size_t batch = 10, n_trials = 600;
  std::vector<double> parent;
  std::vector<double> params(n_trials * d);
  std::vector<TrialOutcome> told;
  auto objective = [](const double* p, std::uint64_t t) {
    TrialOutcome o = mixed_objective(p, t);
    if (std::isnan(o.score)) o.score = 1e9;  // keep it a plain climb
    return o;
  };
  double previous_best = std::numeric_limits<double>::infinity();
  for (std::size_t k = 0; k * batch < n_trials; ++k) {
    double* block = &params[k * batch * d];
    sampler.ask(k * batch, batch, block);
    if (k > 0) {
      for (std::size_t i = 0; i < batch; ++i) {
        std::size_t changed = 0;
        for (std::size_t a = 0; a < d; ++a) changed += block[i * d + a] != parent[a] ? 1 : 0;
        CAPTURE(k, i);
        REQUIRE(changed == 1);
      }
    }
    std::vector<TrialOutcome> outcomes(batch);
    for (std::size_t i = 0; i < batch; ++i) {
      outcomes[i] = objective(&block[i * d], k * batch + i);
      told.push_back(outcomes[i]);
    }
    sampler.tell(k * batch, outcomes);
    const auto pool = sampler.pool_trials();
    REQUIRE(pool.size() == 1);
    parent.assign(&params[pool[0] * d], &params[pool[0] * d] + d);
    const TrialOutcome& best = told[pool[0]];
    const double key = best.violation > 0.0 ? 1e12 + best.violation : best.score;
    REQUIRE(key <= previous_best);
    previous_best = key;
  }
  // It climbed: the last parent is far better than the first generation's best.
  double first_best = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < batch; ++i)
    if (told[i].violation == 0.0) first_best = std::min(first_best, told[i].score);
  CAPTURE(first_best, previous_best);
  CHECK(previous_best < 0.5 * first_best);
}

TEST_CASE("GA: a population of 65,536 works", "[cpu][ga]") {
  SearchSpace space;
  space.axes = {float_axis("x", -5.0, 5.0), int_axis("n", 0, 100), float_axis("lr", 1e-3, 1.0, 0.0, true),
                categorical_axis("c", {1.0, 2.0, 3.0})};
  const std::size_t d = space.size();
  GaConfig config;
  config.population = 65536;
  config.elite = 1024;
  GaSampler sampler(space, Direction::Minimize, 8, config);
  constexpr std::size_t batch = 65536, n_trials = 4 * batch;
  const auto start = std::chrono::steady_clock::now();
  std::size_t max_pool = 0;
  const auto params = run_schedule(
      sampler, d, n_trials, batch, 1,
      [](const double* p, std::uint64_t) {
        return TrialOutcome{p[0] * p[0] + std::fabs(p[1] - 30.0) + std::fabs(std::log(p[2])) + p[3], 0.0};
      },
      [&](std::size_t) { max_pool = std::max(max_pool, sampler.pool_trials().size()); });
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(max_pool == 65536);
  std::size_t bad = 0;
  for (std::size_t t = 0; t < n_trials; ++t)
    for (std::size_t a = 0; a < d; ++a) bad += in_domain(space.axes[a], params[t * d + a]) ? 0 : 1;
  CHECK(bad == 0);
  CAPTURE(seconds);
  CHECK(seconds < 10.0);  // ask + tell of 4 x 65,536 trials: under 0.5 s on the 2-core dev box
}

TEST_CASE("GA: adopting journaled blocks resumes the run bit for bit", "[cpu][ga]") {
  // What `tpeopt resume` does: the journal's first blocks are adopted (not asked) and told,
  // then asking continues; the trials must be those of the uninterrupted run.
  const SearchSpace space = mixed_space();
  const std::size_t d = space.size();
  constexpr std::size_t batch = 25, n_trials = 500, depth = 2, replayed_blocks = 7;
  GaSampler whole(space, Direction::Minimize, 21);
  const auto expected = run_schedule(whole, d, n_trials, batch, depth, mixed_objective);

  GaSampler resumed(space, Direction::Minimize, 21);
  const auto params =
      run_resumed_schedule(resumed, expected, d, n_trials, batch, depth, replayed_blocks, mixed_objective);
  REQUIRE(std::memcmp(params.data(), expected.data(), params.size() * sizeof(double)) == 0);
}

TEST_CASE("GA: the ask/tell protocol is checked", "[cpu][ga]") {
  SearchSpace space;
  space.axes = {float_axis("x", 0.0, 1.0)};
  GaSampler sampler(space, Direction::Minimize, 1);
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
  CHECK(sampler.pool_trials().size() == 5);
  CHECK_THROWS_AS(sampler.tell(0, five), Error);  // told twice
  sampler.tell(5, five);
  CHECK_THROWS_AS(sampler.tell(10, five), Error);  // not asked
}

TEST_CASE("GA beats random search on Rastrigin-10 at 2,000 trials (median of 10 seeds)", "[cpu][ga]") {
  // Through the whole study (functions strategy, CPU executor, depth 2), GA with its defaults.
  std::vector<double> ga_best, random_best;
  for (std::uint64_t seed = 0; seed < 10; ++seed) {
    for (const char* sampler : {"ga", "random"}) {
      const auto config = testing::functions_config("rastrigin", 10, -5.12, 5.12, 2000, 100, 2, seed, sampler);
      engine::RunOptions o;
      o.executor = "cpu";
      o.cpu_threads = 2;
      const auto r = engine::run_study(config, o);
      REQUIRE(r.result.n_trials() == 2000);
      (std::string(sampler) == "ga" ? ga_best : random_best).push_back(r.result.top().front().score);
    }
  }
  const double ga_median = median(ga_best), random_median = median(random_best);
  CAPTURE(ga_best, random_best, ga_median, random_median);
  CHECK(ga_median < random_median);
}

TEST_CASE("GA: search.ga is read, validated by key and written back resolved", "[cpu][ga][config]") {
  const auto parse = [](const std::string& search) {
    const std::string text = R"({"strategy": "functions", "function": "sphere", "search": )" + search +
                             R"(, "params": {"a": {"type": "float", "low": 0, "high": 1}, "b": {"type": "int", "low": 1,
                             "high": 9}, "c": {"values": [1, 2]}, "d": {"type": "float", "low": 3, "high": 3}}})";
    return io::parse_study_config(io::parse_json_text(text, "cfg.json"), "cfg.json", ".");
  };
  SECTION("defaults, and the resolved config round-trips") {
    const auto c = parse(R"({"sampler": "ga"})");
    CHECK(c.search.sampler == "ga");
    CHECK(engine::make_sampler(c)->name() == "ga");
    const auto ga = c.resolved()["search"]["ga"];
    const GaConfig defaults;
    CHECK(ga["population"] == defaults.population);
    CHECK(ga["elite"] == defaults.elite);
    CHECK(ga["tournament"] == defaults.tournament);
    CHECK(ga["crossover_rate"] == defaults.crossover_rate);
    CHECK(ga["mutation_scale"] == defaults.mutation_scale);
    CHECK(ga["mutation_rate"] == 1.0 / 3.0);  // 3 searched axes: d is fixed
    const auto again = io::parse_study_config(c.resolved(), "resolved", ".");
    CHECK(again.resolved() == c.resolved());
    // Other samplers' resolved configs carry no GA settings (their digests are unchanged).
    CHECK_FALSE(parse(R"({"sampler": "tpe"})").resolved()["search"].contains("ga"));
  }
  SECTION("explicit settings") {
    const auto c = parse(R"({"sampler": "ga", "ga": {"population": 1, "elite": 1, "tournament": 5,
      "crossover": "uniform", "crossover_rate": 0.5, "blend_alpha": 0.25, "mutation_rate": 0.2,
      "mutation_scale": 0.05}})");
    const auto& g = c.search.ga;
    CHECK(g.population == 1);
    CHECK(g.elite == 1);
    CHECK(g.tournament == 5);
    CHECK(g.crossover == tpe::Crossover::Uniform);
    CHECK(g.crossover_rate == 0.5);
    CHECK(g.blend_alpha == 0.25);
    CHECK(g.mutation_rate == 0.2);
    CHECK(g.mutation_scale == 0.05);
  }
  SECTION("errors name the key") {
    const std::vector<std::pair<std::string, std::string>> cases = {
        {R"({"sampler": "ga", "ga": {"tournament": 0}})",
         "cfg.json: search.ga.tournament: expected an integer in [1, 1024], got 0"},
        {R"({"sampler": "ga", "ga": {"population": 0}})", "search.ga.population: expected an integer in [1, "},
        {R"({"sampler": "ga", "ga": {"population": 8, "elite": 9}})",
         "search.ga.elite: expected at most search.ga.population (8), got 9"},
        {R"({"sampler": "ga", "ga": {"crossover": "one_point"}})",
         "search.ga.crossover: \"one_point\" is not one of: uniform, blend"},
        {R"({"sampler": "ga", "ga": {"crossover_rate": 1.5}})",
         "search.ga.crossover_rate: expected a probability in [0, 1]"},
        {R"({"sampler": "ga", "ga": {"mutation_rate": -0.1}})",
         "search.ga.mutation_rate: expected a probability in [0, 1]"},
        {R"({"sampler": "ga", "ga": {"mutation_scale": 0}})", "search.ga.mutation_scale: expected a number in (0, 10]"},
        {R"({"sampler": "ga", "ga": {"blend_alpha": "wide"}})",
         "search.ga.blend_alpha: expected a number, got a string"},
        {R"({"sampler": "ga", "ga": {"elitism": 2}})",
         "search.ga.elitism: unknown key (expected one of: population, elite"},
        {R"({"sampler": "ga", "ga": [1]})", "search.ga: expected an object, got an array"},
        {R"({"sampler": "genetic"})", "search.sampler: \"genetic\" is not one of: tpe, random, grid, ga"},
    };
    for (const auto& [search, expected] : cases) {
      CAPTURE(search);
      REQUIRE_THROWS_WITH(parse(search), Catch::Contains(expected));
    }
  }
  SECTION("the sampler checks its settings too") {
    SearchSpace space;
    space.axes = {float_axis("x", 0.0, 1.0)};
    GaConfig bad;
    bad.elite = bad.population + 1;
    CHECK_THROWS_WITH(GaSampler(space, Direction::Minimize, 1, bad), Catch::Contains("search.ga.elite"));
    bad = GaConfig{};
    bad.tournament = 0;
    CHECK_THROWS_WITH(GaSampler(space, Direction::Minimize, 1, bad), Catch::Contains("search.ga.tournament"));
  }
}
