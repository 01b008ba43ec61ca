#pragma once
// Bit-for-bit comparison of doubles: the project's promise for CPU == GPU, pipelined ==
// serial == resumed and same seed == same trials (a NaN equals the same NaN; -0 is not +0).
#include <cstring>
#include <vector>

namespace tpeopt::testing {

inline bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

inline bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

}  // namespace tpeopt::testing
