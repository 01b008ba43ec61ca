// The CUDA twin of strategies::ExhaustionStrategy. Every number comes from the TPEOPT_HD
// functions of strategies/exhaustion/exhaustion.hpp, as in the CPU reference.
//
// Parallel decomposition of one batch (n trials over N bars):
//  (a) per-parameter series, shared by all trials with that value and cached on the device
//      across batches (they depend only on the value and the data): the EMA of each
//      distinct span (32 spans per warp, each lane one span's sequential ema_step chain;
//      a second warp writes the previous 32-bar tile out of shared memory, coalesced), and
//      the volume and TR z-scores of each distinct z_window (parallel over (window, bar):
//      each bar's z is a pure function of the prefix sums), launched on a second stream
//      so that they overlap the EMA chains;
//  (b) filter levels: next to each z-score series a byte per bar, level(v) = the number of
//      edges e_k = -4 + k/16 (k = 1..255) below v (0 for NaN); the close location has one
//      byte per bar too (edges k/256). A trial's threshold t has the level L(t) = the
//      number of edges <= t, and v > t implies level(v) >= L(t) (every edge <= t lies
//      below v). So a bar whose three levels are not all >= the trial's is never a
//      signal: the filter only discards bars that cannot signal, and every bar it keeps
//      is decided by is_signal itself (same function, same bits as the CPU);
//  (c) the trial kernel: one warp per trial (trials ordered by z_window for L2 reuse).
//      Signal search: each lane compares 16 bars' levels at once (three 16-byte loads,
//      __vcmpgeu4), 512 bars per warp step with the next step's loads in flight; the kept
//      bars are spread over the lanes in bar order, 32 at a time, each lane loading its
//      bar's operands of is_signal and open_position at once (so that those functions'
//      one-after-another reads hit L1) and testing it with is_signal; a ballot takes the
//      first. Exit search: 64 bars in the first step, then 128, through exit_reason, a
//      ballot per 32 bars. Both finders return the same first bar as the CPU's bar-by-bar
//      scan, so trades and scores are identical. The walk waits on memory, not on
//      arithmetic: a warp's summary lives in shared memory and the kernel is built with at
//      most 80 registers, for more resident warps. The plain warp finder (every bar
//      through is_signal) and the simple kernel (one thread per trial, bar by bar) are
//      kept for parity tests.
// A batch whose distinct series do not fit in the series cache is split into parts of
// consecutive trials (same results). No atomics; each trial's sums run in trade order.
// The data and the series cache belong to a SeriesStore shared by all devices of one series
// on one GPU: the rungs of successive halving and the parts of a hold-out (blocks of bars
// of the same series) compute each series once, not once per rung. Blocked launches of few
// trials split the blocks over warps (block_unit_kernel: count, record, then each trial's
// trades summed in block order by block_units_finish), so late halving rungs are not one
// long walk per trial.
#include <algorithm>
#include <array>
#include <climits>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "strategies/device/cuda_check.cuh"
#include "strategies/device/device_buffers.hpp"
#include "strategies/device/device_trade_lists.cuh"
#include "strategies/device/host_series.cuh"
#include "strategies/device/launch_size.cuh"
#include "strategies/device/launches_in_flight.cuh"
#include "strategies/device/occupancy_probe.cuh"
#include "strategies/device/series_slots.hpp"
#include "strategies/device/symbol_aggregate.cuh"
#include "strategies/device/warp_segments.cuh"
#include "strategies/exhaustion/exhaustion.hpp"
#include "strategies/exhaustion/exhaustion_device.hpp"

namespace tpeopt::gpu {

namespace {

namespace ex = strategies::exhaustion;

constexpr unsigned kFull = 0xffffffffu;

/// Per trial of a part (in launch order): its batch index and the cache slots of its EMA
/// fast, EMA slow, volume z and TR z series.
struct TrialSlots {
  int trial, ema_fast, ema_slow, vol_z, tr_z;
};
struct EmaTask {
  int span, slot;
};
struct ZTask {
  int window, vol_slot, tr_slot;
};

// ---- filter levels (a conservative pre-test; is_signal decides) ----------------------

/// Edges of the z-score levels: -4 + k/16, k = 1..255 (exact in double).
struct ZEdge {
  __device__ __forceinline__ double operator()(int k) const { return -4.0 + static_cast<double>(k) * 0.0625; }
};
/// Edges of the close-location levels: k/256, k = 1..255 (exact in double).
struct ClocEdge {
  __device__ __forceinline__ double operator()(int k) const { return static_cast<double>(k) * (1.0 / 256.0); }
};

/// The number of edges strictly below v (0 for NaN): a bar's level.
template <typename Edge>
__device__ __forceinline__ unsigned level_of(double v, Edge edge) {
  int c = 0;
#pragma unroll
  for (int bit = 128; bit > 0; bit >>= 1)
    if (edge(c + bit) < v) c += bit;  // edges increase: the largest k with edge(k) < v
  return static_cast<unsigned>(c);
}

/// The number of edges <= t (0 for NaN): a threshold's level. v > t => level_of(v) >= this.
template <typename Edge>
__device__ __forceinline__ unsigned threshold_level(double t, Edge edge) {
  int c = 0;
#pragma unroll
  for (int bit = 128; bit > 0; bit >>= 1)
    if (edge(c + bit) <= t) c += bit;
  return static_cast<unsigned>(c);
}

/// Bars per level array: padded to a multiple of 512 plus one more 512-bar step (the
/// signal finder loads one step ahead).
std::size_t padded_bars(int n) { return (static_cast<std::size_t>(n) + 511) / 512 * 512 + 512; }

/// The device data the z-score kernel reads (prefix sums and raw series).
struct ZInputs {
  int n;
  std::size_t n_pad;
  const double *s_vol, *q_vol, *vol, *s_tr, *q_tr, *tr;
};

constexpr int kEmaTile = 32;

/// Appends the tile of bars [i0, i0 + 32) to each lane's EMA chain (lane = span) in buf.
template <bool kFirst>
__device__ __forceinline__ double ema_tile(double e, double alpha, double c, int lane, double (*buf)[kEmaTile + 1]) {
#pragma unroll
  for (int j = 0; j < kEmaTile; ++j) {
    const double cj = __shfl_sync(kFull, c, j);
    e = (kFirst && j == 0) ? cj : ex::ema_step(e, alpha, cj);  // e_0 = close_0
    buf[lane][j] = e;
  }
  return e;
}

/// Barrier 1 of the EMA block's two warps, reached from their two branches (bar.sync also
/// orders their shared-memory accesses).
__device__ __forceinline__ void tile_barrier() { asm volatile("bar.sync 1, 64;" ::: "memory"); }

/// 64 threads per block, 32 spans per block: warp 0 runs the 32 ema_step chains a tile of
/// 32 bars at a time into shared memory; warp 1 writes the previous tile out, one span's
/// 32 bars per coalesced store. One barrier per tile; two tile buffers.
__global__ void __launch_bounds__(64)
    ema_kernel(const double* close, int n, const EmaTask* tasks, int n_tasks, double* pool, OccupancyProbe probe) {
  BlockOccupancy occupancy(probe);
  __shared__ double tile[2][kEmaTile][kEmaTile + 1];
  const int warp = static_cast<int>(threadIdx.x >> 5), lane = static_cast<int>(threadIdx.x & 31u);
  const int first = static_cast<int>(blockIdx.x) * 32;
  const int rows = min(32, n_tasks - first);
  const int n_tiles = (n + kEmaTile - 1) / kEmaTile;
  if (warp == 0) {
    const double alpha = ex::ema_alpha(lane < rows ? tasks[first + lane].span : 1);
    double e = 0.0;
    double c = lane < n ? close[lane] : 0.0;
    for (int t = 0; t < n_tiles; ++t) {
      const int next = (t + 1) * kEmaTile + lane;
      const double c_next = next < n ? close[next] : 0.0;  // in flight during this tile
      if (t == 0) e = ema_tile<true>(e, alpha, c, lane, tile[0]);
      else e = ema_tile<false>(e, alpha, c, lane, tile[t & 1]);
      c = c_next;
      tile_barrier();  // tile t is complete; the writer has finished tile t - 1
    }
  } else {
    const int slot = lane < rows ? tasks[first + lane].slot : 0;
    for (int t = 0; t < n_tiles; ++t) {
      tile_barrier();  // tile t is complete
      const int i = t * kEmaTile + lane;
      for (int r = 0; r < rows; ++r) {
        const int s = __shfl_sync(kFull, slot, r);
        if (i < n) pool[static_cast<std::size_t>(s) * static_cast<std::size_t>(n) + i] = tile[t & 1][r][lane];
      }
    }
  }
}

__global__ void z_kernel(ZInputs in, const ZTask* tasks, double* pool, unsigned char* levels, OccupancyProbe probe) {
  BlockOccupancy occupancy(probe);
  const ZTask task = tasks[blockIdx.y];
  double* vz = pool + static_cast<std::size_t>(task.vol_slot) * in.n;
  double* tz = pool + static_cast<std::size_t>(task.tr_slot) * in.n;
  unsigned char* vl = levels + static_cast<std::size_t>(task.vol_slot) * in.n_pad;
  unsigned char* tl = levels + static_cast<std::size_t>(task.tr_slot) * in.n_pad;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < in.n; i += gridDim.x * blockDim.x) {
    const double v = ex::rolling_z(in.s_vol, in.q_vol, in.vol, i, task.window);
    const double t = ex::rolling_z(in.s_tr, in.q_tr, in.tr, i, task.window);
    vz[i] = v;
    tz[i] = t;
    vl[i] = static_cast<unsigned char>(level_of(v, ZEdge{}));
    tl[i] = static_cast<unsigned char>(level_of(t, ZEdge{}));
  }
}

__global__ void cloc_level_kernel(const double* cloc, int n, unsigned char* out) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    out[i] = static_cast<unsigned char>(level_of(cloc[i], ClocEdge{}));
}

/// First k in [from, to] with pred(k), 32 bars per step, the same answer on every lane.
struct WarpFinder {
  int lane;
  template <typename Pred>
  __device__ int operator()(int from, int to, Pred&& pred) const {
    for (int base = from; base <= to; base += 32) {
      const int k = base + lane;
      const bool hit = k <= to && pred(k);
      const unsigned mask = __ballot_sync(kFull, hit);
      if (mask != 0u) return base + __ffs(mask) - 1;
      if (to - base < 32) break;
    }
    return to + 1;
  }
};

