// The CUDA twin of strategies::EmaCrossStrategy. Every number comes from the TPEOPT_HD
// functions of strategies/ema_cross/ema_cross.hpp, as in the CPU reference.
//
// One batch:
//  (a) the EMA series of each distinct span, cached on the device across batches (a
//      series depends only on the span and the data). A span's series is one sequential
//      chain of n ema_step calls: new spans are computed on the host when there are few
//      of them (a CPU core runs a chain several times faster than a GPU thread; the same
//      function gives the same bits) and uploaded, else on the device, one lane per span
//      (ema_kernel: closes broadcast by shuffle, values written out coalesced);
//  (b) the trial kernel: one warp per trial, trials ordered by their fast span's cache slot
//      so that warps reading the same series run together (L2 reuse). Each finder tests 32
//      bars per ballot and loads the operands of several such steps (options.steps: 4, 8
//      or 16) at once before testing them (the predicates then read L1); it returns the
//      same first bar as the CPU's bar-by-bar scan, so trades and scores are identical. The one-thread-per-trial kernel (bar by
//      bar, SequentialFinder) is kept for parity tests.
//      A part's walks are cut into segments, more the fewer its trials (ema_cross_segments.hpp;
//      EmaCrossDevice::segments_for; a batch of 4,096 walked whole ends on its heaviest
//      trials, the chains of many finds): segment_kernel walks every (trial, segment) at once
//      on a warp each, recording its trades' bars, and the trial kernel stitches each trial's
//      segments in order instead of walking it.
// A batch whose distinct spans do not fit in the cache is split into parts of consecutive
// trials (same results). No atomics; each trial's sums run in trade order. With folds
// (Strategy::with_folds) each trade is also added to its fold's sums, held in a cursor and
// written to global scratch once per fold (a warp's lane 1 adds it while lane 0 adds it to the
// whole span).
// Launches of different batches may run at once on their own streams (concurrent_launches):
// a launch waits for the series of the launches before it, one that evicts a cached series
// waits for the launches still reading it (strategies/device/launches_in_flight.cuh), and
// each part's plan and fold scratch sits in a ring of device stages, each rewritten only
// after the kernel that read it.
#include <algorithm>
#include <array>
#include <climits>
#include <cstdint>
#include <limits>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "strategies/device/cuda_check.cuh"
#include "strategies/device/device_buffers.hpp"
#include "strategies/device/device_trade_lists.cuh"
#include "strategies/device/host_series.cuh"
#include "strategies/device/launch_size.cuh"
#include "strategies/device/launches_in_flight.cuh"
#include "strategies/device/occupancy_probe.cuh"
#include "strategies/device/segments_env.hpp"
#include "strategies/device/series_slots.hpp"
#include "strategies/device/warp_segments.cuh"
#include "strategies/ema_cross/ema_cross.hpp"
#include "strategies/ema_cross/ema_cross_device.hpp"
#include "strategies/ema_cross/ema_cross_segments.hpp"

namespace tpeopt::gpu {

namespace {

namespace ec = strategies::ema_cross;

constexpr unsigned kFull = 0xffffffffu;

/// Per trial of a part, in launch order: its batch index and the cache slots of its series.
struct TrialPlan {
  int trial, fast_slot, slow_slot;
};
struct EmaTask {
  int span, slot;
};

/// Keeps loads alive that only warm L1 for the predicates that follow: the sum is stored
/// only when it equals `never` (a NaN, equal to nothing), so nothing depends on it.
struct Warmer {
  double never;
  double* sink;
  __device__ __forceinline__ void operator()(double s) const {
    if (s == never) *sink = s;
  }
};

/// First k in [from, to] with pred(k), the same answer on every lane. Rounds of kSteps
/// steps of 32 bars: each lane first loads warm(k) for its bar of every step of the round
/// (all loads in flight together), then the steps are tested in bar order, one ballot each.
template <int kSteps, typename Warm>
struct WarpFinder {
  int lane;
  Warm warm;
  Warmer sink;

