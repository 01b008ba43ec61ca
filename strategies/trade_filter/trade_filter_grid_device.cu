// The GPU grid search of the trade_filter strategy (design in trade_filter_grid.hpp).
#include <algorithm>
#include <string>
#include <vector>

#include <cub/device/device_radix_sort.cuh>

#include "strategies/device/cuda_check.cuh"
#include "strategies/device/device_buffers.hpp"
#include "strategies/trade_filter/trade_filter_device.hpp"
#include "strategies/trade_filter/trade_filter_device_data.hpp"
#include "strategies/trade_filter/trade_filter_grid_device.hpp"

namespace tpeopt::gpu {

namespace tf = strategies::trade_filter;
using u64 = std::uint64_t;
using ull = unsigned long long;

namespace {

constexpr int kBlock = 256;
constexpr std::size_t kMaxTopK = 16384;  // the merge is O(K^2) in one block

unsigned blocks_for(u64 n, int block = kBlock) { return static_cast<unsigned>((n + block - 1) / block); }

__global__ void trade_cells_kernel(tf::TradeArrays a, tf::GridLayout g, const float* fvalues, u64* cell, ull* kept) {
  const u64 i = static_cast<u64>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= a.n) return;
  const u64 c = tf::grid_trade_cell(g, fvalues, a, i);
  cell[i] = c;
  atomicAdd(kept + c, 1ull);
}

__device__ __forceinline__ void pair_exit(const tf::GridLayout& g, const float* fvalues, u64 pair, float& target,
                                          float& stop) {
  target = fvalues[g.offset[tf::kTargetPct] + pair / g.radix[tf::kStopPct]];
  stop = fvalues[g.offset[tf::kStopPct] + pair % g.radix[tf::kStopPct]];
}

/// blockIdx.y: pair p0 + y; each trade adds q(outcome) to its cell (global atomics).
__global__ void pair_hist_global_kernel(tf::TradeArrays a, tf::GridLayout g, const float* fvalues, const u64* cell,
                                        u64 p0, ull* tables) {
  const u64 i = static_cast<u64>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= a.n) return;
  float target, stop;
  pair_exit(g, fvalues, p0 + blockIdx.y, target, stop);
  const std::int64_t q = tf::trade_outcome_q(a, i, target, stop);
  if (q != 0) atomicAdd(tables + blockIdx.y * g.n_cells + cell[i], static_cast<ull>(q));
}

/// The same with a shared-memory table per block (n_cells small), flushed once per block.
__global__ void pair_hist_shared_kernel(tf::TradeArrays a, tf::GridLayout g, const float* fvalues, const u64* cell,
                                        u64 p0, ull* tables) {
  extern __shared__ ull h[];
  for (u64 c = threadIdx.x; c < g.n_cells; c += blockDim.x) h[c] = 0;
  __syncthreads();
  float target, stop;
  pair_exit(g, fvalues, p0 + blockIdx.y, target, stop);
  for (u64 i = static_cast<u64>(blockIdx.x) * blockDim.x + threadIdx.x; i < a.n;
       i += static_cast<u64>(gridDim.x) * blockDim.x) {
    const std::int64_t q = tf::trade_outcome_q(a, i, target, stop);
    if (q != 0) atomicAdd(h + cell[i], static_cast<ull>(q));
  }
  __syncthreads();
  ull* t = tables + blockIdx.y * g.n_cells;
  for (u64 c = threadIdx.x; c < g.n_cells; c += blockDim.x)
    if (h[c] != 0) atomicAdd(t + c, h[c]);
}

/// One dimension of the in-place suffix sum: a thread per line along that dimension,
/// blockIdx.y selects the table.
__global__ void suffix_kernel(ull* tables, u64 n_cells, u64 cs, u64 d) {
  const u64 line = static_cast<u64>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (line >= n_cells / d) return;
  ull* t = tables + blockIdx.y * n_cells;
  const u64 base = (line / cs) * cs * d + line % cs;
  for (u64 j = d - 1; j-- > 0;) t[base + j * cs] += t[base + (j + 1) * cs];
}