/// Loads doubles ahead of the HD code that reads them next (is_signal, open_position,
/// exit_reason read one value after another, each load waiting on the last test), all at
/// once, so that those reads find them in L1. The sum is stored only when it equals `never`
/// (a NaN: never equal), which keeps the loads alive; nothing else depends on it.
struct Warmer {
  double never;
  double* sink;
  __device__ __forceinline__ void operator()(double s) const {
    if (s == never) *sink = s;
  }
};

/// First k in [from, to] with pred(k) = exit_reason(k) != kNoExit, the same answer on every
/// lane: 64 bars in the first step (2 per lane), then 128 (4 per lane), each step's open,
/// low and high loaded at once.
struct WideExitFinder {
  int lane;
  const double *open, *low, *high;
  Warmer warm;

  template <int kPerLane, typename Pred>
  __device__ __forceinline__ int step(int base, int to, Pred& pred) const {
    double s = 0.0;
#pragma unroll
    for (int m = 0; m < kPerLane; ++m) {
      const int k = base + m * 32 + lane;
      if (k <= to) s = s + open[k] + low[k] + high[k];
    }
    warm(s);
#pragma unroll
    for (int m = 0; m < kPerLane; ++m) {
      const int k = base + m * 32 + lane;
      const unsigned mask = __ballot_sync(kFull, k <= to && pred(k));
      if (mask != 0u) return base + m * 32 + __ffs(mask) - 1;
    }
    return INT_MAX;
  }

  template <typename Pred>
  __device__ int operator()(int from, int to, Pred&& pred) const {
    if (from > to) return to + 1;
    int hit = step<2>(from, to, pred);
    if (hit != INT_MAX) return hit;
    for (int base = from + 64; base <= to; base += 128) {
      hit = step<4>(base, to, pred);
      if (hit != INT_MAX) return hit;
    }
    return to + 1;
  }
};

/// One bit per byte of a __vcmpgeu4 result (0x00 or 0xff per byte).
__device__ __forceinline__ unsigned byte_bits(unsigned w) {
  return ((w >> 7) & 1u) | ((w >> 14) & 2u) | ((w >> 21) & 4u) | ((w >> 28) & 8u);
}

/// First k in [from, to] with pred(k) = is_signal(k), the same answer on every lane. Bars
/// whose levels fall short of the trial's (so pred(k) is false: see the file comment) are
/// skipped 16 per lane at a time, 512 bars per step with the next step's levels in flight;
/// the kept bars ("candidates") of a step are spread over the lanes in bar order, 32 at a
/// time, each lane loading its candidate's operands of is_signal and open_position at once,
/// then testing it with pred; a ballot takes the first. The current step's levels stay in
/// registers across calls: after an exit the search usually resumes in them.
struct FilteredSignalFinder {
  int lane;
  const uint4 *vol, *tr, *cloc;        ///< level arrays, 16 bars per uint4
  unsigned vol_min, tr_min, cloc_min;  ///< the trial's threshold levels, in all 4 bytes
  ex::Bars bars;
  ex::TrialSeries series;
  int atr_window;
  Warmer warm;
  int step = -1;  ///< the 512-bar step whose levels are in v, t, c
  uint4 v{}, t{}, c{};

  /// This lane's 16 bars of the step that pass the levels, one bit each.
  __device__ __forceinline__ unsigned kept() const {
    const unsigned w0 = __vcmpgeu4(v.x, vol_min) & __vcmpgeu4(t.x, tr_min) & __vcmpgeu4(c.x, cloc_min);
    const unsigned w1 = __vcmpgeu4(v.y, vol_min) & __vcmpgeu4(t.y, tr_min) & __vcmpgeu4(c.y, cloc_min);
    const unsigned w2 = __vcmpgeu4(v.z, vol_min) & __vcmpgeu4(t.z, tr_min) & __vcmpgeu4(c.z, cloc_min);
    const unsigned w3 = __vcmpgeu4(v.w, vol_min) & __vcmpgeu4(t.w, tr_min) & __vcmpgeu4(c.w, cloc_min);
    if ((w0 | w1 | w2 | w3) == 0u) return 0u;
    return byte_bits(w0) | (byte_bits(w1) << 4) | (byte_bits(w2) << 8) | (byte_bits(w3) << 12);
  }

  /// The first bar of the step (512 bars from h0; lane L holds bars h0 + 16 L ..) in
  /// [from, to] that passes the levels and pred, or INT_MAX; the same on every lane.
  template <typename Pred>
  __device__ __forceinline__ int step_first(unsigned bits, int h0, int from, int to, Pred& pred) const {
    const int b0 = h0 + lane * 16;
    if (b0 < from) bits &= from - b0 >= 16 ? 0u : ~0u << (from - b0);
    if (b0 + 15 > to) bits &= to < b0 ? 0u : (2u << (to - b0)) - 1u;
    if (__ballot_sync(kFull, bits != 0u) == 0u) return INT_MAX;
    // Candidates in bar order: lane L's come after those of lanes < L (exclusive prefix).
    const int count = __popc(bits);
    int incl = count;
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
      const int y = __shfl_up_sync(kFull, incl, d);
      if (lane >= d) incl += y;
    }
    const int excl = incl - count;
    const int total = __shfl_sync(kFull, incl, 31);
    for (int r = 0; r < total; r += 32) {
      const int q = r + lane;  // this lane's candidate rank
      // Its owner: the last lane whose exclusive prefix is <= q (prefixes do not decrease).
      int owner = 0;
#pragma unroll
      for (int bit = 16; bit > 0; bit >>= 1) {
        const int o = owner + bit;
        if (__shfl_sync(kFull, excl, o) <= q) owner = o;
      }
      const unsigned owner_bits = __shfl_sync(kFull, bits, owner);
      const int owner_excl = __shfl_sync(kFull, excl, owner);
      bool hit = false;
      int k = INT_MAX;
      if (q < total) {
        k = h0 + owner * 16 + static_cast<int>(__fns(owner_bits, 0, q - owner_excl + 1));
        const int a = k + 1 - atr_window;
        warm(bars.cloc[k] + series.vol_z[k] + series.tr_z[k] + series.ema_fast[k] + series.ema_slow[k] +
             bars.open[k + 1] + bars.low[k] + bars.s_tr[k + 1] + bars.s_tr[a >= 0 ? a : 0]);
        hit = pred(k);
      }
      const unsigned ballot = __ballot_sync(kFull, hit);
      if (ballot != 0u) return __shfl_sync(kFull, k, __ffs(ballot) - 1);
    }
    return INT_MAX;
  }

  template <typename Pred>
  __device__ int operator()(int from, int to, Pred&& pred) {
    if (from > to) return to + 1;
    const int last = to >> 9;
    if ((from >> 9) != step) {
      step = from >> 9;
      const int at = step * 32 + lane;
      v = vol[at];
      t = tr[at];
      c = cloc[at];
    }
    for (;;) {
      const int at = (step + 1) * 32 + lane;  // the next step's levels (the arrays are padded)
      const uint4 nv = vol[at], nt = tr[at], nc = cloc[at];
      const int hit = step_first(kept(), step << 9, from, to, pred);
      if (hit != INT_MAX) return hit;
      if (step >= last) return to + 1;
      ++step;
      v = nv;
      t = nt;
      c = nc;
    }
  }
};

struct TrialLaunch {
  ex::Bars bars;       ///< the whole series (n = its length)
  const int2* blocks;  ///< blocked strategies: [begin, end) of each block, in block order
  int n_blocks;        ///< 0: the whole series as one walk
  const double* pool;
  const unsigned char* levels;       ///< level bytes per cache slot (n_pad each; z series only)
  const unsigned char* cloc_levels;  ///< n_pad
  std::size_t n_pad;
  const TrialSlots* slots;  ///< per trial of the part, in launch order
  const double* params;     ///< batch params (n x kNumSlots)
  int count;                ///< trials in the part
  ex::Objective objective;
  int min_trades;
  double* scores;
  double* violations;
  double* metrics;
  const long long* trade_offsets;  ///< record pass: first trade's index per batch trial
  ex::Trade* trades;               ///< record pass: output
  double* equity;                  ///< optional: each trial's final compounded equity (multi-symbol portfolio)
  Warmer warm;                     ///< never = NaN, sink: a scratch double
  OccupancyProbe probe;            ///< the batch's (strategies/device/occupancy.hpp); null: not measured
  int n_metrics;                   ///< metrics per trial: ex::kNumMetrics, then the fold columns
  // Folds (Strategy::with_folds): each trade also joins the fold of its entry bar, in scratch
  // of the part's plan (folds.n summaries and sums of squares per trial, in launch order).
  strategies::FoldBars folds;  ///< n = 0: no folds
  strategies::FoldRule rule;
  int fold_compound;  ///< a fold's score is its trades' compound return (ExhaustionStrategy::fold_compound)
  ex::Summary* fold_sums;
  double* fold_sumsq;
};

/// The fold statistics of the part's trial `local` (launch order).
__device__ __forceinline__ strategies::FoldView<ex::Summary> fold_view(const TrialLaunch& L, long long local) {
  return {L.fold_sums + local * L.folds.n, L.fold_sumsq + local * L.folds.n};
}

using FoldCursor = strategies::FoldCursor<ex::Summary>;

/// Trial `local`'s folds emptied in the scratch, and its cursor holding none.
__device__ __forceinline__ void reset_trial_folds(const TrialLaunch& L, long long local, FoldCursor& c) {
  if (L.folds.n > 0) strategies::reset_folds(fold_view(L, local), L.folds.n);
  strategies::start_folds(c);
}

/// A trade of trial `local` also in its fold (strategies/trade_stats.hpp, as the CPU reference
/// adds it), through the trial's cursor.
__device__ __forceinline__ void add_trial_fold(const TrialLaunch& L, long long local, FoldCursor& c,
                                               const ex::Trade& tr) {
  if (L.folds.n > 0)
    strategies::add_fold_trade(c, fold_view(L, local), L.folds, tr.entry_bar, tr.ret,
                               [&](ex::Summary& s) { ex::add_trade(s, tr); });
}