  template <typename Pred, typename... Hints>
  __device__ int operator()(int from, int to, Pred&& pred, const Hints&...) const {
    for (int base = from; base <= to; base += 32 * kSteps) {
      double s = 0.0;
#pragma unroll
      for (int m = 0; m < kSteps; ++m) {
        const int k = base + m * 32 + lane;
        if (k <= to) s = s + warm(k);
      }
      sink(s);
#pragma unroll
      for (int m = 0; m < kSteps; ++m) {
        const int k = base + m * 32 + lane;
        const unsigned mask = __ballot_sync(kFull, k <= to && pred(k));
        if (mask != 0u) return base + m * 32 + __ffs(mask) - 1;
      }
      if (to - base < 32 * kSteps) break;  // (no int overflow near the end of the range)
    }
    return to + 1;
  }
};

/// The operands of is_below / is_cross_above at bar k (k - 1 is the neighbour lane's k).
struct WarmSeries {
  ec::TrialSeries t;
  __device__ __forceinline__ double operator()(int k) const { return t.fast[k] + t.slow[k]; }
};

/// The operands of exit_reason at bar k.
struct WarmExit {
  ec::TrialSeries t;
  ec::Bars b;
  bool stops;
  __device__ __forceinline__ double operator()(int k) const {
    const double x = t.fast[k - 1] + t.slow[k - 1];
    return stops ? x + b.open[k] + b.low[k] + b.high[k] : x;
  }
};

constexpr int kEmaTile = 32;
constexpr int kSegmentThreads = 128;  ///< segment_kernel's block size
// Auto segments (EmaCrossDevice::segments_for), from sweeps of forced G on an H200
// (docs/benchmarks.md, "ema_cross: walks cut into segments"; the bundled 30,240 BTCUSDT bars,
// the hold-out example's 3,750-bar block and a generated 1,000,000-bar series): at 4,096
// trials GPU time per trial falls 1.5x (bundled) to 1.7x (1,000,000 bars) from G = 1 to G =
// 8-64, and at 65,536 by up to 1.4x at G = 2-4 (bundled bars). segment_kernel<4> takes 56
// registers a thread, 36 warps an SM: 16 waves give G = 19 at 4,096 trials and 2 at 65,536
// (kMinSegments), bounded by the walk's length.
constexpr long long kUnitsPerResidentWarp = 16;  ///< units for this many waves of segment_kernel
constexpr long long kMinSegmentBars = 1024;      ///< segments of at least this many bars
constexpr long long kMinSegments = 2;            ///< fewer: the trial kernel walks whole
constexpr long long kMaxSegments = 64;
/// A stage's recorded trade bars take at most this: 4,096 trials x 64 segments have room for
/// 512 trades a segment; a segment with more leaves the rest to the stitch.
constexpr std::size_t kMaxPairBytes = std::size_t{1} << 30;

/// One warp per 32 spans (lane = span): each lane runs its span's sequential ema_step
/// chain (the steps of ema_series, in the same order), 32 bars per tile: the tile's closes
/// are loaded once, coalesced (the next tile's while this one runs) and broadcast by
/// shuffle, so no load sits on the chain; the tile's values are staged in shared memory
/// and written out one span's 32 bars per coalesced store.
__global__ void __launch_bounds__(32)
    ema_kernel(const double* __restrict__ close, int n, const EmaTask* __restrict__ tasks, int count,
               double* __restrict__ pool, OccupancyProbe probe) {
  BlockOccupancy occupancy(probe);
  __shared__ double tile[kEmaTile][kEmaTile + 1];
  const int lane = static_cast<int>(threadIdx.x);
  const int first = static_cast<int>(blockIdx.x) * kEmaTile;
  const int rows = min(kEmaTile, count - first);
  const EmaTask mine = lane < rows ? tasks[first + lane] : EmaTask{1, 0};
  const ec::EmaWeights w = ec::ema_weights(mine.span);
  double e = 0.0;
  double c = lane < n ? close[lane] : 0.0;
  for (int base = 0; base < n; base += kEmaTile) {
    const int next = base + kEmaTile + lane;
    const double c_next = next < n ? close[next] : 0.0;  // in flight during this tile
    const int m = min(kEmaTile, n - base);
    for (int j = 0; j < m; ++j) {
      const double cj = __shfl_sync(kFull, c, j);
      e = base == 0 && j == 0 ? cj : ec::ema_step(e, w, cj);  // e_0 = close_0
      tile[lane][j] = e;
    }
    __syncwarp();
    const int i = base + lane;
    for (int r = 0; r < rows; ++r) {
      const int slot = __shfl_sync(kFull, mine.slot, r);
      if (lane < m) pool[static_cast<std::size_t>(slot) * static_cast<std::size_t>(n) + i] = tile[r][lane];
    }
    __syncwarp();
    c = c_next;
  }
}

struct Launch {
  ec::Bars bars;       ///< the whole series
  const int2* blocks;  ///< blocked strategies: [begin, end) of each block, in block order
  int n_blocks;        ///< 0: the whole series as one walk
  const double* pool;
  const TrialPlan* plan;  ///< per trial of the part, in launch order
  int count;              ///< trials in the part
  const double* params;   ///< batch params (n x kNumSlots)
  ec::Objective objective;
  int min_trades;
  double* scores;
  double* violations;
  double* metrics;
  const long long* trade_offsets;  ///< record pass: first trade's index per batch trial
  ec::Trade* trades;               ///< record pass: output
  Warmer sink;
  OccupancyProbe probe;  ///< the batch's (strategies/device/occupancy.hpp)
  int n_metrics;         ///< metrics per trial: ec::kNumMetrics, then the fold columns
  // Folds (Strategy::with_folds): each trade is also added to the fold of its entry bar, in
  // scratch (folds.n summaries and sums of squares per trial of the part, in launch order).
  strategies::FoldBars folds;  ///< n = 0: no folds
  strategies::FoldRule rule;
  ec::Summary* fold_sums;
  double* fold_sumsq;
  // Segmented walks (ema_cross_segments.hpp): unit u = (segment g, trial `local` of the part)
  // at u = g * count + local, each with room for `room` trades' bars. G = 0: not segmented.
  int G;
  int room;
  int4* records;       ///< per unit: count, end, complete (ema_cross::SegmentRecord)
  ec::BarPair* pairs;  ///< per unit: room pairs
};

/// One warp per unit: segment g of trial `local`'s walk, flat from its first bar, recording
/// its trades' bars (record_segment) with the trial kernel's finders. Launches with more than
/// one block are not segmented.
template <int kSteps>
__global__ void segment_kernel(Launch L) {
  BlockOccupancy occupancy(L.probe);
  const long long u = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  if (u >= static_cast<long long>(L.count) * L.G) return;  // uniform across a warp
  const int lane = static_cast<int>(threadIdx.x & 31u);
  const int local = static_cast<int>(u % L.count), g = static_cast<int>(u / L.count);
  const TrialPlan tp = L.plan[local];
  const ec::Params p = ec::unpack_params(L.params + static_cast<std::size_t>(tp.trial) * ec::kNumSlots);
  const std::size_t n = static_cast<std::size_t>(L.bars.n);
  const ec::TrialSeries t{L.pool + static_cast<std::size_t>(tp.fast_slot) * n,
                          L.pool + static_cast<std::size_t>(tp.slow_slot) * n};
  // A strategy with one block (a hold-out's in-sample part) walks that block.
  const ec::Bars b = L.n_blocks == 1 ? ec::block_bars(L.bars, L.blocks[0].x, L.blocks[0].y) : L.bars;
  const WarpFinder<kSteps, WarmSeries> series{lane, WarmSeries{t}, L.sink};
  const WarpFinder<kSteps, WarmExit> exits{lane, WarmExit{t, b, p.has_sl || p.has_tp}, L.sink};
  record_segment(strategies::segments::walk_of(b, p, t, series, exits), ec::segment_cut(b, L.G, g),
                 ec::segment_cut(b, L.G, g + 1), L.room, lane, L.pairs + u * L.room, L.records + u);
}

/// One trial's backtest. Unblocked: one walk over the series, score = finish(summary).
/// Blocked (kBlocked, docs/strategies.md, "Data subsets"): one walk per block in block order, each starting flat
/// and marking an open position at its last bar; the score is 0.0 + the blocks' objective
/// values in block order, the violation and metrics those of one summary over all the trades
/// (the CPU reference's EmaCrossStrategy::evaluate). kStitch (a warp, at most one block): the
/// walk is stitched from segment_kernel's records (stitch_segments), the recorded trades made
/// again 32 at a time, one per lane, then handed to every lane in trade order.
template <bool kWarp, bool kRecord, int kSteps, bool kBlocked, bool kStitch = false>
__global__ void trial_kernel(Launch L) {
  BlockOccupancy occupancy(L.probe);
  const long long gid = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const long long local = kWarp ? gid / 32 : gid;
  if (local >= L.count) return;  // uniform across a warp in the warp kernel
  const int lane = kWarp ? static_cast<int>(threadIdx.x & 31u) : 0;
  const TrialPlan tp = L.plan[local];
  const ec::Params p = ec::unpack_params(L.params + static_cast<std::size_t>(tp.trial) * ec::kNumSlots);
  const std::size_t n = static_cast<std::size_t>(L.bars.n);
  const ec::TrialSeries t{L.pool + static_cast<std::size_t>(tp.fast_slot) * n,
                          L.pool + static_cast<std::size_t>(tp.slow_slot) * n};
  // The whole span's summary. Without folds every lane keeps it (uniform control flow); with
  // folds in a warp, lane 0 keeps it and lane 1 the fold its cursor holds (add_lane_trade).
  ec::Summary sum;
  ec::BlockedScore blocked;
  long long out = kRecord ? L.trade_offsets[tp.trial] : 0;
  const strategies::FoldView<ec::Summary> folds{L.fold_sums + local * L.folds.n, L.fold_sumsq + local * L.folds.n};
  strategies::FoldCursor<ec::Summary> fold;
  if (L.folds.n > 0) {
    if (lane == 0) strategies::reset_folds(folds, L.folds.n);
    if constexpr (kWarp) __syncwarp();  // lane 1 reads the folds lane 0 emptied
  }
  auto on_trade = [&](const ec::Trade& tr) {
    // Each trade also in the fold of its entry bar, as the CPU reference adds it
    // (EmaCrossStrategy::evaluate).
    const auto add = [&](ec::Summary& f) { ec::add_trade(f, tr); };
    if (L.folds.n == 0) {
      ec::add_trade(sum, tr);
    } else if constexpr (kWarp) {
      strategies::add_lane_trade(sum, fold, folds, L.folds, lane, tr.entry_bar, tr.ret, add);
    } else {
      ec::add_trade(sum, tr);
      strategies::add_fold_trade(fold, folds, L.folds, tr.entry_bar, tr.ret, add);
    }
    if constexpr (kBlocked) ec::add_trade(blocked.block, tr);
    if (kRecord && lane == 0) L.trades[out] = tr;
    if (kRecord) ++out;
  };
  auto walk = [&](const ec::Bars& bars) {
    if constexpr (kStitch) {
      const WarpFinder<kSteps, WarmSeries> series{lane, WarmSeries{t}, L.sink};
      const WarpFinder<kSteps, WarmExit> exits{lane, WarmExit{t, bars, p.has_sl || p.has_tp}, L.sink};
      auto adopt = [&](const ec::SegmentRecord& r, int k) {
        adopt_on_lanes(
            r, k, lane, [&](const ec::BarPair& bp) { return ec::replay_trade(bars, p, t, bp); }, on_trade);
      };
      ec::stitch_segments(
          bars, p, t, L.G, [&](int g) { return ec::segment_cut(bars, L.G, g); },
          [&](int g) { return read_segment(L.records, L.pairs, static_cast<long long>(g) * L.count + local, L.room); },
          series, series, exits, on_trade, adopt);
    } else if constexpr (kWarp) {
      const WarpFinder<kSteps, WarmSeries> series{lane, WarmSeries{t}, L.sink};
      const WarpFinder<kSteps, WarmExit> exits{lane, WarmExit{t, bars, p.has_sl || p.has_tp}, L.sink};
      ec::run_backtest(bars, p, t, series, series, exits, on_trade);
    } else {
      ec::run_backtest(bars, p, t, ec::SequentialFinder{}, on_trade);
    }
  };
  if constexpr (kBlocked) {
    for (int k = 0; k < L.n_blocks; ++k) {
      const int2 range = L.blocks[k];
      walk(ec::block_bars(L.bars, range.x, range.y));
      ec::end_block(blocked, L.objective);
    }
  } else {
    walk(L.bars);
  }
  if (L.folds.n > 0) {  // the held fold back in the scratch before lane 0 reads the folds
    if constexpr (kWarp) {
      strategies::flush_lane_fold(sum, fold, folds, lane);
      __syncwarp();
    } else {
      strategies::flush_fold(fold, folds);
    }
  }
  if (lane == 0) {
    double m[ec::kNumMetrics];
    double violation = 0.0;
    const double score = ec::finish(sum, L.objective, L.min_trades, m, &violation);
    double* metrics = L.metrics + static_cast<std::size_t>(tp.trial) * static_cast<std::size_t>(L.n_metrics);
    double final_score = kBlocked ? blocked.score : score;
    if (L.folds.n > 0) {
      const ec::Objective o = L.objective;
      final_score = strategies::finish_folds(
          folds, L.folds.n, L.rule, final_score, [&](const ec::Summary& f) { return ec::objective_value(f, o); },
          metrics + ec::kNumMetrics);
    }
    L.scores[tp.trial] = final_score;
    L.violations[tp.trial] = violation;
    for (int k = 0; k < ec::kNumMetrics; ++k) metrics[k] = m[k];
  }
}

/// Launches trial_kernel<kWarp, record, kSteps, blocked> over `total_threads` threads, in
/// blocks of the requested size or the most the kernel's registers allow (launch_size.cuh).
/// With L.G > 0 (a warp per trial, at most one block): segment_kernel<kSteps> records the
/// segments first, and the trial kernel stitches them.
template <bool kWarp, int kSteps>
void launch_trial_kernel(bool record, bool blocked, long long total_threads, int requested, cudaStream_t stream,
                         const Launch& L) {
  auto go = [&](auto kernel) {
    const int threads = launchable_block_size(kernel, requested);
    kernel<<<blocks_covering(total_threads, threads), threads, 0, stream>>>(L);
  };
  if constexpr (kWarp) {
    if (L.G > 0) {
      const long long units = static_cast<long long>(L.count) * L.G;
      segment_kernel<kSteps><<<blocks_covering(units * 32, kSegmentThreads), kSegmentThreads, 0, stream>>>(L);
      CUDA_CHECK_LAUNCH("ema_cross segment_kernel");
      if (record)
        blocked ? go(trial_kernel<true, true, kSteps, true, true>) : go(trial_kernel<true, true, kSteps, false, true>);
      else
        blocked ? go(trial_kernel<true, false, kSteps, true, true>)
                : go(trial_kernel<true, false, kSteps, false, true>);
      return;
    }
  }
  if (record) blocked ? go(trial_kernel<kWarp, true, kSteps, true>) : go(trial_kernel<kWarp, true, kSteps, false>);
  else blocked ? go(trial_kernel<kWarp, false, kSteps, true>) : go(trial_kernel<kWarp, false, kSteps, false>);
}

template <typename T>
DeviceBuffer<T> upload(const std::vector<T>& h, cudaStream_t stream) {
  DeviceBuffer<T> d(std::max<std::size_t>(1, h.size()));
  CUDA_CHECK(cudaMemcpyAsync(d.data(), h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice, stream));
  return d;
}

class EmaCrossDevice final : public DeviceStrategy {
 public:
  EmaCrossDevice(const strategies::EmaCrossStrategy& s, cudaStream_t stream, const EmaCrossDeviceOptions& o)
      : strategy_(s), options_(o), objective_(s.options().objective), min_trades_(s.options().min_trades),
        n_(s.n_bars()) {
    const auto& c = s.candles();
    d_open_ = upload(c.open, stream);
    d_high_ = upload(c.high, stream);
    d_low_ = upload(c.low, stream);
    d_close_ = upload(c.close, stream);
    d_sink_ = DeviceBuffer<double>(1);
    std::vector<int2> blocks;
    for (const auto& b : s.blocks()) blocks.push_back(make_int2(b.begin, b.end));
    d_blocks_ = upload(blocks, stream);
    n_blocks_ = static_cast<int>(blocks.size());
    walk_bars_ = n_blocks_ == 1 ? blocks[0].y - blocks[0].x : n_;
    n_metrics_ = static_cast<int>(s.metric_names().size());
    if (s.folds().n_folds() > 0) {
      d_fold_edge_ = upload(s.fold_edges(), stream);
      d_fold_embargo_end_ = upload(s.fold_embargo_ends(), stream);
      folds_ = {static_cast<int>(s.folds().n_folds()), d_fold_edge_.data(), d_fold_embargo_end_.data()};
      rule_ = s.fold_rule();
    }
    CUDA_CHECK(cudaStreamSynchronize(stream));  // host vectors may go once the copies are done
    std::size_t free_bytes = 0, total_bytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    // Leave room for batch buffers and trade lists: the cache takes at most 60% of what is free.
    const std::size_t series_bytes = static_cast<std::size_t>(n_) * sizeof(double);
    std::size_t cap = static_cast<std::size_t>(0.6 * static_cast<double>(free_bytes)) / series_bytes;
    cap = std::min<std::size_t>(cap, 1u << 16);
    if (options_.max_series > 0) cap = std::min(cap, options_.max_series);
    if (cap < 2)
      throw Error("executor cuda: not enough device memory for the ema_cross series of " + std::to_string(n_) +
                  " bars (" + std::to_string(free_bytes >> 20) + " MiB free; need 2 x " +
                  std::to_string(series_bytes >> 20) + " MiB)");
    slots_ = SeriesSlots<int>(cap);
    // Segmented walks: a stage's recorded trade bars take at most a sixteenth of what is free
    // (and kMaxPairBytes).
    pair_bytes_ = std::min(kMaxPairBytes, free_bytes / 16);
    int device = 0, sms = 0, per_sm = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, segment_kernel<4>, kSegmentThreads, 0));
    resident_warps_ = std::max<long long>(1, static_cast<long long>(sms) * per_sm * (kSegmentThreads / 32));
    CUDA_CHECK(cudaEventCreateWithFlags(&series_ready_, cudaEventDisableTiming));
    for (Stage& st : stages_) CUDA_CHECK(cudaEventCreateWithFlags(&st.done, cudaEventDisableTiming));
  }

