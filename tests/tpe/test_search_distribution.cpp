// SearchDistribution (tpe/search_distribution.hpp), batch TPE's evolve operator, one rule at a
// time: it converges on a sphere and an ill-conditioned ellipsoid (CMA-ES's update), sigma
// grows on a slope and stays under random selection (cumulative step-size adaptation), a
// block drawn from an earlier frame is measured in that frame and its steps teach the current
// C, an injected far trial's step is shortened, and it restarts on a stall and on a collapse.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "tpe/search_distribution.hpp"
#include "tpe/trial_rng.hpp"

using tpeopt::tpe::make_trial_engine;
using tpeopt::tpe::SearchDistribution;

namespace {

// One generation: lambda draws from the current frame, ranked by f (lower first) or, when f
// is null, in draw order reversed by a fixed permutation (random selection); the best half
// updates the distribution. Returns the generation's best f.
template <typename F>
double generation(SearchDistribution& d, std::size_t lambda, std::uint64_t& stream, F f, bool improved = true) {
  const auto frame = d.frame();
  const std::size_t n = d.dimension();
  std::vector<std::vector<double>> x(lambda, std::vector<double>(n));
  std::vector<double> fx(lambda);
  for (std::size_t i = 0; i < lambda; ++i) {
    auto engine = make_trial_engine(99, stream++);
    SearchDistribution::draw(*frame, engine, x[i].data());
    fx[i] = f(x[i]);
  }
  std::vector<std::size_t> order(lambda);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return fx[a] < fx[b]; });
  std::vector<const double*> selected;
  for (std::size_t r = 0; r < lambda / 2; ++r) selected.push_back(x[order[r]].data());
  d.update(*frame, selected, lambda, improved);
  return fx[order[0]];
}

double ellipsoid(const std::vector<double>& x, double condition) {
  double f = 0.0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double z = x[i] - 0.6;
    f += std::pow(condition, static_cast<double>(i) / static_cast<double>(x.size() - 1)) * z * z;
  }
  return f;
}

}  // namespace

TEST_CASE("SearchDistribution: converges on a sphere and on an ellipsoid of condition 1e6", "[cpu][tpe]") {
  const double condition = GENERATE(1.0, 1e6);
  CAPTURE(condition);
  SearchDistribution d(10, std::vector<double>(10, 0.2));
  std::uint64_t stream = 0;
  double best = INFINITY;
  for (int g = 0; g < 150; ++g)
    best = std::min(best,
                    generation(d, 200, stream, [&](const std::vector<double>& x) { return ellipsoid(x, condition); }));
  CHECK(best < 1e-12);
  // The mean found the optimum (0.6 on every axis) and the spread shrank around it.
  for (std::size_t j = 0; j < 10; ++j) CHECK(std::abs(d.frame()->mean[j] - 0.6) < 1e-4);
  CHECK(d.sigma() * std::sqrt(d.covariance(0, 0)) < 1e-3);
}

TEST_CASE("SearchDistribution: sigma grows on a slope and holds under random selection", "[cpu][tpe]") {
  // Minimizing x_0 far from the bounds, every generation's best half lies on one side: the
  // path lengthens and sigma grows. Random selection (a ranking unrelated to x) leaves the
  // path at the length of a random walk's: sigma stays within a factor of 2 in 30 generations.
  SearchDistribution slope(5, std::vector<double>(5, 0.5), 0.01);
  SearchDistribution random(5, std::vector<double>(5, 0.5), 0.01);
  std::uint64_t s1 = 0, s2 = 0;
  for (int g = 0; g < 8; ++g) generation(slope, 40, s1, [](const std::vector<double>& x) { return x[0]; });
  std::uint64_t tick = 0;
  for (int g = 0; g < 30; ++g)
    generation(random, 40, s2,
               [&](const std::vector<double>&) { return static_cast<double>(tpeopt::tpe::mix64(tick++)); });
  CHECK(slope.sigma() > 2.0 * 0.01);
  CHECK(random.sigma() > 0.5 * 0.01);
  CHECK(random.sigma() < 2.0 * 0.01);
  CHECK(slope.frame()->mean[0] < 0.5);  // the mean went down the slope
}