/// The held fold back in the scratch before write_trial reads the folds.
__device__ __forceinline__ void flush_trial_folds(const TrialLaunch& L, long long local, FoldCursor& c) {
  if (L.folds.n > 0) strategies::flush_fold(c, fold_view(L, local));
}

/// The warps' fold cursors of a block, in its dynamic shared memory: a launch with folds asks
/// for fold_cursor_bytes(threads), one without asks for none, so a plain walk's kernels keep
/// the shared memory (and the L1 share of the SM) they had without folds.
__device__ __forceinline__ FoldCursor* block_fold_cursors() {
  extern __shared__ __align__(16) unsigned char fold_cursor_storage[];
  return reinterpret_cast<FoldCursor*>(fold_cursor_storage);
}

/// Dynamic shared memory of a warp kernel's block of `threads` for its warps' cursors.
inline std::size_t fold_cursor_bytes(const TrialLaunch& L, int threads) {
  return L.folds.n > 0 ? static_cast<std::size_t>((threads + 31) / 32) * sizeof(FoldCursor) : 0;
}

/// A warp's trade (every lane has it) added by lane 0 to the whole span's summary `sum` and by
/// lane 1 to its fold through the cursor `c`: the two adds are one instruction stream on two
/// lanes (the fold's costs no time of lane 0's), the same adds in the same order as
/// add_trial_fold's. `sum` and `c` live in shared memory.
__device__ __forceinline__ void add_warp_trade(const TrialLaunch& L, long long local, int lane, ex::Summary& sum,
                                               FoldCursor& c, const ex::Trade& tr) {
  if (L.folds.n == 0) {  // (uniform) the plain walk's add, alone
    if (lane == 0) ex::add_trade(sum, tr);
    return;
  }
  bool in_fold = false;
  if (lane == 1) in_fold = strategies::seek_fold(c, fold_view(L, local), L.folds, tr.entry_bar) >= 0;
  if (lane == 0 || in_fold) ex::add_trade(lane == 0 ? sum : c.s, tr);
  if (in_fold) c.sumsq = c.sumsq + tr.ret * tr.ret;
}

/// Writes a trial's results: the metrics of `all`, the fold columns, and the score (`whole`,
/// the whole span's, or the fold rule's); the CPU reference's ExhaustionStrategy::evaluate.
__device__ __forceinline__ void write_trial(const TrialLaunch& L, long long local, int trial, const ex::Summary& all,
                                            bool blocked, double blocked_score) {
  double m[ex::kNumMetrics];
  double violation = 0.0;
  const double score = ex::finish(all, L.objective, L.min_trades, m, &violation);
  double* out = L.metrics + static_cast<std::size_t>(trial) * L.n_metrics;
  double final_score = blocked ? blocked_score : score;
  if (L.folds.n > 0) {
    const ex::Objective o = L.objective;
    const bool compound = L.fold_compound != 0;
    final_score = strategies::finish_folds(
        fold_view(L, local), L.folds.n, L.rule, final_score,
        [&](const ex::Summary& s) { return compound ? s.equity - 1.0 : ex::objective_value(s, o); },
        out + ex::kNumMetrics);
  }
  L.scores[trial] = final_score;
  L.violations[trial] = violation;
  if (L.equity) L.equity[trial] = all.equity;
  for (int k = 0; k < ex::kNumMetrics; ++k) out[k] = m[k];
}

enum Mode : int { kSimple = 0, kWarp = 1, kFiltered = 2 };

/// The filtered signal finder of one trial over `bars`.
__device__ __forceinline__ FilteredSignalFinder filtered_finder(const TrialLaunch& L, const TrialSlots& s,
                                                                const ex::Params& p, const ex::TrialSeries& t, int lane,
                                                                const ex::Bars& bars) {
  return FilteredSignalFinder{lane,
                              reinterpret_cast<const uint4*>(L.levels + s.vol_z * L.n_pad),
                              reinterpret_cast<const uint4*>(L.levels + s.tr_z * L.n_pad),
                              reinterpret_cast<const uint4*>(L.cloc_levels),
                              threshold_level(p.vol_z, ZEdge{}) * 0x01010101u,
                              threshold_level(p.tr_z, ZEdge{}) * 0x01010101u,
                              threshold_level(p.cloc_min, ClocEdge{}) * 0x01010101u,
                              bars,
                              t,
                              p.atr_window,
                              L.warm};
}

/// One trial's walk over bars [bars.begin, bars.n) with the finders of kMode.
template <int kMode, typename OnTrade>
__device__ __forceinline__ void walk_bars(const TrialLaunch& L, const TrialSlots& s, const ex::Params& p,
                                          const ex::TrialSeries& t, int lane, const ex::Bars& bars,
                                          OnTrade&& on_trade) {
  if constexpr (kMode == kFiltered) {
    FilteredSignalFinder signal = filtered_finder(L, s, p, t, lane, bars);
    const WideExitFinder exit{lane, bars.open, bars.low, bars.high, L.warm};
    ex::run_backtest(bars, p, t, signal, exit, on_trade);
  } else if constexpr (kMode == kWarp) {
    ex::run_backtest(bars, p, t, WarpFinder{lane}, on_trade);
  } else {
    ex::run_backtest(bars, p, t, ex::SequentialFinder{}, on_trade);
  }
}

/// A trial's series in the cache.
__device__ __forceinline__ ex::TrialSeries trial_series(const TrialLaunch& L, const TrialSlots& s) {
  const std::size_t n = static_cast<std::size_t>(L.bars.n);
  return {L.pool + s.ema_fast * n, L.pool + s.ema_slow * n, L.pool + s.vol_z * n, L.pool + s.tr_z * n};
}

/// Blocks split over warps (few trials over many blocks: halving's late rungs, where one warp
/// per trial would leave the GPU to a few long walks). Unit u = (launch-order trial u / nb,
/// block u % nb), one warp each. Pass kCount writes each unit's number of trades; pass kRecord
/// writes its trades from unit_offsets[u] on. Then block_units_finish sums each trial's
/// trades in block order, as run_trial<kBlocked> does as it walks.
enum UnitPass : int { kCount = 0, kRecordTrades = 1 };

template <int kMode, int kPass>
__device__ __forceinline__ void run_block_unit(const TrialLaunch& L, int* counts, const long long* unit_offsets,
                                               ex::Trade* scratch) {
  BlockOccupancy occupancy(L.probe);
  const long long unit = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  if (unit >= static_cast<long long>(L.count) * L.n_blocks) return;  // uniform across a warp
  const int lane = static_cast<int>(threadIdx.x & 31u);
  const TrialSlots s = L.slots[unit / L.n_blocks];
  const int2 range = L.blocks[unit % L.n_blocks];
  const ex::Params p = ex::unpack_params(L.params + static_cast<std::size_t>(s.trial) * ex::kNumSlots);
  const ex::Bars bars = ex::block_bars(L.bars, range.x, range.y);
  const long long first = kPass == kRecordTrades ? unit_offsets[unit] : 0;
  int c = 0;
  walk_bars<kMode>(L, s, p, trial_series(L, s), lane, bars, [&](const ex::Trade& tr) {
    if (kPass == kRecordTrades && lane == 0) scratch[first + c] = tr;
    ++c;
  });
  if (kPass == kCount && lane == 0) counts[unit] = c;
}

template <int kMode, int kPass>
__global__ void block_unit_kernel(TrialLaunch L, int* counts, const long long* unit_offsets, ex::Trade* scratch) {
  run_block_unit<kMode, kPass>(L, counts, unit_offsets, scratch);
}

template <int kPass>
__global__ void __maxnreg__(80)
    block_unit_kernel_capped(TrialLaunch L, int* counts, const long long* unit_offsets, ex::Trade* scratch) {
  run_block_unit<kFiltered, kPass>(L, counts, unit_offsets, scratch);
}

/// One thread per trial: its units' trades in block order through the summaries (the same
/// adds, in the same order, as run_trial<kBlocked>), scores, metrics and (when recording)
/// the trade list.
__global__ void block_units_finish(TrialLaunch L, const long long* unit_offsets, const ex::Trade* scratch) {
  BlockOccupancy occupancy(L.probe);
  const long long local = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (local >= L.count) return;
  const int trial = L.slots[local].trial;
  ex::Summary all;
  ex::BlockedScore blocked;
  FoldCursor fold;
  reset_trial_folds(L, local, fold);
  long long out = L.trades ? L.trade_offsets[trial] : 0;
  for (int k = 0; k < L.n_blocks; ++k) {
    const long long u = local * L.n_blocks + k;
    for (long long q = unit_offsets[u]; q < unit_offsets[u + 1]; ++q) {
      const ex::Trade tr = scratch[q];
      ex::add_trade(all, tr);
      ex::add_block_trade(blocked, tr);
      add_trial_fold(L, local, fold, tr);
      if (L.trades) L.trades[out++] = tr;
    }
    ex::end_block(blocked, L.objective);
  }
  flush_trial_folds(L, local, fold);
  write_trial(L, local, trial, all, true, blocked.score);
}