  ~EmaCrossDevice() override {
    launches_.wait_quietly();  // before the buffers they read go
    cudaEventDestroy(series_ready_);
    for (Stage& st : stages_) cudaEventDestroy(st.done);
  }
  EmaCrossDevice(const EmaCrossDevice&) = delete;
  EmaCrossDevice& operator=(const EmaCrossDevice&) = delete;

  bool concurrent_launches() const override { return true; }

  void launch(const DeviceBatch& batch, cudaStream_t stream, int block_size) override {
    run(batch, stream, block_size, nullptr, nullptr);
  }

  /// launch() with trade recording: trade_offsets[i] is trial i's first trade index.
  void run(const DeviceBatch& batch, cudaStream_t stream, int block_size, const long long* d_trade_offsets,
           ec::Trade* d_trades) {
    const std::size_t n = batch.n;
    if (n == 0) return;
    TPEOPT_ASSERT(batch.host_params != nullptr, "ema_cross: the batch has no host copy of its parameters");
    spans_.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      const ec::Params p = ec::unpack_params(batch.host_params + i * ec::kNumSlots);
      spans_[i] = {p.ema_fast, p.ema_slow};
    }
    launches_.retire();
    // The series this launch reads may come from earlier launches, on other streams. Always,
    // not only when the stream differs: a stream handle can be reused after the one that made
    // the last launch is destroyed (waiting on the same stream costs nothing).
    if (series_recorded_) CUDA_CHECK(cudaStreamWaitEvent(stream, series_ready_, 0));
    const std::uint64_t first_part = slots_.part() + 1;
    std::size_t begin = 0;
    while (begin < n) {
      // Grow the part while its distinct spans fit in the cache.
      std::unordered_map<int, int> in_part;
      std::vector<int> part_spans;
      std::size_t end = begin;
      while (end < n) {
        const auto [a, b] = spans_[end];
        const std::size_t added = (in_part.count(a) ? 0 : 1) + (a != b && !in_part.count(b) ? 1 : 0);
        if (part_spans.size() + added > slots_.max_slots()) break;
        for (const int sp : {a, b})
          if (in_part.emplace(sp, 0).second) part_spans.push_back(sp);
        ++end;
      }
      TPEOPT_ASSERT(end > begin, "ema_cross: a trial needs more series than the cache holds");
      run_part(batch, begin, end, part_spans, stream, block_size, d_trade_offsets, d_trades);
      begin = end;
    }
    launches_.record(first_part, slots_.part(), stream);
  }

 private:
  /// Room in the pool for `slots` series (a grown pool holds none).
  void ensure_pool(std::size_t slots, cudaStream_t stream) {
    if (!slots_.reserve(slots)) return;
    // Kernels of earlier launches, this one's earlier parts included, may still read the old pool.
    launches_.synchronize();
    CUDA_CHECK(cudaStreamSynchronize(stream));
    pool_ = DeviceBuffer<double>();
    pool_ = DeviceBuffer<double>(slots_.slots() * static_cast<std::size_t>(n_));
  }

  int resident(int span) const { return slots_.slot(span); }

  bool ema_on_host(std::size_t new_spans) const {
    if (options_.ema_on == EmaCrossDeviceOptions::EmaOn::Host) return true;
    if (options_.ema_on == EmaCrossDeviceOptions::EmaOn::Device) return false;
    return gpu::few_enough_for_host(new_spans);
  }

  /// The series of `tasks` computed on the host by the CPU reference's function (the same
  /// bits) and uploaded into their slots (strategies/device/host_series.cuh).
  void host_emas(const std::vector<EmaTask>& tasks, cudaStream_t stream) {
    gpu::upload_host_series(tasks, static_cast<std::size_t>(n_), pool_.data(), stream,
                            [&](const EmaTask& t, double* out) { strategy_.ema(t.span, out); });
  }

  void run_part(const DeviceBatch& batch, std::size_t begin, std::size_t end, const std::vector<int>& part_spans,
                cudaStream_t stream, int block_size, const long long* d_trade_offsets, ec::Trade* d_trades) {
    ensure_pool(part_spans.size(), stream);
    // The part's resident series stay; missing ones take the least recently used slots, once
    // the launches still reading what those held are done.
    std::uint64_t evicted_use = 0;
    std::vector<EmaTask> tasks;
    for (const auto& [span, slot] : slots_.place(part_spans, &evicted_use)) tasks.push_back({span, slot});
    if (evicted_use > 0) launches_.wait_for_readers(evicted_use, stream);
    // Trials in launch order: grouped by the fast span's slot (counting sort).
    const std::size_t count = end - begin;
    std::vector<TrialPlan> plan(count), ordered(count);
    std::vector<int> bucket(slots_.slots() + 1, 0);
    for (std::size_t i = 0; i < count; ++i) {
      const auto [fast, slow] = spans_[begin + i];
      plan[i] = {static_cast<int>(begin + i), resident(fast), resident(slow)};
      ++bucket[static_cast<std::size_t>(plan[i].fast_slot) + 1];
    }
    for (std::size_t b = 1; b <= slots_.slots(); ++b) bucket[b] += bucket[b - 1];
    for (std::size_t i = 0; i < count; ++i) ordered[static_cast<std::size_t>(bucket[plan[i].fast_slot]++)] = plan[i];

    // Upload the plan and the device EMA tasks (pageable copies: staged before the call
    // returns) into the next stage of the ring, once the kernel that last read it is done;
    // the part's fold statistics live after them (scratch of the same stage).
    const auto align = [](std::size_t b) { return (b + 255) / 256 * 256; };
    const std::size_t b_plan = count * sizeof(TrialPlan);
    const std::size_t b_tasks = tasks.size() * sizeof(EmaTask);
    const std::size_t o_tasks = align(b_plan);
    const std::size_t K = static_cast<std::size_t>(folds_.n);
    const std::size_t o_fold_sums = align(o_tasks + b_tasks);
    const std::size_t o_fold_sumsq = o_fold_sums + align(count * K * sizeof(ec::Summary));
    const bool blocked = n_blocks_ > 0;
    const int G = segments_for(count);
    const std::size_t units = G > 1 ? count * static_cast<std::size_t>(G) : 0;
    const std::size_t room = G > 1 ? segment_room(G, units) : 0;
    const std::size_t o_records = align(o_fold_sumsq + count * K * sizeof(double));
    const std::size_t o_pairs = align(o_records + units * sizeof(int4));
    const std::size_t total = o_pairs + units * room * sizeof(ec::BarPair);
    Stage& st = stages_[stage_next_];
    stage_next_ = (stage_next_ + 1) % stages_.size();
    if (st.used) {
      if (total > st.d.capacity()) CUDA_CHECK(cudaEventSynchronize(st.done));  // freed by the resize
      else CUDA_CHECK(cudaStreamWaitEvent(stream, st.done, 0));
    }
    if (total > st.d.capacity()) st.d.resize(total);
    st.used = true;
    char* const d_plan = st.d.data();
    CUDA_CHECK(cudaMemcpyAsync(d_plan, ordered.data(), b_plan, cudaMemcpyHostToDevice, stream));
    if (!tasks.empty()) {
      if (ema_on_host(tasks.size())) {
        host_emas(tasks, stream);
      } else {
        CUDA_CHECK(cudaMemcpyAsync(d_plan + o_tasks, tasks.data(), b_tasks, cudaMemcpyHostToDevice, stream));
        const unsigned blocks = static_cast<unsigned>((tasks.size() + kEmaTile - 1) / kEmaTile);
        ema_kernel<<<blocks, kEmaTile, 0, stream>>>(d_close_.data(), n_,
                                                    reinterpret_cast<const EmaTask*>(d_plan + o_tasks),
                                                    static_cast<int>(tasks.size()), pool_.data(), batch.probe);
        CUDA_CHECK_LAUNCH("ema_cross ema_kernel");
      }
      CUDA_CHECK(cudaEventRecord(series_ready_, stream));  // later launches read these series
      series_recorded_ = true;
    }

    Launch L;
    L.blocks = d_blocks_.data();
    L.n_blocks = n_blocks_;
    L.bars.n = n_;
    L.bars.open = d_open_.data();
    L.bars.high = d_high_.data();
    L.bars.low = d_low_.data();
    L.bars.close = d_close_.data();
    L.pool = pool_.data();
    L.plan = reinterpret_cast<const TrialPlan*>(d_plan);
    L.count = static_cast<int>(count);
    L.params = batch.params;
    L.objective = objective_;
    L.min_trades = min_trades_;
    L.scores = batch.scores;
    L.violations = batch.violations;
    L.metrics = batch.metrics;
    L.trade_offsets = d_trade_offsets;
    L.trades = d_trades;
    L.sink = Warmer{std::numeric_limits<double>::quiet_NaN(), d_sink_.data()};
    L.probe = batch.probe;
    L.n_metrics = n_metrics_;
    L.folds = folds_;
    L.rule = rule_;
    L.fold_sums = reinterpret_cast<ec::Summary*>(d_plan + o_fold_sums);
    L.fold_sumsq = reinterpret_cast<double*>(d_plan + o_fold_sumsq);
    L.G = G > 1 ? G : 0;
    L.room = static_cast<int>(room);
    L.records = reinterpret_cast<int4*>(d_plan + o_records);
    L.pairs = reinterpret_cast<ec::BarPair*>(d_plan + o_pairs);
    const bool record = d_trades != nullptr;
    const int threads = (std::max(32, std::min(1024, block_size)) + 31) / 32 * 32;  // whole warps
    if (options_.warp_per_trial) {
      const long long total_threads = static_cast<long long>(count) * 32;
      const int steps = options_.steps;
      if (steps == 16) launch_trial_kernel<true, 16>(record, blocked, total_threads, threads, stream, L);
      else if (steps == 8) launch_trial_kernel<true, 8>(record, blocked, total_threads, threads, stream, L);
      else launch_trial_kernel<true, 4>(record, blocked, total_threads, threads, stream, L);
    } else {
      launch_trial_kernel<false, 4>(record, blocked, static_cast<long long>(count), threads, stream, L);
    }
    CUDA_CHECK_LAUNCH("ema_cross trial_kernel");
    CUDA_CHECK(cudaEventRecord(st.done, stream));  // the stage may be rewritten after this
  }

  /// Segments per walk of a part of `count` trials (EmaCrossDeviceOptions::segments): forced,
  /// or enough units for kUnitsPerResidentWarp waves of segment_kernel, segments of at least
  /// kMinSegmentBars bars, at most kMaxSegments; 1 (the trial kernel walks whole) when the
  /// count alone would give fewer than kMinSegments, for thread walks and for strategies with
  /// more than one block.
  int segments_for(std::size_t count) const {
    if (!options_.warp_per_trial || n_blocks_ > 1) return 1;
    if (options_.segments > 0) return options_.segments;
    const long long c = static_cast<long long>(count);
    const long long by_count = (resident_warps_ * kUnitsPerResidentWarp + c - 1) / c;
    if (by_count < kMinSegments) return 1;
    const long long by_length = std::max<long long>(1, (walk_bars_ - 1) / kMinSegmentBars);
    return static_cast<int>(std::max<long long>(1, std::min({by_count, by_length, kMaxSegments})));
  }

  /// Room per unit of `units` units cut G per walk: every trade a segment can make (one per two
  /// bars it scans) when the memory cap allows, else what it allows (a unit out of room stops
  /// there and the stitch walks the rest: same results).
  std::size_t segment_room(int G, std::size_t units) const {
    const long long segment_bars = (walk_bars_ - 1) / G + 1;
    long long room = options_.segment_room > 0 ? options_.segment_room : segment_bars / 2 + 2;
    const long long fits = static_cast<long long>(pair_bytes_ / sizeof(ec::BarPair) / std::max<std::size_t>(1, units));
    return static_cast<std::size_t>(std::max<long long>(1, std::min(room, fits)));
  }

  const strategies::EmaCrossStrategy& strategy_;
  EmaCrossDeviceOptions options_;
  ec::Objective objective_;
  int min_trades_;
  int n_;
  DeviceBuffer<double> d_open_, d_high_, d_low_, d_close_, d_sink_;
  DeviceBuffer<int2> d_blocks_;  ///< the strategy's blocks of bars (docs/strategies.md, "Data subsets")
  int n_blocks_ = 0;
  int n_metrics_ = ec::kNumMetrics;                     ///< the strategy's metrics: with folds, their columns too
  DeviceBuffer<int> d_fold_edge_, d_fold_embargo_end_;  ///< the strategy's folds in bars (none: empty)
  strategies::FoldBars folds_{};                        ///< device edges; n = 0: no folds
  strategies::FoldRule rule_{};
  // The series cache: slots_.slots() series of n_ doubles; slots_ says which span each holds.
  DeviceBuffer<double> pool_;
  SeriesSlots<int> slots_{0};
  std::vector<std::pair<int, int>> spans_;  // the batch's trials' (fast, slow) spans
  /// A part's plan, EMA tasks and fold scratch on the device, and the event after its kernel.
  struct Stage {
    DeviceBuffer<char> d;
    cudaEvent_t done{};
    bool used = false;
  };
  std::array<Stage, 4> stages_;  ///< in turn: up to four parts in flight before one waits
  std::size_t stage_next_ = 0;
  LaunchesInFlight launches_;
  cudaEvent_t series_ready_{};  ///< after the last part's series work
  bool series_recorded_ = false;
  std::size_t pair_bytes_ = 0;    ///< a stage's recorded trade bars take at most this
  long long resident_warps_ = 1;  ///< warps of segment_kernel resident at once on the device
  long long walk_bars_ = 0;       ///< bars of a walk that may be segmented (the one block's, or the series')
};

}  // namespace

