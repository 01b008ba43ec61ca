#pragma once
// Random exhaustion parameter sets for the tests that compare executors: integer windows and
// float thresholds drawn over the ranges where trials trade (a few to a few hundred trades on
// the bundled series), one row of ex::kNumSlots slots a trial.
#include <array>
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

/// Bounds per slot that contain random_exhaustion_params()'s ranges (for slot_space.hpp).
inline std::vector<std::array<double, 2>> exhaustion_slot_bounds() {
  return {{1, 500}, {1, 500},  {2, 500},  {1, 500},  {-10, 10}, {-10, 10},
          {0, 1},   {0.1, 20}, {0.1, 20}, {1, 1000}, {0, 10},   {0, 10}};
}

}  // namespace tpeopt::testing