/// One trial's backtest. Unblocked: one walk over the series, score = finish(summary).
/// Blocked (kBlocked, docs/strategies.md, "Data subsets"): one walk per block in block order, each starting
/// flat and closing at its last bar; the score is 0.0 + the blocks' objective values added
/// in block order, the violation and metrics those of one summary over all the trades (the
/// CPU reference's ExhaustionStrategy::evaluate).
template <int kMode, bool kRecord, bool kBlocked>
__device__ __forceinline__ void run_trial(const TrialLaunch& L) {
  constexpr bool kByWarp = kMode != kSimple;
  BlockOccupancy occupancy(L.probe);
  // A warp's running summaries live in shared memory (lane 0 updates them): registers go
  // to the finders' state instead.
  __shared__ ex::Summary warp_sums[kByWarp ? 32 : 1];
  __shared__ ex::BlockedScore warp_blocked[kByWarp && kBlocked ? 32 : 1];
  const long long gid = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const long long local = kByWarp ? gid / 32 : gid;
  if (local >= L.count) return;  // uniform across a warp in the warp kernels
  const int lane = kByWarp ? static_cast<int>(threadIdx.x & 31u) : 0;
  const TrialSlots s = L.slots[local];
  const int trial = s.trial;
  const ex::Params p = ex::unpack_params(L.params + static_cast<std::size_t>(trial) * ex::kNumSlots);
  const ex::TrialSeries t = trial_series(L, s);
  ex::Summary own;
  ex::BlockedScore own_blocked;
  FoldCursor own_fold;
  ex::Summary& sum = kByWarp ? warp_sums[threadIdx.x >> 5] : own;
  ex::BlockedScore& blocked = kByWarp && kBlocked ? warp_blocked[threadIdx.x >> 5] : own_blocked;
  // A launch without folds has no cursor storage: its warps use their own, which only
  // start_folds touches.
  FoldCursor& fold = kByWarp && L.folds.n > 0 ? block_fold_cursors()[threadIdx.x >> 5] : own_fold;
  if (kByWarp && lane == 0) {
    sum = ex::Summary{};
    if constexpr (kBlocked) blocked = ex::BlockedScore{};
  }
  if (lane == 0) reset_trial_folds(L, local, fold);
  if constexpr (kByWarp) __syncwarp();  // lane 1 adds to the folds lane 0 emptied
  long long out = kRecord ? L.trade_offsets[trial] : 0;
  auto on_trade = [&](const ex::Trade& tr) {
    if constexpr (kByWarp) {
      add_warp_trade(L, local, lane, sum, fold, tr);
      if constexpr (kBlocked)
        if (lane == 0) ex::add_block_trade(blocked, tr);
    } else {
      ex::add_trade(sum, tr);
      if constexpr (kBlocked) ex::add_block_trade(blocked, tr);
      add_trial_fold(L, local, fold, tr);
    }
    if (kRecord && lane == 0) L.trades[out] = tr;
    if (kRecord) ++out;
  };
  auto walk = [&](const ex::Bars& bars) { walk_bars<kMode>(L, s, p, t, lane, bars, on_trade); };
  if constexpr (kBlocked) {
    for (int k = 0; k < L.n_blocks; ++k) {
      const int2 range = L.blocks[k];
      walk(ex::block_bars(L.bars, range.x, range.y));
      if (lane == 0) ex::end_block(blocked, L.objective);
    }
  } else {
    walk(L.bars);
  }
  if (!kByWarp || lane == 1) flush_trial_folds(L, local, fold);
  if constexpr (kByWarp) __syncwarp();  // lane 0 reads the folds lane 1 wrote back
  if (lane == 0) write_trial(L, local, trial, sum, kBlocked, kBlocked ? blocked.score : 0.0);
}

template <int kMode, bool kRecord, bool kBlocked>
__global__ void trial_kernel(TrialLaunch L) {
  run_trial<kMode, kRecord, kBlocked>(L);
}

/// The filtered kernel with at most 80 registers per thread: 24 resident warps per SM
/// instead of 16 (the trial walk waits on memory; ~100 bytes spill, to L1).
template <bool kRecord, bool kBlocked>
__global__ void __maxnreg__(80) filtered_kernel_capped(TrialLaunch L) {
  run_trial<kFiltered, kRecord, kBlocked>(L);
}

/// Launches trial_kernel<kMode, record, blocked> (or the capped filtered build) over
/// `total_threads` threads, in blocks of the requested size or the most the kernel's
/// registers allow (launch_size.cuh).
template <int kMode, bool kCapped>
void launch_trial_kernel(bool record, bool blocked, long long total_threads, int requested, cudaStream_t stream,
                         const TrialLaunch& L) {
  auto go = [&](auto kernel) {
    const int threads = launchable_block_size(kernel, requested);
    const std::size_t smem = kMode == kSimple ? 0 : fold_cursor_bytes(L, threads);
    kernel<<<blocks_covering(total_threads, threads), threads, smem, stream>>>(L);
  };
  if constexpr (kCapped) {
    if (record) blocked ? go(filtered_kernel_capped<true, true>) : go(filtered_kernel_capped<true, false>);
    else blocked ? go(filtered_kernel_capped<false, true>) : go(filtered_kernel_capped<false, false>);
  } else {
    if (record) blocked ? go(trial_kernel<kMode, true, true>) : go(trial_kernel<kMode, true, false>);
    else blocked ? go(trial_kernel<kMode, false, true>) : go(trial_kernel<kMode, false, false>);
  }
}

// ---- segmented walks (exhaustion.hpp: walk_segment, stitch_segments) -------------------
// A launch of few trials over a long series would end with its heaviest walks alone on a
// few SMs. Each trial's walk is cut into G segments instead, walked at once by one warp
// each (segment_kernel: warps take units from a queue, so the last units are shared among
// the SMs that are free); then one warp per trial stitches its segments in order and sums
// its trades (stitch_kernel). Same trades, same sums, same bits as the one-walk kernel.

constexpr int kSegmentThreads = 128;             ///< segment_kernel's block size
constexpr long long kUnitsPerResidentWarp = 40;  ///< auto segments: units per resident warp
constexpr long long kMinSegmentBars = 512;       ///< auto segments: at least this many bars each
constexpr long long kMaxSegments = 64;           ///< auto segments: at most this many per trial
constexpr long long kMaxPairBytes = 1ll << 30;   ///< a launch's recorded trade bars take at most this

/// A launch's segmented walk: unit u = (launch-order trial u / G, segment u % G), each with
/// room for `room` trades' bars.
struct SegmentLaunch {
  int G;
  int room;
  int units;
  int* next;           ///< the queue: the next unit to take (0 at launch)
  int4* records;       ///< per unit: count, end, complete (exhaustion::SegmentRecord)
  ex::BarPair* pairs;  ///< per unit: room pairs
};

/// Segment g's first bar: cut(0) = begin, cut(G) = n - 1 (where the walk's signals end).
__device__ __forceinline__ int segment_cut(const ex::Bars& b, int G, int g) {
  return strategies::segments::cut_at(b.begin, b.n - 1, G, g);
}

__global__ void __maxnreg__(80) segment_kernel(TrialLaunch L, SegmentLaunch S) {
  BlockOccupancy occupancy(L.probe);
  const int lane = static_cast<int>(threadIdx.x & 31u);
  for (;;) {
    int u = 0;
    if (lane == 0) u = atomicAdd(S.next, 1);
    u = __shfl_sync(kFull, u, 0);
    if (u >= S.units) break;
    const int local = u / S.G, g = u % S.G;
    const TrialSlots s = L.slots[local];
    const ex::Params p = ex::unpack_params(L.params + static_cast<std::size_t>(s.trial) * ex::kNumSlots);
    const ex::TrialSeries t = trial_series(L, s);
    FilteredSignalFinder signal = filtered_finder(L, s, p, t, lane, L.bars);
    const WideExitFinder exit{lane, L.bars.open, L.bars.low, L.bars.high, L.warm};
    record_segment(strategies::segments::walk_of(L.bars, p, t, signal, exit), segment_cut(L.bars, S.G, g),
                   segment_cut(L.bars, S.G, g + 1), S.room, lane,
                   S.pairs + static_cast<std::size_t>(u) * static_cast<std::size_t>(S.room), S.records + u);
  }
}

/// One warp per trial: its segments stitched in order (the recorded trades made again from
/// their bars 32 at a time, one per lane, then added in trade order by lane 0), its scores
/// and metrics.
__global__ void __maxnreg__(80) stitch_kernel(TrialLaunch L, SegmentLaunch S) {
  BlockOccupancy occupancy(L.probe);
  __shared__ ex::Summary warp_sums[32];
  const long long local = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  if (local >= L.count) return;  // uniform across a warp
  const int lane = static_cast<int>(threadIdx.x & 31u);
  const TrialSlots s = L.slots[local];
  const int trial = s.trial;
  const ex::Params p = ex::unpack_params(L.params + static_cast<std::size_t>(trial) * ex::kNumSlots);
  const ex::TrialSeries t = trial_series(L, s);
  ex::Summary& sum = warp_sums[threadIdx.x >> 5];
  FoldCursor own_fold;  // a launch without folds: a cursor nothing adds to
  FoldCursor& fold = L.folds.n > 0 ? block_fold_cursors()[threadIdx.x >> 5] : own_fold;
  if (lane == 0) {
    sum = ex::Summary{};
    reset_trial_folds(L, local, fold);
  }
  __syncwarp();  // lane 1 adds to the folds lane 0 emptied
  FilteredSignalFinder signal = filtered_finder(L, s, p, t, lane, L.bars);
  const WideExitFinder exit{lane, L.bars.open, L.bars.low, L.bars.high, L.warm};
  auto on_trade = [&](const ex::Trade& tr) { add_warp_trade(L, local, lane, sum, fold, tr); };
  auto adopt = [&](const ex::SegmentRecord& r, int k) {
    adopt_on_lanes(
        r, k, lane, [&](const ex::BarPair& bp) { return ex::replay_trade(L.bars, p, bp); }, on_trade);
  };
  const long long first_unit = local * S.G;
  ex::stitch_segments(
      L.bars, p, t, S.G, [&](int g) { return segment_cut(L.bars, S.G, g); },
      [&](int g) { return read_segment(S.records, S.pairs, first_unit + g, S.room); }, signal, exit, on_trade, adopt);
  if (lane == 1) flush_trial_folds(L, local, fold);
  __syncwarp();  // lane 0 reads the folds lane 1 wrote back
  if (lane == 0) write_trial(L, local, trial, sum, false, 0.0);
}

template <typename T>
DeviceBuffer<T> upload(const std::vector<T>& h, cudaStream_t stream) {
  DeviceBuffer<T> d(std::max<std::size_t>(1, h.size()));
  CUDA_CHECK(cudaMemcpyAsync(d.data(), h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice, stream));
  return d;
}

/// A staging area for one part's plan: pinned host memory, its device copy, the event after
/// its upload (the host may rewrite the pinned copy after it) and the event after the part's
/// kernels (the device copy may be rewritten after it: launches overlap on the device).
struct PlanStage {
  PinnedBuffer<char> h;
  DeviceBuffer<char> d;
  cudaEvent_t uploaded{}, done{};
  bool used = false;
};

/// The device scratch of one segmented launch (SegmentLaunch) and the event after its kernels.
struct SegmentScratch {
  DeviceBuffer<int> next;
  DeviceBuffer<int4> records;
  DeviceBuffer<ex::BarPair> pairs;
  cudaEvent_t done{};
  bool used = false;
};