/// Mode "cells": combinations c0 .. c0 + n - 1, tables of every pair.
__global__ void score_range_kernel(tf::GridLayout g, const std::uint32_t* lo, const ull* tables, const ull* kept,
                                   u64 c0, u64 n, std::int64_t min_trades, bool maximize, u64* keys, u64* vals) {
  const u64 j = static_cast<u64>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= n) return;
  u64 pair = 0;
  const u64 combo = c0 + j;
  const u64 c = tf::grid_combo_cell(g, lo, combo, &pair);
  keys[j] = tf::rank_key(static_cast<std::int64_t>(tables[pair * g.n_cells + c]), static_cast<std::int64_t>(kept[c]),
                         min_trades, maximize);
  vals[j] = combo;
}

/// Mode "cells by pair": filter combinations f0 .. f0 + n - 1 of one pair (its table).
__global__ void score_pair_kernel(tf::GridLayout g, const std::uint32_t* lo, const ull* table, const ull* kept,
                                  u64 pair, u64 f0, u64 n, std::int64_t min_trades, bool maximize, u64* keys,
                                  u64* vals) {
  const u64 j = static_cast<u64>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= n) return;
  u64 c = 0;
  vals[j] = tf::grid_filter_combo(g, lo, pair, f0 + j, &c);
  keys[j] = tf::rank_key(static_cast<std::int64_t>(table[c]), static_cast<std::int64_t>(kept[c]), min_trades, maximize);
}

/// Mode "direct": keys from per-combination accumulators.
__global__ void keys_from_acc_kernel(const ull* acc, u64 c0, u64 n, std::int64_t min_trades, bool maximize, u64* keys,
                                     u64* vals) {
  const u64 j = static_cast<u64>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= n) return;
  keys[j] = tf::rank_key(static_cast<std::int64_t>(acc[j * 4]), static_cast<std::int64_t>(acc[j * 4 + 1]), min_trades,
                         maximize);
  vals[j] = c0 + j;
}

/// One block: the best k of (running top, chunk's best) by (key, combination); each
/// element's rank is the number of elements before it (all distinct, so ranks are too).
__global__ void merge_kernel(const u64* rk, const u64* rv, u64 m_run, const u64* ck, const u64* cv, u64 m_chunk, u64 k,
                             u64* ok, u64* ov) {
  const u64 total = m_run + m_chunk;
  for (u64 e = threadIdx.x; e < total; e += blockDim.x) {
    const u64 key = e < m_run ? rk[e] : ck[e - m_run];
    const u64 val = e < m_run ? rv[e] : cv[e - m_run];
    u64 rank = 0;
    for (u64 o = 0; o < total; ++o) {
      const u64 ko = o < m_run ? rk[o] : ck[o - m_run];
      const u64 vo = o < m_run ? rv[o] : cv[o - m_run];
      rank += (ko < key || (ko == key && vo < val)) ? 1 : 0;
    }
    if (rank < k) {
      ok[rank] = key;
      ov[rank] = val;
    }
  }
}

}  // namespace

struct TradeFilterGridSearch::Impl {
  explicit Impl(const strategies::TradeFilterStrategy& s) : data(s), min_trades(s.min_trades()) {
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  }
  ~Impl() {
    cudaStreamSynchronize(stream);
    cudaStreamDestroy(stream);
  }

  TradeFilterDeviceData data;
  std::int64_t min_trades;
  cudaStream_t stream{};
  DeviceBuffer<float> fvalues;
  DeviceBuffer<std::uint32_t> lo;
  DeviceBuffer<u64> cell;
  DeviceBuffer<ull> tables;  // kept table first, then the pairs' tables
  DeviceBuffer<u64> keys_in, keys_out, vals_in, vals_out;
  DeviceBuffer<unsigned char> cub_temp;
  DeviceBuffer<u64> top_key[2], top_val[2];
  DeviceBuffer<ull> acc;
  DeviceBuffer<double> slots;

