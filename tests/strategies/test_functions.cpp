#include <catch2/catch.hpp>

#include <cmath>
#include <random>

#include "common/hd_math.hpp"
#include "strategies/functions/functions.hpp"

using namespace tpeopt;
using strategies::TestFunction;

TEST_CASE("hd::exp and hd::cos stay within a few ulp of the C library", "[cpu][functions]") {
  std::mt19937_64 rng(99);
  std::uniform_real_distribution<double> ex(-700.0, 700.0), cx(-1000.0, 1000.0), small(-3.0, 3.0);
  double worst_exp = 0, worst_cos = 0;
  for (int i = 0; i < 200000; ++i) {
    const double a = i % 2 ? ex(rng) : small(rng);
    worst_exp = std::max(worst_exp, std::fabs(hd::exp(a) - std::exp(a)) / std::exp(a));
    const double b = i % 2 ? cx(rng) : small(rng);
    // Relative to max(|cos|, 1e-3): near zeros of cos the absolute error is what matters.
    worst_cos = std::max(worst_cos, std::fabs(hd::cos(b) - std::cos(b)) / std::max(std::fabs(std::cos(b)), 1e-3));
  }
  CAPTURE(worst_exp, worst_cos);
  REQUIRE(worst_exp < 1e-15);
  REQUIRE(worst_cos < 1e-14);
  REQUIRE(hd::exp(0.0) == 1.0);
  REQUIRE(hd::cos(0.0) == 1.0);
  REQUIRE(std::isnan(hd::exp(NAN)));
  REQUIRE(hd::exp(-1000.0) == 0.0);
}

TEST_CASE("test functions have their known minima", "[cpu][functions]") {
  const double zeros[10] = {};
  REQUIRE(strategies::evaluate_test_function(TestFunction::Sphere, zeros, 10) == 0.0);
  REQUIRE(strategies::evaluate_test_function(TestFunction::Rastrigin, zeros, 10) == 0.0);
  double st[10];
  for (double& x : st) x = -2.903534;
  REQUIRE(strategies::evaluate_test_function(TestFunction::StyblinskiTang, st, 10) ==
          Approx(-39.16617 * 10).epsilon(1e-6));
  const double h6[6] = {0.20169, 0.150011, 0.476874, 0.275332, 0.311652, 0.6573};
  REQUIRE(strategies::evaluate_test_function(TestFunction::Hartmann6, h6, 6) == Approx(-3.32237).epsilon(1e-5));
  const double one[2] = {1.0, -2.0};
  REQUIRE(strategies::evaluate_test_function(TestFunction::Sphere, one, 2) == 5.0);
  // Rastrigin at integers is sum x^2 (cos(2 pi k) = 1).
  REQUIRE(strategies::evaluate_test_function(TestFunction::Rastrigin, one, 2) == Approx(5.0).margin(1e-12));
}