/// Series key -> value: values below kDense in flat tables (one per kind), others in a map.
/// (A batch of 65,536 trials makes 262,144 lookups; flat tables keep that to ~1 ms.)
template <typename V>
class KeyTable {
 public:
  static constexpr int kKinds = 3, kDense = 1 << 16;
  explicit KeyTable(V empty) : empty_(empty) {
    for (auto& d : dense_) d.assign(kDense, empty);
  }
  V get(int kind, int value) const {
    if (value >= 0 && value < kDense) return dense_[kind][value];
    const auto it = sparse_.find(sparse_key(kind, value));
    return it == sparse_.end() ? empty_ : it->second;
  }
  void set(int kind, int value, V v) {
    if (value >= 0 && value < kDense) dense_[kind][value] = v;
    else if (v == empty_) sparse_.erase(sparse_key(kind, value));
    else sparse_[sparse_key(kind, value)] = v;
  }
  void clear() {
    for (auto& d : dense_) std::fill(d.begin(), d.end(), empty_);
    sparse_.clear();
  }

 private:
  static std::uint64_t sparse_key(int kind, int value) {
    return (static_cast<std::uint64_t>(kind) << 32) | static_cast<std::uint32_t>(value);
  }
  V empty_;
  std::array<std::vector<V>, kKinds> dense_;
  std::unordered_map<std::uint64_t, V> sparse_;
};

/// What one device strategy adds to a launch over the shared series: how it scores, its
/// blocks of bars, and which kernel runs.
struct StrategyLaunch {
  ex::Objective objective;
  int min_trades;
  const int2* blocks;  ///< device, n_blocks of them
  int n_blocks;
  ExhaustionDeviceOptions options;
  strategies::FoldBars folds{};  ///< device edges; n = 0: no folds
  strategies::FoldRule rule{};
  int fold_compound = 0;  ///< ExhaustionStrategy::fold_compound
  int n_metrics = ex::kNumMetrics;
};

