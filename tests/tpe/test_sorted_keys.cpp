// The radix sort behind the fast acquisition's sorted runs: its result is the full stable
// sort by (value, index), including batches whose values tie in the keys' top 32 bits (the
// passes the sort makes) and differ below them, short runs and long ones.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "tpe/sorted_keys.hpp"

using namespace tpeopt::tpe::detail;

namespace {

using Pairs = std::vector<std::pair<std::uint64_t, std::uint32_t>>;

Pairs keyed(const std::vector<double>& values) {
  Pairs p;
  for (std::size_t i = 0; i < values.size(); ++i) p.push_back({order_key(values[i]), static_cast<std::uint32_t>(i)});
  return p;
}

/// The reference: indices ordered by value, ties by index.
std::vector<std::uint32_t> reference_order(const std::vector<double>& values) {
  std::vector<std::uint32_t> idx(values.size());
  for (std::size_t i = 0; i < idx.size(); ++i) idx[i] = static_cast<std::uint32_t>(i);
  std::stable_sort(idx.begin(), idx.end(), [&](std::uint32_t a, std::uint32_t b) { return values[a] < values[b]; });
  return idx;
}

}  // namespace

TEST_CASE("order_key preserves the order of doubles", "[tpe][fast]") {
  const std::vector<double> v = {-1e300, -2.5, -1.0, -1e-300, -0.0, 0.0, 1e-300, 0.5, 1.0, std::nextafter(1.0, 2.0),
                                 1e300};
  for (std::size_t i = 0; i + 1 < v.size(); ++i) {
    CAPTURE(v[i], v[i + 1]);
    if (v[i] < v[i + 1]) CHECK(order_key(v[i]) < order_key(v[i + 1]));
    else CHECK(order_key(v[i]) == order_key(v[i + 1]));  // -0 and +0
  }
}

TEST_CASE("radix_sort equals the stable sort by (value, index)", "[tpe][fast]") {
  std::mt19937_64 rng(GENERATE(1u, 2u, 3u));
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<double> values;
  const int kind = GENERATE(0, 1, 2, 3);
  CAPTURE(kind);
  for (int i = 0; i < 4096; ++i) {
    double x = u(rng);
    if (kind == 1) {
      // Clusters of 8 values in one 2^-21-wide block of [0.5, 1) (same sign, exponent and
      // top 20 mantissa bits, so the same top 32 key bits), in random order within the
      // block: the insertion pass.
      static double block = 0.5;
      if (i % 8 == 0) block = std::ldexp(std::floor(std::ldexp(0.5 + 0.5 * x, 21)), -21);
      x = block + static_cast<double>(rng() % (1u << 20)) * 0x1p-41;
    } else if (kind == 2) {
      // One long run of distinct values within 2^-30 of each other: the long-run path.
      x = 0.75 + static_cast<double>(rng() % 100000) * 0x1p-52;
    } else if (kind == 3) {
      // Heavy ties (equal values, index order decides) and negative values.
      x = static_cast<double>(static_cast<int>(rng() % 17) - 8) * 0.125;
    }
    values.push_back(x);
  }
  Pairs v = keyed(values), tmp;
  radix_sort(v, tmp);
  const auto ref = reference_order(values);
  std::size_t differing = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) differing += v[i].second == ref[i] ? 0 : 1;
  CHECK(differing == 0);
}