TEST_CASE("SearchDistribution: a block is measured in the frame it was drawn from", "[cpu][tpe]") {
  // Selected trials exactly at their frame's mean are a zero step in that frame. Two copies go
  // through one generation (which moves the mean); then one is told a zero step drawn from the
  // frame before that generation (as with pipelining), the other a zero step in its current
  // frame: their paths, sigma and C must agree, though the first block's trials lie away from
  // the current mean; the mean moves to the block's trials.
  SearchDistribution lagged(3, std::vector<double>{0.5, 0.5, 0.5});
  SearchDistribution current(3, std::vector<double>{0.5, 0.5, 0.5});
  const auto old_frame = lagged.frame();
  std::uint64_t s1 = 0, s2 = 0;
  auto slope = [](const std::vector<double>& x) { return x[1]; };
  generation(lagged, 20, s1, slope);
  generation(current, 20, s2, slope);
  REQUIRE(lagged.frame()->mean[1] != 0.5);
  std::vector<double> at_old_mean = old_frame->mean;
  lagged.update(*old_frame, std::vector<const double*>(4, at_old_mean.data()), 8, true);
  const auto now = current.frame();
  std::vector<double> at_current_mean = now->mean;
  current.update(*now, std::vector<const double*>(4, at_current_mean.data()), 8, true);
  CHECK(lagged.sigma() == current.sigma());
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t j = 0; j < 3; ++j) CHECK(lagged.covariance(i, j) == current.covariance(i, j));
  for (std::size_t j = 0; j < 3; ++j) CHECK(lagged.frame()->mean[j] == Approx(0.5).margin(1e-15));
}

TEST_CASE("SearchDistribution: a stale block under random selection keeps the current C's shape", "[cpu][tpe]") {
  // C learns an ellipsoid of condition 1e4 from generations told in their own frames. Then a
  // block drawn from the first frame (C = I) is told with a ranking unrelated to x: its steps,
  // carried into the current frame, average to the current C, so the learned ratio of C_00 to
  // C_99 stays within a factor of 2 (the steps themselves pull it to about 1: C towards I).
  SearchDistribution d(10, std::vector<double>(10, 0.2));
  const auto first = d.frame();
  std::uint64_t stream = 0;
  for (int g = 0; g < 40; ++g)
    generation(d, 200, stream, [](const std::vector<double>& x) { return ellipsoid(x, 1e4); });
  const double before = d.covariance(0, 0) / d.covariance(9, 9);
  REQUIRE(before > 100.0);
  std::vector<std::vector<double>> x(200, std::vector<double>(10));
  for (std::size_t i = 0; i < x.size(); ++i) {
    auto engine = make_trial_engine(7, i);
    SearchDistribution::draw(*first, engine, x[i].data());
  }
  std::vector<const double*> selected;
  for (std::size_t i = 0; i < 100; ++i) selected.push_back(x[(i * 37) % x.size()].data());
  d.update(*first, selected, 200, true);
  const double after = d.covariance(0, 0) / d.covariance(9, 9);
  CHECK(after > 0.5 * before);
  CHECK(after < 2.0 * before);
}