std::unique_ptr<DeviceStrategy> make_ema_cross_device(const strategies::EmaCrossStrategy& strategy, cudaStream_t stream,
                                                      const EmaCrossDeviceOptions& options) {
  return std::make_unique<EmaCrossDevice>(strategy, stream, options);
}

std::unique_ptr<DeviceStrategy> make_ema_cross_twin(const strategies::Strategy& strategy, cudaStream_t stream) {
  EmaCrossDeviceOptions options;
  const SegmentsSetting forced = segments_from_env("TPEOPT_EMA_CROSS_SEGMENTS");
  options.segments = forced.segments;
  options.segment_room = forced.room;
  return make_ema_cross_device(dynamic_cast<const strategies::EmaCrossStrategy&>(strategy), stream, options);
}

std::vector<GpuEmaCrossTrial> gpu_ema_cross_trades(const strategies::EmaCrossStrategy& strategy, const double* params,
                                                   std::size_t n, const EmaCrossDeviceOptions& options,
                                                   int block_size) {
  std::vector<GpuEmaCrossTrial> out;
  if (n == 0) return out;
  if (strategy.folds().n_folds() > 0) {  // the trades do not depend on the folds: the strategy without them
    const auto plain = strategy.with_folds({}, {});
    return gpu_ema_cross_trades(dynamic_cast<const strategies::EmaCrossStrategy&>(*plain), params, n, options,
                                block_size);
  }
  CUDA_CHECK(cudaSetDevice(0));
  OwnedStream stream;
  EmaCrossDevice device(strategy, stream.get(), options);
  collect_trade_lists<ec::Trade>(device, stream.get(), params, n, ec::kNumSlots, ec::kNumMetrics, ec::kMTrades,
                                 block_size, out);
  return out;
}

}  // namespace tpeopt::gpu
