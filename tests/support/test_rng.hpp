#pragma once
// A small deterministic generator for randomized tests: uniforms in [0, 1) and indices
// below n from tpeopt's SplitMix64 (the same numbers on every platform, unlike <random>'s
// distributions).
#include <cstddef>
#include <cstdint>

#include "tpe/trial_rng.hpp"

namespace tpeopt::testing {

struct Rng {
  tpe::SplitMix64 engine;
  explicit Rng(std::uint64_t seed) : engine(seed) {}
  double u01() { return static_cast<double>(engine() >> 11) * 0x1.0p-53; }
  std::size_t below(std::size_t n) { return static_cast<std::size_t>(u01() * static_cast<double>(n)); }
};

}  // namespace tpeopt::testing