  // running top K
  u64 k = 0, m_run = 0;
  int cur = 0;

  void reset_top(u64 top_k) {
    k = top_k;
    m_run = 0;
    cur = 0;
    for (int b = 0; b < 2; ++b) {
      top_key[b].resize(std::max<u64>(1, k));
      top_val[b].resize(std::max<u64>(1, k));
    }
  }

  /// Sorts keys_in/vals_in[0..n) (stable) and merges its best into the running top.
  void select(u64 n) {
    if (n == 0 || k == 0) return;
    std::size_t temp_bytes = 0;
    CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, keys_in.data(), keys_out.data(), vals_in.data(),
                                               vals_out.data(), static_cast<int>(n), 0, 64, stream));
    cub_temp.resize(std::max<std::size_t>(1, temp_bytes));
    CUDA_CHECK(cub::DeviceRadixSort::SortPairs(cub_temp.data(), temp_bytes, keys_in.data(), keys_out.data(),
                                               vals_in.data(), vals_out.data(), static_cast<int>(n), 0, 64, stream));
    const u64 m_chunk = std::min<u64>(n, k);
    const int next = 1 - cur;
    merge_kernel<<<1, 1024, 0, stream>>>(top_key[cur].data(), top_val[cur].data(), m_run, keys_out.data(),
                                         vals_out.data(), m_chunk, k, top_key[next].data(), top_val[next].data());
    CUDA_CHECK_LAUNCH("trade_filter merge_kernel");
    m_run = std::min<u64>(k, m_run + m_chunk);
    cur = next;
  }

  void reserve_chunk(u64 chunk) {
    for (auto* b : {&keys_in, &keys_out, &vals_in, &vals_out}) b->resize(std::max<u64>(1, chunk));
  }

  void build_tables(const tf::GridLayout& g, u64 p0, u64 n_pairs) {
    const u64 n = data.n_trades();
    const std::size_t bytes = static_cast<std::size_t>(g.n_cells) * sizeof(ull) * (n_pairs + 1);
    CUDA_CHECK(cudaMemsetAsync(tables.data(), 0, bytes, stream));
    ull* kept = tables.data();
    ull* pair_tables = tables.data() + g.n_cells;
    if (n > 0) {
      trade_cells_kernel<<<blocks_for(n), kBlock, 0, stream>>>(data.arrays(), g, fvalues.data(), cell.data(), kept);
      CUDA_CHECK_LAUNCH("trade_filter trade_cells_kernel");
      const std::size_t shared = static_cast<std::size_t>(g.n_cells) * sizeof(ull);
      for (u64 y0 = 0; y0 < n_pairs; y0 += 65535) {
        const unsigned ny = static_cast<unsigned>(std::min<u64>(65535, n_pairs - y0));
        if (shared <= 40 * 1024) {
          const unsigned bx = std::min<unsigned>(blocks_for(n), std::max<unsigned>(1, 1024 / ny));
          pair_hist_shared_kernel<<<dim3(bx, ny), kBlock, shared, stream>>>(data.arrays(), g, fvalues.data(),
                                                                            cell.data(), p0 + y0,
                                                                            pair_tables + y0 * g.n_cells);
        } else {
          pair_hist_global_kernel<<<dim3(blocks_for(n), ny), kBlock, 0, stream>>>(data.arrays(), g, fvalues.data(),
                                                                                  cell.data(), p0 + y0,
                                                                                  pair_tables + y0 * g.n_cells);
        }
        CUDA_CHECK_LAUNCH("trade_filter pair_hist_kernel");
      }
    }
    // suffix sums of the kept table and the pairs' tables (n_pairs + 1 tables, contiguous)
    for (int s = 0; s < tf::kFilterSlots; ++s) {
      const u64 d = u64{g.radix[s]} + 1, lines = g.n_cells / d;
      for (u64 y0 = 0; y0 < n_pairs + 1; y0 += 65535) {
        const unsigned ny = static_cast<unsigned>(std::min<u64>(65535, n_pairs + 1 - y0));
        suffix_kernel<<<dim3(blocks_for(lines), ny), kBlock, 0, stream>>>(tables.data() + y0 * g.n_cells, g.n_cells,
                                                                          g.cell_stride[s], d);
        CUDA_CHECK_LAUNCH("trade_filter suffix_kernel");
      }
    }
  }
};