TEST_CASE("SearchDistribution: the mean moves by the steps from the block's own frame", "[cpu][tpe]") {
  // After a generation has moved the mean, a block drawn from the earlier frame whose selected
  // trials all lie 0.01 above that frame's mean moves the mean to the old mean + 0.01 (a step
  // measured from the current mean would land elsewhere); a block drawn before a restart is
  // not used at all.
  SearchDistribution d(3, std::vector<double>{0.5, 0.5, 0.5});
  const auto old_frame = d.frame();
  std::uint64_t stream = 0;
  generation(d, 20, stream, [](const std::vector<double>& x) { return x[1]; });
  REQUIRE(std::abs(d.frame()->mean[1] - 0.5) > 0.02);
  std::vector<double> near = {0.51, 0.51, 0.51};
  d.update(*old_frame, std::vector<const double*>(4, near.data()), 8, true);
  for (std::size_t j = 0; j < 3; ++j) CHECK(d.frame()->mean[j] == Approx(0.51).margin(1e-12));
  const auto before_restart = d.frame();
  d.restart(std::vector<double>{0.2, 0.2, 0.2});
  const auto fresh = d.frame();
  d.update(*before_restart, std::vector<const double*>(4, near.data()), 8, true);
  CHECK(d.frame() == fresh);
  CHECK(d.generation() == 0);
}

TEST_CASE("SearchDistribution: a C that is not finite is replaced and asks for a restart", "[cpu][tpe]") {
  SearchDistribution d(3, std::vector<double>{0.5, 0.5, 0.5});
  const auto frame = d.frame();
  std::vector<double> bad = {0.5, std::nan(""), 0.5};
  d.update(*frame, std::vector<const double*>(2, bad.data()), 4, true);  // returns: no endless ridge loop
  CHECK(d.should_restart());
  CHECK(d.covariance(0, 0) == 1.0);
  CHECK(d.covariance(0, 1) == 0.0);
}

TEST_CASE("SearchDistribution: an injected trial far outside the frame moves C a bounded step", "[cpu][tpe]") {
  // Two selected trials 1e6 sigma away (another operator's, not drawn from the frame): without
  // the shortening to sqrt(n) + 2n/(n+2) their rank-mu term alone would add about 1e10 to C.
  constexpr std::size_t n = 4;
  SearchDistribution d(n, std::vector<double>(n, 0.5), 1e-7);
  const auto frame = d.frame();
  std::vector<double> far(n, 0.6);
  std::vector<const double*> selected = {far.data(), far.data()};
  d.update(*frame, selected, 4, true);
  CHECK(d.covariance(0, 1) > 0.0);  // it did learn the direction (1, 1, 1, 1)
  for (std::size_t j = 0; j < n; ++j) CHECK(d.covariance(j, j) < 2.0);
}

TEST_CASE("SearchDistribution: restarts after a stall and after a collapse", "[cpu][tpe]") {
  constexpr std::size_t n = 4, lambda = 12;
  // Stall: no improvement for 10 + ceil(30 n / lambda) = 20 updates.
  SearchDistribution stalled(n, std::vector<double>(n, 0.5));
  std::uint64_t stream = 0;
  auto sphere = [](const std::vector<double>& x) { return ellipsoid(x, 1.0); };
  for (int g = 0; g < 19; ++g) generation(stalled, lambda, stream, sphere, false);
  CHECK_FALSE(stalled.should_restart());
  generation(stalled, lambda, stream, sphere, false);
  CHECK(stalled.should_restart());
  // Collapse: selected trials always at the frame's mean shrink sigma^2 C until its spread is
  // under 1e-12; restart() then starts again with C = I and sigma0.
  SearchDistribution collapsing(n, std::vector<double>(n, 0.5));
  int updates = 0;
  while (!collapsing.should_restart() && updates < 10000) {
    const auto frame = collapsing.frame();
    std::vector<const double*> selected(lambda / 2, frame->mean.data());
    collapsing.update(*frame, selected, lambda, true);
    ++updates;
  }
  CHECK(updates < 10000);
  CHECK(collapsing.sigma() * std::sqrt(collapsing.covariance(0, 0)) < 1e-12);
  collapsing.restart(std::vector<double>(n, 0.25));
  CHECK(collapsing.restarts() == 1);
  CHECK(collapsing.sigma() == SearchDistribution::kSigma0);
  CHECK(collapsing.covariance(0, 0) == 1.0);
  CHECK(collapsing.covariance(0, 1) == 0.0);
  CHECK(collapsing.frame()->mean[0] == 0.25);
}
