#pragma once
// Sorting a batch of observation values for the fast acquisition's per-axis sorted runs
// (TpeSampler::tell, tpe/sorted_runs.hpp): an order-preserving integer key of a double and a stable radix sort
// of (key, index) pairs. Internal to the TPE sampler; in a header for the tests.
#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace tpeopt::tpe::detail {

// An order-preserving unsigned key of a double (-0 and +0 alike; no NaN).
inline std::uint64_t order_key(double v) {
  const std::uint64_t b = std::bit_cast<std::uint64_t>(v == 0.0 ? 0.0 : v);
  return (b >> 63) ? ~b : (b | 0x8000000000000000ULL);
}

// Stable LSD radix sort of (key, index) pairs by key: pairs given in index order come out
// by (key, index). The passes (8 bits each; a pass where every key has the same digit is
// skipped) cover the keys' top 32 bits only, which tell a batch's values apart almost always
// (sign, exponent and 20 bits of mantissa); the rare runs of pairs whose top halves tie are
// then put in full-key order by a stable insertion sort. The result is the full sort's.
inline void radix_sort(std::vector<std::pair<std::uint64_t, std::uint32_t>>& v,
                       std::vector<std::pair<std::uint64_t, std::uint32_t>>& tmp) {
  tmp.resize(v.size());
  for (unsigned shift = 32; shift < 64; shift += 8) {
    std::array<std::size_t, 257> count{};
    for (const auto& e : v) ++count[((e.first >> shift) & 0xff) + 1];
    bool trivial = false;
    for (std::size_t b = 1; b <= 256; ++b) trivial = trivial || count[b] == v.size();
    if (trivial) continue;
    for (std::size_t b = 1; b <= 256; ++b) count[b] += count[b - 1];
    for (const auto& e : v) tmp[count[(e.first >> shift) & 0xff]++] = e;
    v.swap(tmp);
  }
  for (std::size_t run = 0; run < v.size();) {
    std::size_t end = run + 1;
    while (end < v.size() && (v[end].first >> 32) == (v[run].first >> 32)) ++end;
    if (end - run > 32) {  // a long run (values within 2^-20 of each other): no quadratic worst case
      std::stable_sort(v.begin() + static_cast<std::ptrdiff_t>(run), v.begin() + static_cast<std::ptrdiff_t>(end),
                       [](const auto& a, const auto& b) { return a.first < b.first; });
      run = end;
      continue;
    }
    for (std::size_t x = run + 1; x < end; ++x) {
      const auto e = v[x];
      std::size_t y = x;
      for (; y > run && v[y - 1].first > e.first; --y) v[y] = v[y - 1];
      v[y] = e;
    }
    run = end;
  }
}

}  // namespace tpeopt::tpe::detail
