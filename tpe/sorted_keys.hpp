#pragma once
// Sorting a batch of observation values for the fast acquisition's per-axis sorted order
// (TpeSampler::tell): an order-preserving integer key of a double and a stable radix sort
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

// Merges a batch into an axis' sorted order: `order` lists the old observations' indices by
// (value, index) and `sorted_value` their values in that order; `fresh` the new ones' (key,
// index) pairs sorted by radix_sort, every index above the old ones, `value` the values by
// index. Writes the merged order and values, and fresh_at[k], the merged position of fresh[k]
// (ascending). On equal values the old observation comes first (its index is smaller).
inline void merge_sorted(const std::vector<std::uint32_t>& order, const std::vector<double>& sorted_value,
                         const double* value, const std::vector<std::pair<std::uint64_t, std::uint32_t>>& fresh,
                         std::vector<std::uint32_t>& merged, std::vector<double>& merged_value,
                         std::vector<std::size_t>& fresh_at) {
  const std::size_t n = order.size() + fresh.size();
  // The output buffers trade places with the axes' arrays in TpeSampler::tell: room for a few
  // more batches keeps later tells from allocating (and faulting in) fresh pages every time.
  if (merged.capacity() < n) merged.reserve(n + n / 4);
  if (merged_value.capacity() < n) merged_value.reserve(n + n / 4);
  merged.resize(n);
  merged_value.resize(n);
  fresh_at.resize(fresh.size());
  // Raw pointers: the loops then keep the sizes and bases in registers.
  const std::uint32_t* old_index = order.data();
  const double* old_value = sorted_value.data();
  const std::pair<std::uint64_t, std::uint32_t>* batch = fresh.data();
  std::uint32_t* out_index = merged.data();
  double* out_value = merged_value.data();
  std::size_t* at = fresh_at.data();
  const std::size_t n_old = order.size(), n_new = fresh.size();
  std::size_t x = 0, y = 0, o = 0;
  // Branch-free: which side comes next is a coin toss the predictor cannot learn.
  while (x < n_old && y < n_new) {
    const double fresh_value = value[batch[y].second], kept_value = old_value[x];
    const bool take_new = fresh_value < kept_value;
    out_value[o] = take_new ? fresh_value : kept_value;
    out_index[o] = take_new ? batch[y].second : old_index[x];
    at[y] = o;  // final once y moves on
    ++o;
    y += take_new;
    x += !take_new;
  }
  for (; x < n_old; ++o, ++x) {
    out_value[o] = old_value[x];
    out_index[o] = old_index[x];
  }
  for (; y < n_new; ++o, ++y) {
    at[y] = o;
    out_value[o] = value[batch[y].second];
    out_index[o] = batch[y].second;
  }
}

}  // namespace tpeopt::tpe::detail