/// One candle series on one GPU: its device copies and the cache of per-parameter series
/// (EMAs, z-scores and their filter levels). Shared by every ExhaustionDevice of that series
/// on that GPU (halving's rungs and hold-out parts are the same series over other blocks),
/// so the data is uploaded once and each series computed once. Launches are planned one at a
/// time (a mutex) and may run at once on different streams (the executor's batches overlap
/// on the device); what they share is ordered by events:
///  - a launch's stream waits for the series of the launches before it (series_ready_);
///  - a launch that evicts a cached series waits for every launch still in flight that
///    read it (SeriesSlots::place says which parts did; launches_ knows their launches:
///    strategies/device/launches_in_flight.cuh);
///    growing the pool waits for all of them;
///  - a plan stage's device copy and a segmented launch's scratch are rewritten only after
///    the kernels that read them (their `done` events).
class SeriesStore {
 public:
  SeriesStore(const strategies::ExhaustionStrategy& s, cudaStream_t stream, const ExhaustionDeviceOptions& o)
      : options_(o), n_(s.n_bars()), n_pad_(padded_bars(s.n_bars())), in_part_(0) {
    const auto& c = s.candles();
    h_close_ = c.close;
    d_open_ = upload(c.open, stream);
    d_high_ = upload(c.high, stream);
    d_low_ = upload(c.low, stream);
    d_close_ = upload(c.close, stream);
    d_vol_ = upload(c.volume, stream);
    d_cloc_ = upload(s.cloc(), stream);
    d_tr_ = upload(s.true_range(), stream);
    d_s_tr_ = upload(s.s_tr(), stream);
    d_q_tr_ = upload(s.q_tr(), stream);
    d_s_vol_ = upload(s.s_vol(), stream);
    d_q_vol_ = upload(s.q_vol(), stream);
    d_sink_ = DeviceBuffer<double>(1);
    d_cloc_levels_ = DeviceBuffer<unsigned char>(n_pad_);
    CUDA_CHECK(cudaMemsetAsync(d_cloc_levels_.data(), 0, n_pad_, stream));
    cloc_level_kernel<<<static_cast<unsigned>(std::min<long long>((n_ + 255) / 256, 4096)), 256, 0, stream>>>(
        d_cloc_.data(), n_, d_cloc_levels_.data());
    CUDA_CHECK_LAUNCH("cloc_level_kernel");
    CUDA_CHECK(cudaStreamSynchronize(stream));  // host vectors may go once the copies are done
    std::size_t free_bytes = 0, total_bytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    // Leave room for batch buffers and trade lists: the cache takes at most 60% of what is free.
    const std::size_t series_bytes = static_cast<std::size_t>(n_) * sizeof(double) + n_pad_;
    std::size_t cap = static_cast<std::size_t>(0.6 * static_cast<double>(free_bytes)) / series_bytes;
    cap = std::min<std::size_t>(cap, 1u << 16);
    if (options_.max_series > 0) cap = std::min(cap, options_.max_series);
    if (cap < 3)
      throw Error("executor cuda: not enough device memory for the exhaustion series of " + std::to_string(n_) +
                  " bars (" + std::to_string(free_bytes >> 20) + " MiB free; need 3 x " +
                  std::to_string(series_bytes >> 20) + " MiB)");
    slots_ = SeriesSlots<SeriesKey, ResidentTable>(cap);
    for (auto& st : stages_) {
      CUDA_CHECK(cudaEventCreateWithFlags(&st.uploaded, cudaEventDisableTiming));
      CUDA_CHECK(cudaEventCreateWithFlags(&st.done, cudaEventDisableTiming));
    }
    for (auto& sc : scratch_) CUDA_CHECK(cudaEventCreateWithFlags(&sc.done, cudaEventDisableTiming));
    CUDA_CHECK(cudaStreamCreateWithFlags(&aux_, cudaStreamNonBlocking));
    CUDA_CHECK(cudaEventCreateWithFlags(&fork_, cudaEventDisableTiming));
    CUDA_CHECK(cudaEventCreateWithFlags(&join_, cudaEventDisableTiming));
    CUDA_CHECK(cudaEventCreateWithFlags(&series_ready_, cudaEventDisableTiming));
    CUDA_CHECK(cudaEventCreateWithFlags(&split_done_, cudaEventDisableTiming));
    int device = 0, sms = 0, per_sm = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, segment_kernel, kSegmentThreads, 0));
    resident_segment_blocks_ = std::max(1, sms * per_sm);
  }

  ~SeriesStore() {
    launches_.wait_quietly();
    if (aux_) cudaStreamSynchronize(aux_);
    for (auto& st : stages_) {
      if (st.uploaded) cudaEventDestroy(st.uploaded);
      if (st.done) cudaEventDestroy(st.done);
    }
    for (auto& sc : scratch_)
      if (sc.done) cudaEventDestroy(sc.done);
    for (cudaEvent_t e : {fork_, join_, series_ready_, split_done_})
      if (e) cudaEventDestroy(e);
    if (aux_) cudaStreamDestroy(aux_);
  }

  /// Backtests a batch for one strategy S: trade_offsets[i] is trial i's first trade index
  /// when trades are recorded; d_equity (optional): each trial's final compounded equity.
  void run(const DeviceBatch& batch, cudaStream_t stream, int block_size, const StrategyLaunch& S,
           const long long* d_trade_offsets, ex::Trade* d_trades, double* d_equity) {
    const std::size_t n = batch.n;
    if (n == 0) return;
    TPEOPT_ASSERT(batch.host_params != nullptr, "exhaustion: the batch has no host copy of its parameters");
    std::lock_guard<std::mutex> lock(mutex_);
    launches_.retire();
    // The series this launch reads may come from earlier launches, on other streams. Always,
    // not only when the stream differs: a stream handle can be reused after the one that made
    // the last launch is destroyed (waiting on the same stream costs nothing).
    if (series_recorded_) CUDA_CHECK(cudaStreamWaitEvent(stream, series_ready_, 0));
    const std::uint64_t first_part = slots_.part() + 1;
    ++batch_counter_;
    keys_.resize(n);
    for (std::size_t i = 0; i < n; ++i) keys_[i] = trial_keys(batch.host_params + i * ex::kNumSlots);
    std::size_t begin = 0;
    while (begin < n) {
      // Grow the part while its distinct series fit in the cache.
      ++part_stamp_;
      std::vector<SeriesKey> part_keys;
      std::size_t end = begin;
      while (end < n) {
        if (part_keys.size() + new_series(keys_[end]) > slots_.max_slots()) break;
        for (const SeriesKey& k : keys_[end]) {
          if (in_part_.get(k.kind, k.value) == part_stamp_) continue;
          in_part_.set(k.kind, k.value, part_stamp_);
          part_keys.push_back(k);
        }
        ++end;
      }
      TPEOPT_ASSERT(end > begin, "exhaustion: a trial needs more series than the cache holds");
      run_part(batch, begin, end, part_keys, stream, block_size, S, d_trade_offsets, d_trades, d_equity);
      begin = end;
    }
    launches_.record(first_part, slots_.part(), stream);
  }

 private:
  /// A cached series: kind 0 the EMA of a span, 1 the volume z of a window, 2 the TR z.
  struct SeriesKey {
    int kind, value;
    bool operator==(const SeriesKey& o) const { return kind == o.kind && value == o.value; }
  };
  /// SeriesSlots' table of resident series: KeyTable's flat arrays (a batch of 65,536
  /// trials looks 262,144 series up).
  class ResidentTable {
   public:
    int find(const SeriesKey& k) const { return table_.get(k.kind, k.value); }
    void assign(const SeriesKey& k, int slot) { table_.set(k.kind, k.value, slot); }
    void erase(const SeriesKey& k) { table_.set(k.kind, k.value, -1); }
    void clear() { table_.clear(); }

   private:
    KeyTable<int> table_{-1};
  };
  using TrialKeys = std::array<SeriesKey, 4>;
  static TrialKeys trial_keys(const double* v) {
    const ex::Params p = ex::unpack_params(v);
    return {SeriesKey{0, p.ema_fast}, SeriesKey{0, p.ema_slow}, SeriesKey{1, p.z_window}, SeriesKey{2, p.z_window}};
  }
  /// The number of distinct series of a trial that the current part does not have yet.
  std::size_t new_series(const TrialKeys& k) const {
    std::size_t c = 0;
    for (int a = 0; a < 4; ++a) {
      bool dup = in_part_.get(k[a].kind, k[a].value) == part_stamp_;
      for (int b = 0; b < a; ++b) dup = dup || k[b] == k[a];
      c += dup ? 0 : 1;
    }
    return c;
  }

  /// Room in the pool for `slots` series (a grown pool holds none).
  void ensure_pool(std::size_t slots, cudaStream_t stream) {
    if (!slots_.reserve(slots)) return;
    const std::size_t grown = slots_.slots();
    // Kernels of earlier launches, this one's earlier parts included, may still read the old pool.
    launches_.synchronize();
    CUDA_CHECK(cudaStreamSynchronize(stream));
    pool_ = DeviceBuffer<double>();
    levels_ = DeviceBuffer<unsigned char>();
    pool_ = DeviceBuffer<double>(grown * static_cast<std::size_t>(n_));
    levels_ = DeviceBuffer<unsigned char>(grown * n_pad_);
    CUDA_CHECK(cudaMemsetAsync(levels_.data(), 0, grown * n_pad_, stream));  // the padding is read, never used
  }

  int resident(const SeriesKey& k) const { return slots_.slot(k); }

  void run_part(const DeviceBatch& batch, std::size_t begin, std::size_t end, const std::vector<SeriesKey>& keys,
                cudaStream_t stream, int block_size, const StrategyLaunch& S, const long long* d_trade_offsets,
                ex::Trade* d_trades, double* d_equity) {
    ensure_pool(keys.size(), stream);
    std::vector<EmaTask> ema_tasks;
    std::vector<ZTask> z_tasks;
    std::unordered_map<int, ZTask> z_by_window;
    std::vector<int> z_windows;
    // The part's resident series stay; missing ones take the least recently used slots, once
    // the launches still reading what those held are done.
    std::uint64_t evicted_use = 0;
    const auto placed = slots_.place(keys, &evicted_use);
    if (evicted_use > 0) launches_.wait_for_readers(evicted_use, stream);
    for (const auto& [k, slot] : placed) {
      if (k.kind == 0) {
        ema_tasks.push_back({k.value, slot});
      } else {
        auto [it, inserted] = z_by_window.try_emplace(k.value, ZTask{k.value, -1, -1});
        if (inserted) z_windows.push_back(k.value);
        (k.kind == 1 ? it->second.vol_slot : it->second.tr_slot) = slot;
      }
    }
    for (const int w : z_windows) {
      ZTask& z = z_by_window.at(w);
      // A window whose other z series is resident is recomputed into its slot too (same bits).
      if (z.vol_slot < 0) z.vol_slot = resident(SeriesKey{1, w});
      if (z.tr_slot < 0) z.tr_slot = resident(SeriesKey{2, w});
      z_tasks.push_back(z);
    }
    // Trials in launch order: grouped by z_window (counting sort on the volume-z slot), so
    // that the warps reading one window's levels run together and share them in L2.
    const std::size_t count = end - begin;
    std::vector<TrialSlots> slots(count);
    std::vector<int> bucket(slots_.slots() + 1, 0);
    for (std::size_t i = 0; i < count; ++i) {
      const TrialKeys& k = keys_[begin + i];
      slots[i] = {static_cast<int>(begin + i), resident(k[0]), resident(k[1]), resident(k[2]), resident(k[3])};
      ++bucket[static_cast<std::size_t>(slots[i].vol_z) + 1];
    }
    for (std::size_t b = 1; b <= slots_.slots(); ++b) bucket[b] += bucket[b - 1];
    std::vector<TrialSlots> ordered(count);
    for (std::size_t i = 0; i < count; ++i) ordered[static_cast<std::size_t>(bucket[slots[i].vol_z]++)] = slots[i];

    // Stage the plan in pinned memory (a ring of stages guarded by events) and upload it.
    const std::size_t b_slots = count * sizeof(TrialSlots), b_ema = ema_tasks.size() * sizeof(EmaTask),
                      b_z = z_tasks.size() * sizeof(ZTask);
    const std::size_t o_ema = align(b_slots), o_z = o_ema + align(b_ema), plan_bytes = o_z + align(b_z);
    // Folds: the part's fold statistics live after the plan (scratch, guarded by the stage's events).
    const std::size_t K = static_cast<std::size_t>(S.folds.n);
    const std::size_t o_fold_sums = plan_bytes, o_fold_sumsq = o_fold_sums + align(count * K * sizeof(ex::Summary));
    const std::size_t total = o_fold_sumsq + align(count * K * sizeof(double));
    PlanStage& st = stages_[stage_next_];
    stage_next_ = (stage_next_ + 1) % stages_.size();
    if (st.used) {
      CUDA_CHECK(cudaEventSynchronize(st.uploaded));  // the pinned copy is free again
      // The device copy is rewritten (or freed, when it grows) once its kernels are done.
      if (st.d.capacity() < total) CUDA_CHECK(cudaEventSynchronize(st.done));
      else CUDA_CHECK(cudaStreamWaitEvent(stream, st.done, 0));
    }
    st.h.resize(plan_bytes);
    std::copy_n(reinterpret_cast<const char*>(ordered.data()), b_slots, st.h.data());
    std::copy_n(reinterpret_cast<const char*>(ema_tasks.data()), b_ema, st.h.data() + o_ema);
    std::copy_n(reinterpret_cast<const char*>(z_tasks.data()), b_z, st.h.data() + o_z);
    st.d.resize(total);
    CUDA_CHECK(cudaMemcpyAsync(st.d.data(), st.h.data(), plan_bytes, cudaMemcpyHostToDevice, stream));
    CUDA_CHECK(cudaEventRecord(st.uploaded, stream));
    st.used = true;
    const char* plan = st.d.data();

    // The z-scores on the second stream, overlapping the EMA chains (they write other slots).
    if (!z_tasks.empty()) {
      CUDA_CHECK(cudaEventRecord(fork_, stream));
      CUDA_CHECK(cudaStreamWaitEvent(aux_, fork_, 0));
      const ZInputs in{
          n_, n_pad_, d_s_vol_.data(), d_q_vol_.data(), d_vol_.data(), d_s_tr_.data(), d_q_tr_.data(), d_tr_.data()};
      const int threads = 256;
      const unsigned bx = static_cast<unsigned>(std::min<long long>((n_ + threads - 1) / threads, 1024));
      z_kernel<<<dim3(bx, static_cast<unsigned>(z_tasks.size())), threads, 0, aux_>>>(
          in, reinterpret_cast<const ZTask*>(plan + o_z), pool_.data(), levels_.data(), batch.probe);
      CUDA_CHECK_LAUNCH("z_kernel");
      CUDA_CHECK(cudaEventRecord(join_, aux_));
    }
    if (!ema_tasks.empty()) {
      if (ema_on_host(ema_tasks.size(), S.options)) {
        host_emas(ema_tasks, stream);
      } else {
        const unsigned blocks = static_cast<unsigned>((ema_tasks.size() + 31) / 32);
        ema_kernel<<<blocks, 64, 0, stream>>>(d_close_.data(), n_, reinterpret_cast<const EmaTask*>(plan + o_ema),
                                              static_cast<int>(ema_tasks.size()), pool_.data(), batch.probe);
        CUDA_CHECK_LAUNCH("ema_kernel");
      }
    }
    if (!z_tasks.empty()) CUDA_CHECK(cudaStreamWaitEvent(stream, join_, 0));
    // Later launches read this part's series once they are written, whatever their stream.
    CUDA_CHECK(cudaEventRecord(series_ready_, stream));
    series_recorded_ = true;

    TrialLaunch L;
    L.bars.n = n_;
    L.bars.open = d_open_.data();
    L.bars.high = d_high_.data();
    L.bars.low = d_low_.data();
    L.bars.close = d_close_.data();
    L.bars.cloc = d_cloc_.data();
    L.bars.s_tr = d_s_tr_.data();
    L.pool = pool_.data();
    L.levels = levels_.data();
    L.cloc_levels = d_cloc_levels_.data();
    L.n_pad = n_pad_;
    L.slots = reinterpret_cast<const TrialSlots*>(plan);
    L.params = batch.params;
    L.count = static_cast<int>(count);
    L.objective = S.objective;
    L.min_trades = S.min_trades;
    L.scores = batch.scores;
    L.violations = batch.violations;
    L.metrics = batch.metrics;
    L.trade_offsets = d_trade_offsets;
    L.trades = d_trades;
    L.equity = d_equity;
    L.warm = Warmer{std::numeric_limits<double>::quiet_NaN(), d_sink_.data()};
    L.blocks = S.blocks;
    L.n_blocks = S.n_blocks;
    L.probe = batch.probe;
    L.n_metrics = S.n_metrics;
    L.folds = S.folds;
    L.rule = S.rule;
    L.fold_compound = S.fold_compound;
    L.fold_sums = reinterpret_cast<ex::Summary*>(st.d.data() + o_fold_sums);
    L.fold_sumsq = reinterpret_cast<double*>(st.d.data() + o_fold_sumsq);
    launch_trials(L, S, count, block_size, stream);
    CUDA_CHECK(cudaEventRecord(st.done, stream));  // the plan's device copy may be rewritten after this
  }

  /// The trial kernels of a part whose plan and series are on the device.
  void launch_trials(const TrialLaunch& L, const StrategyLaunch& S, std::size_t count, int block_size,
                     cudaStream_t stream) {
    const bool record = L.trades != nullptr;
    const bool blocked = S.n_blocks > 0;
    const ExhaustionDeviceOptions& options = S.options;
    const int threads = (std::max(32, std::min(1024, block_size)) + 31) / 32 * 32;  // whole warps
    using Split = ExhaustionDeviceOptions::SplitBlocks;
    const bool split = blocked && options.warp_per_trial && options.split_blocks != Split::Never &&
                       (options.split_blocks == Split::Always || (count < 1024 && S.n_blocks > 1));
    if (split) {
      run_split(L, options, threads, stream);
      return;
    }
    if (options.warp_per_trial && options.filter && !record && !blocked) {
      if (const int G = segments_for(count, options); G > 1) {
        run_segmented(L, options, G, count, threads, stream);
        return;
      }
    }
    if (options.warp_per_trial) {
      const long long total_threads = static_cast<long long>(count) * 32;
      if (options.filter && options.cap_registers)
        launch_trial_kernel<kFiltered, true>(record, blocked, total_threads, threads, stream, L);
      else if (options.filter)
        launch_trial_kernel<kFiltered, false>(record, blocked, total_threads, threads, stream, L);
      else launch_trial_kernel<kWarp, false>(record, blocked, total_threads, threads, stream, L);
    } else {
      launch_trial_kernel<kSimple, false>(record, blocked, static_cast<long long>(count), threads, stream, L);
    }
    CUDA_CHECK_LAUNCH("exhaustion trial_kernel");
  }

  static std::size_t align(std::size_t b) { return (b + 255) / 256 * 256; }

  /// A few new EMA spans are computed on the host (ExhaustionDeviceOptions::ema_on): one
  /// chain of n dependent steps takes a CPU core ~4 ns a step and a GPU lane ~20 (18 ms for
  /// 1,000,000 bars), during which the launch's trials would wait; many spans go to the
  /// device, 32 chains per warp.
  static bool ema_on_host(std::size_t new_spans, const ExhaustionDeviceOptions& o) {
    using EmaOn = ExhaustionDeviceOptions::EmaOn;
    if (o.ema_on == EmaOn::Host) return true;
    if (o.ema_on == EmaOn::Device) return false;
    return gpu::few_enough_for_host(new_spans);
  }

  /// The EMAs of `tasks` computed on the host by the CPU reference's function (the same
  /// bits) and uploaded into their slots (strategies/device/host_series.cuh).
  void host_emas(const std::vector<EmaTask>& tasks, cudaStream_t stream) {
    gpu::upload_host_series(tasks, static_cast<std::size_t>(n_), pool_.data(), stream,
                            [&](const EmaTask& t, double* out) { ex::ema_series(h_close_.data(), n_, t.span, out); });
  }

  /// Segments per trial (ExhaustionDeviceOptions::segments). Auto: enough units for
  /// kUnitsPerResidentWarp per resident warp of segment_kernel, segments of at least
  /// kMinSegmentBars bars, at most kMaxSegments; 1 (the one-walk kernel) when the trials
  /// alone are that many. Measured on an H100 and an H200 (docs/benchmarks.md, "One batch,
  /// 1,000,000 bars"): more segments pay until ~40 units per resident warp (4,096 trials x 32
  /// segments; 65,536 x 2 to 4), also where the trials alone fill the device: the batch no
  /// longer ends on its heaviest walks. On series of 5,000 and 30,240 bars, segments of at
  /// least 512 bars beat 4,096, 1,024 and 256 at 4,096 trials and change nothing at 65,536
  /// (docs/benchmarks.md, "exhaustion: segments of short series").
  int segments_for(std::size_t count, const ExhaustionDeviceOptions& o) const {
    if (o.segments > 0) return o.segments;
    const long long target =
        static_cast<long long>(resident_segment_blocks_) * (kSegmentThreads / 32) * kUnitsPerResidentWarp;
    const long long by_count = (target + static_cast<long long>(count) - 1) / static_cast<long long>(count);
    const long long by_length = std::max<long long>(1, (n_ - 1) / kMinSegmentBars);
    return static_cast<int>(std::max<long long>(1, std::min({by_count, by_length, kMaxSegments})));
  }

  /// The segmented walk of a part (segment_kernel, then stitch_kernel).
  void run_segmented(const TrialLaunch& L, const ExhaustionDeviceOptions& o, int G, std::size_t count, int threads,
                     cudaStream_t stream) {
    const long long units = static_cast<long long>(count) * G;
    const long long segment_bars = (n_ - 1) / G + 1;
    // Room per unit for its trades' bars: ~1 per 32 bars (the heaviest trials of the
    // benchmark make 1 per 160), within the pairs' memory cap; a unit that runs out of room
    // stops there and the stitch walks the rest (same result, slower).
    long long room = o.segment_room > 0 ? o.segment_room : std::clamp<long long>(segment_bars / 32, 64, 4096);
    room = std::max<long long>(1, std::min<long long>(room, kMaxPairBytes / sizeof(ex::BarPair) / units));
    SegmentScratch& sc = scratch_[scratch_next_];
    scratch_next_ = (scratch_next_ + 1) % scratch_.size();
    if (sc.used) {
      const bool grows = sc.records.capacity() < static_cast<std::size_t>(units) ||
                         sc.pairs.capacity() < static_cast<std::size_t>(units * room);
      if (grows) CUDA_CHECK(cudaEventSynchronize(sc.done));  // freed below
      else CUDA_CHECK(cudaStreamWaitEvent(stream, sc.done, 0));
    }
    sc.next.resize(1);
    sc.records.resize(static_cast<std::size_t>(units));
    sc.pairs.resize(static_cast<std::size_t>(units * room));
    CUDA_CHECK(cudaMemsetAsync(sc.next.data(), 0, sizeof(int), stream));
    const SegmentLaunch S{
        G, static_cast<int>(room), static_cast<int>(units), sc.next.data(), sc.records.data(), sc.pairs.data()};
    // Persistent warps: no more blocks than are resident at once (they take units until none is left).
    const long long unit_blocks = (units * 32 + kSegmentThreads - 1) / kSegmentThreads;
    const unsigned blocks = static_cast<unsigned>(std::min<long long>(unit_blocks, resident_segment_blocks_));
    segment_kernel<<<blocks, kSegmentThreads, 0, stream>>>(L, S);
    CUDA_CHECK_LAUNCH("exhaustion segment_kernel");
    const int stitch_threads = launchable_block_size(stitch_kernel, threads);
    stitch_kernel<<<blocks_covering(static_cast<long long>(count) * 32, stitch_threads), stitch_threads,
                    fold_cursor_bytes(L, stitch_threads), stream>>>(L, S);
    CUDA_CHECK_LAUNCH("exhaustion stitch_kernel");
    CUDA_CHECK(cudaEventRecord(sc.done, stream));
    sc.used = true;
  }

  /// The blocks of a launch split over warps (block_unit_kernel): count the units' trades,
  /// lay them out (one host round trip), record them, then sum each trial's in block order.
  void run_split(const TrialLaunch& L, const ExhaustionDeviceOptions& options, int threads, cudaStream_t stream) {
    const std::size_t units = static_cast<std::size_t>(L.count) * static_cast<std::size_t>(L.n_blocks);
    // The units' buffers are shared by split launches: the last one must be done with them.
    if (split_used_) CUDA_CHECK(cudaEventSynchronize(split_done_));
    d_unit_counts_.resize(units);
    d_unit_offsets_.resize(units + 1);
    auto pass = [&](auto kind, int* counts, const long long* offsets, ex::Trade* scratch) {
      constexpr int kPass = decltype(kind)::value;
      auto go = [&](auto kernel) {
        const int t = launchable_block_size(kernel, threads);
        kernel<<<blocks_covering(static_cast<long long>(units) * 32, t), t, 0, stream>>>(L, counts, offsets, scratch);
      };
      if (options.filter && options.cap_registers) go(block_unit_kernel_capped<kPass>);
      else if (options.filter) go(block_unit_kernel<kFiltered, kPass>);
      else go(block_unit_kernel<kWarp, kPass>);
      CUDA_CHECK_LAUNCH("exhaustion block_unit_kernel");
    };
    pass(std::integral_constant<int, kCount>{}, d_unit_counts_.data(), nullptr, nullptr);
    h_unit_counts_.resize(units);
    CUDA_CHECK(cudaMemcpyAsync(h_unit_counts_.data(), d_unit_counts_.data(), units * sizeof(int),
                               cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    h_unit_offsets_.resize(units + 1);
    h_unit_offsets_[0] = 0;
    for (std::size_t u = 0; u < units; ++u) h_unit_offsets_[u + 1] = h_unit_offsets_[u] + h_unit_counts_[u];
    CUDA_CHECK(cudaMemcpyAsync(d_unit_offsets_.data(), h_unit_offsets_.data(), (units + 1) * sizeof(long long),
                               cudaMemcpyHostToDevice, stream));
    d_unit_trades_.resize(static_cast<std::size_t>(std::max<long long>(1, h_unit_offsets_[units])));
    pass(std::integral_constant<int, kRecordTrades>{}, nullptr, d_unit_offsets_.data(), d_unit_trades_.data());
    block_units_finish<<<static_cast<unsigned>((L.count + 127) / 128), 128, 0, stream>>>(L, d_unit_offsets_.data(),
                                                                                         d_unit_trades_.data());
    CUDA_CHECK_LAUNCH("exhaustion block_units_finish");
    CUDA_CHECK(cudaEventRecord(split_done_, stream));
    split_used_ = true;
    // No wait at the end: the offsets' copy is from pageable memory, which the call has
    // already staged when it returns, so the host vector may change after it.
  }

  ExhaustionDeviceOptions options_;  // the store's: max_series
  int n_;
  std::size_t n_pad_;  ///< bytes per level array (padded_bars)
  DeviceBuffer<double> d_open_, d_high_, d_low_, d_close_, d_vol_, d_cloc_, d_tr_, d_s_tr_, d_q_tr_, d_s_vol_, d_q_vol_;
  DeviceBuffer<unsigned char> d_cloc_levels_;
  std::vector<double> h_close_;  ///< for EMAs computed on the host
  DeviceBuffer<double> d_sink_;  ///< Warmer's sink (never written)
  // The series cache: slots_.slots() series of n_ doubles and, per slot, n_pad_ level bytes
  // (used by z series); slots_ says which series each holds.
  DeviceBuffer<double> pool_;
  DeviceBuffer<unsigned char> levels_;
  SeriesSlots<SeriesKey, ResidentTable> slots_{0};
  KeyTable<std::uint64_t> in_part_;  // series -> stamp of the part that includes it
  std::uint64_t part_stamp_ = 0;
  std::vector<TrialKeys> keys_;  // the batch's trials' series
  std::uint64_t batch_counter_ = 0;
  std::array<PlanStage, 4> stages_;
  std::size_t stage_next_ = 0;
  std::array<SegmentScratch, 3> scratch_;  ///< segmented launches' scratch, in turn
  std::size_t scratch_next_ = 0;
  int resident_segment_blocks_ = 1;  ///< blocks of segment_kernel resident at once on the device
  cudaStream_t aux_{};
  cudaEvent_t fork_{}, join_{};
  std::mutex mutex_;
  // Split blocks (run_split): per unit trade counts and offsets, and the units' trades.
  DeviceBuffer<int> d_unit_counts_;
  DeviceBuffer<long long> d_unit_offsets_;
  DeviceBuffer<ex::Trade> d_unit_trades_;
  std::vector<int> h_unit_counts_;
  std::vector<long long> h_unit_offsets_;
  cudaEvent_t split_done_{};  ///< after the last split launch's kernels (its buffers are shared)
  bool split_used_ = false;
  LaunchesInFlight launches_;
  cudaEvent_t series_ready_{};  ///< after the last part's series kernels
  bool series_recorded_ = false;
};

/// The store of a strategy's series on the current GPU: the one already made for the same
/// data and cache limit while any device still holds it, else a new one.
std::shared_ptr<SeriesStore> series_store(const strategies::ExhaustionStrategy& s, cudaStream_t stream,
                                          const ExhaustionDeviceOptions& o) {
  static std::mutex mutex;
  static std::map<std::string, std::weak_ptr<SeriesStore>> stores;
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  const std::string key = std::to_string(device) + "/" + std::to_string(s.n_bars()) + "/" +
                          std::to_string(o.max_series) + "/" + s.data_checksums().front();
  std::lock_guard<std::mutex> lock(mutex);
  for (auto it = stores.begin(); it != stores.end();) it = it->second.expired() ? stores.erase(it) : std::next(it);
  if (auto shared = stores[key].lock()) return shared;
  auto made = std::make_shared<SeriesStore>(s, stream, o);
  stores[key] = made;
  return made;
}

/// Device twin of one ExhaustionStrategy (whole series or blocks of it) over the shared store.
class ExhaustionDevice final : public DeviceStrategy {
 public:
  ExhaustionDevice(const strategies::ExhaustionStrategy& s, cudaStream_t stream, const ExhaustionDeviceOptions& o)
      : store_(series_store(s, stream, o)) {
    std::vector<int2> blocks;
    for (const auto& b : s.blocks()) blocks.push_back(make_int2(b.begin, b.end));
    d_blocks_ = upload(blocks, stream);
    CUDA_CHECK(cudaStreamSynchronize(stream));  // the host vector goes now
    launch_ = StrategyLaunch{s.options().objective, s.options().min_trades, d_blocks_.data(),
                             static_cast<int>(blocks.size()), o};
    if (s.folds().n_folds() > 0) {
      d_fold_edge_ = upload(s.fold_edges(), stream);
      d_fold_embargo_end_ = upload(s.fold_embargo_ends(), stream);
      launch_.folds = {static_cast<int>(s.folds().n_folds()), d_fold_edge_.data(), d_fold_embargo_end_.data()};
      launch_.rule = s.fold_rule();
      launch_.fold_compound = s.fold_compound() ? 1 : 0;
      launch_.n_metrics = static_cast<int>(s.metric_names().size());
    }
  }

  void launch(const DeviceBatch& batch, cudaStream_t stream, int block_size) override {
    run(batch, stream, block_size, nullptr, nullptr);
  }
  /// The shared store orders its launches itself (SeriesStore).
  bool concurrent_launches() const override { return true; }

  /// launch() with trade recording (see SeriesStore::run).
  void run(const DeviceBatch& batch, cudaStream_t stream, int block_size, const long long* d_trade_offsets,
           ex::Trade* d_trades, double* d_equity = nullptr) {
    store_->run(batch, stream, block_size, launch_, d_trade_offsets, d_trades, d_equity);
  }

 private:
  std::shared_ptr<SeriesStore> store_;
  DeviceBuffer<int2> d_blocks_;  ///< the strategy's blocks of bars (docs/strategies.md, "Data subsets")
  DeviceBuffer<int> d_fold_edge_, d_fold_embargo_end_;  ///< the strategy's folds in bars (none: empty)
  StrategyLaunch launch_{};
};

/// The exhaustion strategy over several symbols (docs/strategies.md, "Candle data sets of many symbols"): each symbol
/// is a one-series data set run by the device above, unchanged, on the same stream, writing the
/// symbol's objective, metrics and final equity for every trial into symbol-major rows; then
/// one thread per trial aggregates the rows over the symbols in order (the CPU's function).
/// With folds each symbol's device scores the folds in its own bars (the symbol strategies are
/// folded so, rule All: their objective is the whole span's), its rows carry the fold columns,
/// and the aggregation is aggregate_symbols_folded. Trials whose rows do not fit run in chunks
/// (same results).
class ExhaustionSymbolsDevice final : public DeviceStrategy {
 public:
  ExhaustionSymbolsDevice(const strategies::ExhaustionSymbolsStrategy& s, cudaStream_t stream,
                          const ExhaustionDeviceOptions& o)
      : spec_(s.aggregate_spec()), n_symbols_(s.n_symbols()), n_metrics_(s.metric_names().size()),
        n_folds_(static_cast<int>(s.folds().n_folds())), rule_(s.fold_rule()) {
    std::size_t free_bytes = 0, total_bytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    for (std::size_t k = 0; k < n_symbols_; ++k) {
      ExhaustionDeviceOptions so = o;
      if (so.max_series == 0) {
        // Each symbol's series cache gets an equal share of half the free memory.
        const int n = s.symbol(k).n_bars();
        const std::size_t series_bytes = static_cast<std::size_t>(n) * sizeof(double) + padded_bars(n);
        so.max_series = std::max<std::size_t>(3, free_bytes / 2 / n_symbols_ / series_bytes);
      }
      devices_.push_back(std::make_unique<ExhaustionDevice>(s.symbol(k), stream, so));
    }
    const std::size_t row_bytes = n_symbols_ * (2 + n_metrics_) * sizeof(double);
    chunk_trials_ = std::max<std::size_t>(1, free_bytes / 4 / row_bytes);
  }

  void launch(const DeviceBatch& batch, cudaStream_t stream, int block_size) override {
    const std::size_t n = batch.n;
    for (std::size_t chunk = 0; chunk < n; chunk += chunk_trials_) {
      const std::size_t cc = std::min(chunk_trials_, n - chunk);
      objective_.resize(cc * n_symbols_);
      equity_.resize(cc * n_symbols_);
      metrics_.resize(cc * n_symbols_ * n_metrics_);
      violations_.resize(cc);
      for (std::size_t k = 0; k < n_symbols_; ++k) {
        DeviceBatch b{batch.params + chunk * ex::kNumSlots,
                      batch.host_params + chunk * ex::kNumSlots,
                      objective_.data() + k * cc,
                      violations_.data(),
                      metrics_.data() + k * cc * n_metrics_,
                      cc};
        b.probe = batch.probe;
        devices_[k]->run(b, stream, block_size, nullptr, nullptr, equity_.data() + k * cc);
      }
      launch_rows_aggregate(objective_.data(), equity_.data(), metrics_.data(), static_cast<int>(cc),
                            static_cast<int>(n_symbols_), spec_, batch.scores + chunk, batch.violations + chunk,
                            batch.metrics + chunk * n_metrics_, stream, n_folds_, rule_);
    }
  }

 private:
  strategies::symbols::AggregateSpec spec_;
  std::size_t n_symbols_;
  std::size_t n_metrics_;  ///< a symbol's row and the trial's: the base metrics, then the fold columns
  int n_folds_;
  strategies::FoldRule rule_;
  std::size_t chunk_trials_ = 1;
  std::vector<std::unique_ptr<ExhaustionDevice>> devices_;
  DeviceBuffer<double> objective_, equity_, metrics_, violations_;
};

}  // namespace

