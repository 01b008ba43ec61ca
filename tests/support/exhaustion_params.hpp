#pragma once
// Random exhaustion parameter sets for the tests that compare executors: integer windows and
// float thresholds drawn over the ranges where trials trade (a few to a few hundred trades on
// the bundled series), one row of ex::kNumSlots slots a trial.
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

#include "strategies/exhaustion/exhaustion.hpp"

namespace tpeopt::testing {

inline std::vector<double> random_exhaustion_params(std::size_t n, std::uint64_t seed) {
  namespace ex = strategies::exhaustion;
  std::mt19937_64 rng(seed);
  auto u = [&](double a, double b) { return std::uniform_real_distribution<double>(a, b)(rng); };
  auto k = [&](int a, int b) { return static_cast<double>(std::uniform_int_distribution<int>(a, b)(rng)); };
  std::vector<double> p;
  for (std::size_t i = 0; i < n; ++i) {
    const double row[ex::kNumSlots] = {k(1, 80), k(1, 300), k(2, 150), k(1, 80),  u(-1, 3), u(-1, 3),
                                       u(0, 1),  u(0.1, 4), u(0.2, 6), k(1, 200), u(0, 10), u(0, 5)};
    p.insert(p.end(), row, row + ex::kNumSlots);
  }
  return p;
}

}  // namespace tpeopt::testing