TradeFilterGridSearch::TradeFilterGridSearch(const strategies::TradeFilterStrategy& strategy)
    : impl_(std::make_unique<Impl>(strategy)) {}

TradeFilterGridSearch::~TradeFilterGridSearch() = default;

tf::GridSearchOutcome TradeFilterGridSearch::search(const tf::TradeFilterGrid& grid, const tf::GridSearchSettings& st,
                                                    std::size_t chunk_limit) {
  Impl& m = *impl_;
  const tf::GridLayout& g = grid.layout();
  if (st.top_k > kMaxTopK)
    throw Error("grid: the GPU grid search keeps at most " + std::to_string(kMaxTopK) + " best combinations (--top)");
  std::size_t budget = st.memory_budget;
  if (budget == 0) {
    std::size_t free_bytes = 0, total = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total));
    budget = free_bytes / 4;
  }
  m.fvalues.resize(grid.fvalues().size());
  m.lo.resize(grid.lo().size());
  CUDA_CHECK(cudaMemcpyAsync(m.fvalues.data(), grid.fvalues().data(), grid.fvalues().size() * sizeof(float),
                             cudaMemcpyHostToDevice, m.stream));
  CUDA_CHECK(cudaMemcpyAsync(m.lo.data(), grid.lo().data(), grid.lo().size() * sizeof(std::uint32_t),
                             cudaMemcpyHostToDevice, m.stream));
  m.reset_top(st.top_k);
  const u64 pairs = tf::grid_pairs(g);
  const u64 chunk = std::max<u64>(1, std::min<u64>(chunk_limit, g.size));
  m.reserve_chunk(chunk);
  tf::GridSearchOutcome out;
  const bool cells_ok = g.n_cells < (u64{1} << 50) && tf::cell_table_bytes(g, 1) <= budget;
  if (cells_ok) {
    m.cell.resize(std::max<u64>(1, m.data.n_trades()));
    const u64 group = std::min<u64>(pairs, budget / (g.n_cells * sizeof(ull)) - 1);
    m.tables.resize(static_cast<std::size_t>(g.n_cells * (group + 1)));
    const ull* kept = m.tables.data();
    if (group == pairs) {
      out.method = "cells";
      m.build_tables(g, 0, pairs);
      for (u64 c0 = 0; c0 < g.size; c0 += chunk) {
        const u64 n = std::min(chunk, g.size - c0);
        score_range_kernel<<<blocks_for(n), kBlock, 0, m.stream>>>(g, m.lo.data(), m.tables.data() + g.n_cells, kept,
                                                                   c0, n, st.min_trades, st.maximize, m.keys_in.data(),
                                                                   m.vals_in.data());
        CUDA_CHECK_LAUNCH("trade_filter score_range_kernel");
        m.select(n);
      }
    } else {
      out.method = "cells by pair";
      for (u64 p0 = 0; p0 < pairs; p0 += group) {
        const u64 np = std::min(group, pairs - p0);
        m.build_tables(g, p0, np);
        for (u64 p = p0; p < p0 + np; ++p)
          for (u64 f0 = 0; f0 < g.n_filter; f0 += chunk) {
            const u64 n = std::min(chunk, g.n_filter - f0);
            score_pair_kernel<<<blocks_for(n), kBlock, 0, m.stream>>>(g, m.lo.data(),
                                                                      m.tables.data() + (1 + p - p0) * g.n_cells, kept,
                                                                      p, f0, n, st.min_trades, st.maximize,
                                                                      m.keys_in.data(), m.vals_in.data());
            CUDA_CHECK_LAUNCH("trade_filter score_pair_kernel");
            m.select(n);
          }
      }
    }
  } else {
    out.method = "direct";
    const u64 direct_chunk = std::min<u64>(chunk, u64{1} << 20);
    m.acc.resize(static_cast<std::size_t>(direct_chunk * 4));
    for (u64 c0 = 0; c0 < g.size; c0 += direct_chunk) {
      const u64 n = std::min(direct_chunk, g.size - c0);
      CUDA_CHECK(cudaMemsetAsync(m.acc.data(), 0, n * 4 * sizeof(ull), m.stream));
      launch_tally_grid(m.data.arrays(), g, m.fvalues.data(), c0, n, m.acc.data(), m.stream, 128);
      keys_from_acc_kernel<<<blocks_for(n), kBlock, 0, m.stream>>>(m.acc.data(), c0, n, st.min_trades, st.maximize,
                                                                   m.keys_in.data(), m.vals_in.data());
      CUDA_CHECK_LAUNCH("trade_filter keys_from_acc_kernel");
      m.select(n);
    }
  }
  std::vector<u64> keys(m.m_run), combos(m.m_run);
  if (m.m_run > 0) {
    CUDA_CHECK(
        cudaMemcpyAsync(keys.data(), m.top_key[m.cur].data(), m.m_run * sizeof(u64), cudaMemcpyDeviceToHost, m.stream));
    CUDA_CHECK(cudaMemcpyAsync(combos.data(), m.top_val[m.cur].data(), m.m_run * sizeof(u64), cudaMemcpyDeviceToHost,
                               m.stream));
  }
  CUDA_CHECK(cudaStreamSynchronize(m.stream));
  for (u64 i = 0; i < m.m_run; ++i) out.top.push_back({keys[i], combos[i]});
  out.tallies = tally(grid, combos);
  return out;
}

