// TPE finds better points than random search on standard test functions (ask 1 / tell 1).
#include <catch2/catch.hpp>

#include <algorithm>
#include <limits>
#include <vector>

#include "strategies/functions/functions.hpp"
#include "tpe/random_sampler.hpp"
#include "tpe/tpe_sampler.hpp"

using namespace tpeopt::tpe;
using tpeopt::strategies::TestFunction;

namespace {

// The best value found in n_trials trials of batch size 1 (ask one, tell one).
double best_value(Sampler& sampler, TestFunction f, int d, std::size_t n_trials) {
  std::vector<double> x(static_cast<std::size_t>(d));
  double best = std::numeric_limits<double>::infinity();
  for (std::size_t t = 0; t < n_trials; ++t) {
    sampler.ask(t, 1, x.data());
    const double y = tpeopt::strategies::evaluate_test_function(f, x.data(), d);
    best = std::min(best, y);
    const TrialOutcome outcome{y, 0.0};
    sampler.tell(t, std::span<const TrialOutcome>(&outcome, 1));
  }
  return best;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

SearchSpace box(int d, double low, double high) {
  SearchSpace s;
  for (int i = 0; i < d; ++i) {
    Axis a;
    a.name = "x" + std::to_string(i);
    a.low = low;
    a.high = high;
    s.axes.push_back(a);
  }
  return s;
}

}  // namespace

TEST_CASE("TPE beats random search on Rastrigin-10 and Styblinski-Tang-10", "[cpu][tpe][slow]") {
  struct Problem {
    const char* name;
    TestFunction f;
    double low, high;
  };
  const Problem problem = GENERATE(Problem{"Rastrigin-10", TestFunction::Rastrigin, -5.12, 5.12},
                                   Problem{"Styblinski-Tang-10", TestFunction::StyblinskiTang, -5.0, 5.0});
  constexpr int d = 10;
  constexpr std::size_t n_trials = 500;
  const SearchSpace space = box(d, problem.low, problem.high);
  std::vector<double> tpe_best, random_best;
  for (std::uint64_t seed = 0; seed < 10; ++seed) {
    TpeSampler tpe(space, Direction::Minimize, seed);
    RandomSampler random(space, seed);
    tpe_best.push_back(best_value(tpe, problem.f, d, n_trials));
    random_best.push_back(best_value(random, problem.f, d, n_trials));
  }
  const double tpe_median = median(tpe_best), random_median = median(random_best);
  CAPTURE(problem.name, tpe_best, random_best, tpe_median, random_median);
  CHECK(tpe_median < random_median);
}

TEST_CASE("Multivariate TPE beats univariate TPE early on Styblinski-Tang-10", "[cpu][tpe][slow]") {
  // Optuna 4.9+'s multivariate model (per-axis neighbour bandwidths) is ahead of the univariate
  // default at 200 sequential trials (docs/benchmarks.md: -325 against -305 over seeds 0..9);
  // Optuna 3.x's multivariate rule, which tpeopt used before draws version 4, was behind it
  // (-263.5 over 30 seeds). Deterministic: the seeds are fixed.
  constexpr int d = 10;
  constexpr std::size_t n_trials = 200;
  const SearchSpace space = box(d, -5.0, 5.0);
  std::vector<double> multivariate_best, univariate_best, random_best;
  for (std::uint64_t seed = 0; seed < 10; ++seed) {
    TpeConfig joint;
    joint.multivariate = Multivariate::On;
    TpeSampler multivariate(space, Direction::Minimize, seed, joint);
    TpeSampler univariate(space, Direction::Minimize, seed);
    RandomSampler random(space, seed);
    multivariate_best.push_back(best_value(multivariate, TestFunction::StyblinskiTang, d, n_trials));
    univariate_best.push_back(best_value(univariate, TestFunction::StyblinskiTang, d, n_trials));
    random_best.push_back(best_value(random, TestFunction::StyblinskiTang, d, n_trials));
  }
  const double mv = median(multivariate_best), uni = median(univariate_best), rnd = median(random_best);
  CAPTURE(multivariate_best, univariate_best, mv, uni, rnd);
  CHECK(mv < uni);
  CHECK(mv < rnd);
}