std::unique_ptr<DeviceStrategy> make_exhaustion_device(const strategies::ExhaustionStrategy& strategy,
                                                       cudaStream_t stream, const ExhaustionDeviceOptions& options) {
  return std::make_unique<ExhaustionDevice>(strategy, stream, options);
}

std::unique_ptr<DeviceStrategy> make_exhaustion_symbols_device(const strategies::ExhaustionSymbolsStrategy& strategy,
                                                               cudaStream_t stream,
                                                               const ExhaustionDeviceOptions& options) {
  return std::make_unique<ExhaustionSymbolsDevice>(strategy, stream, options);
}

std::unique_ptr<DeviceStrategy> make_exhaustion_twin(const strategies::Strategy& strategy, cudaStream_t stream) {
  if (const auto* one = dynamic_cast<const strategies::ExhaustionStrategy*>(&strategy))
    return make_exhaustion_device(*one, stream);
  return make_exhaustion_symbols_device(dynamic_cast<const strategies::ExhaustionSymbolsStrategy&>(strategy), stream);
}

std::vector<double> gpu_exhaustion_metrics(const strategies::ExhaustionStrategy& strategy, const double* params,
                                           int block_size) {
  CUDA_CHECK(cudaSetDevice(0));
  OwnedStream stream;
  ExhaustionDevice device(strategy, stream.get(), {});
  const StagedBatch staged(params, 1, ex::kNumSlots, strategy.metric_names().size(), stream.get());
  device.launch(staged.batch(), stream.get(), block_size);
  std::vector<double> scores, violations, metrics;
  staged.results(scores, violations, metrics, stream.get());
  return metrics;
}

std::vector<GpuTrialTrades> gpu_exhaustion_trades(const strategies::ExhaustionStrategy& strategy, const double* params,
                                                  std::size_t n, const ExhaustionDeviceOptions& options,
                                                  int block_size) {
  if (strategy.folds().n_folds() > 0) {  // the trades do not depend on the folds: the strategy without them
    const auto plain = strategy.with_folds({}, {});
    return gpu_exhaustion_trades(dynamic_cast<const strategies::ExhaustionStrategy&>(*plain), params, n, options,
                                 block_size);
  }
  std::vector<GpuTrialTrades> out;
  if (n == 0) return out;
  CUDA_CHECK(cudaSetDevice(0));
  OwnedStream stream;
  ExhaustionDevice device(strategy, stream.get(), options);
  collect_trade_lists<ex::Trade>(device, stream.get(), params, n, ex::kNumSlots, ex::kNumMetrics, ex::kMTrades,
                                 block_size, out);
  return out;
}

}  // namespace tpeopt::gpu