std::vector<tf::Tally> TradeFilterGridSearch::tally(const tf::TradeFilterGrid& grid, const std::vector<u64>& combos) {
  Impl& m = *impl_;
  const std::size_t n = combos.size();
  std::vector<tf::Tally> out(n);
  if (n == 0) return out;
  std::vector<double> h_slots(n * tf::kSlots);
  for (std::size_t i = 0; i < n; ++i) grid.slots_of(combos[i], &h_slots[i * tf::kSlots]);
  m.slots.resize(h_slots.size());
  m.acc.resize(std::max<std::size_t>(m.acc.capacity(), n * 4));
  CUDA_CHECK(cudaMemcpyAsync(m.slots.data(), h_slots.data(), h_slots.size() * sizeof(double), cudaMemcpyHostToDevice,
                             m.stream));
  CUDA_CHECK(cudaMemsetAsync(m.acc.data(), 0, n * 4 * sizeof(ull), m.stream));
  launch_tally_batch(m.data.arrays(), m.slots.data(), n, m.acc.data(), m.stream, 128);
  std::vector<ull> h_acc(n * 4);
  CUDA_CHECK(cudaMemcpyAsync(h_acc.data(), m.acc.data(), n * 4 * sizeof(ull), cudaMemcpyDeviceToHost, m.stream));
  CUDA_CHECK(cudaStreamSynchronize(m.stream));
  for (std::size_t i = 0; i < n; ++i)
    out[i] = {static_cast<std::int64_t>(h_acc[i * 4]), static_cast<std::int64_t>(h_acc[i * 4 + 1]),
              static_cast<std::int64_t>(h_acc[i * 4 + 2]), static_cast<std::int64_t>(h_acc[i * 4 + 3])};
  return out;
}

}  // namespace tpeopt::gpu
