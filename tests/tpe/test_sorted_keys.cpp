// The radix sort and the merge behind the fast acquisition's sorted order: the sort's result
// is the full stable sort by (value, index), including batches whose values tie in the keys'
// top 32 bits (the passes the sort makes) and differ below them, short runs and long ones;
// batch after batch, the merge keeps the stable sort of every value so far.
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
  const std::vector<double> v = {-1e300, -2.5, -1.0, -1e-300, -0.0, 0.0, 1e-300, 0.5, 1.0, std::nextafter(1.0, 2.0), 1e300};
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

TEST_CASE("merge_sorted gives the sorted order of the old and new observations together", "[tpe][fast]") {
  // Several batches merged one after the other into one order: each merge must give the
  // stable sort of all values so far (ties: old before new, i.e. by index), its values in
  // that order, and the new observations' positions in it.
  std::mt19937_64 rng(GENERATE(5u, 6u));
  const bool ties = GENERATE(false, true);
  CAPTURE(ties);
  std::vector<double> values;
  std::vector<std::uint32_t> order, merged;
  std::vector<double> sorted_value, merged_value;
  std::vector<std::size_t> fresh_at;
  for (const std::size_t batch : {1u, 300u, 7u, 2048u, 1u, 999u}) {
    const std::size_t n_before = values.size();
    for (std::size_t k = 0; k < batch; ++k) {
      // With ties: a few values only, and -0 beside +0 (equal for the merge and the key).
      const int r = static_cast<int>(rng() % 9) - 4;
      double x = ties ? (r == 0 && rng() % 2 == 0 ? -0.0 : 0.25 * r) : std::ldexp(static_cast<double>(rng() >> 11), -53);
      if (!ties && rng() % 50 == 0 && n_before > 0) x = values[rng() % n_before];  // an old value again
      values.push_back(x);
    }
    Pairs fresh, tmp;
    for (std::size_t i = n_before; i < values.size(); ++i)
      fresh.push_back({order_key(values[i]), static_cast<std::uint32_t>(i)});
    radix_sort(fresh, tmp);
    merge_sorted(order, sorted_value, values.data(), fresh, merged, merged_value, fresh_at);
    order.swap(merged);
    sorted_value.swap(merged_value);
    CAPTURE(batch, n_before);
    REQUIRE(order == reference_order(values));
    REQUIRE(sorted_value.size() == order.size());
    std::size_t wrong_value = 0;
    for (std::size_t o = 0; o < order.size(); ++o) wrong_value += sorted_value[o] == values[order[o]] ? 0 : 1;
    CHECK(wrong_value == 0);
    REQUIRE(fresh_at.size() == fresh.size());
    for (std::size_t k = 0; k < fresh.size(); ++k) {
      CHECK(order[fresh_at[k]] == fresh[k].second);
      if (k > 0) CHECK(fresh_at[k] > fresh_at[k - 1]);
    }
  }
}
