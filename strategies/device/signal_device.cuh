#pragma once
// The CUDA twin of a long/short signal strategy (strategies/signal_strategy.hpp), written
// once for every `Logic` (strategies/signal_backtest.hpp): a strategy's .cu file instantiates
// make_signal_device, signal_trades_device and signal_symbols_device for its Logic. Every
// number comes from the same TPEOPT_HD functions as the CPU reference
// (strategies::run_signal_symbol), so trades and scores agree bit for bit.
//
// One batch:
//  (a) the per-parameter series, cached on the device across batches (SeriesSlots: a series
//      depends only on its (kind, value) and the data): one thread per (new series, symbol,
//      bar) runs Logic::series_at, or, for a Logic whose series are chains over the bars, one
//      thread per (new series, symbol) runs Logic::compute_series, into the series' slot;
//  (b) the trial kernel (the part's trials ordered by their first series, launch_order): one
//      warp per (trial, symbol) walks the symbol's blocks with strategies::run_signal_walks,
//      testing 32 bars a step (warp_long_short_walk.cuh), and writes the symbol's row
//      (objective, equity, metrics; and, when recording, its trades from the trial's offset).
//      A batch of few trials over long bars would end with a few long walks running alone, so
//      its walks are cut into G segments (strategies/long_short_segments.hpp; G from
//      warp_segments_for): the segment kernel walks every (trial, symbol, segment) at once,
//      one warp each, recording its trades' (signal, exit) bars, then the trial kernel, one
//      warp per (trial, symbol), stitches each walk's segments in order instead of walking it
//      (the records' trades replayed 32 at a time, positions that span a cut walked) and
//      writes the same row: same trades, same order, same bits. Only symbols traded over one
//      block of bars are cut; a symbol over several blocks (a halving rung, a hold-out with
//      holes) is walked whole by the trial kernel, as without segments (its blocks are short,
//      and each starts flat). SignalSegments::walk = thread walks bar by bar on one thread
//      per walk or unit instead (segments_for; its stitch kernel is still one warp per walk,
//      which walks a several-block symbol bar by bar on every lane alike);
//  (c) the aggregation over symbols, one thread per trial (strategies/device/symbol_aggregate.cuh).
// A batch whose distinct series do not fit in the cache runs as parts of consecutive trials,
// and one whose per-symbol rows do not fit as chunks (same results). No atomics.
// Launches of different batches may run at once on their own streams (concurrent_launches):
// a launch waits for the series of the launches before it, one that evicts a cached series
// waits for the launches still reading it (strategies/device/launches_in_flight.cuh), and each
// launch's plan, segment records and per-symbol rows sit in a ring of device stages, each
// rewritten only after the launch that last used it.
// CUDA translation units only (no fmt).
#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <unordered_set>
#include <vector>

#include "strategies/device/cuda_check.cuh"
#include "strategies/device/device_buffers.hpp"
#include "strategies/device/device_strategy.hpp"
#include "strategies/device/device_trade_lists.cuh"
#include "strategies/device/launch_size.cuh"
#include "strategies/device/launches_in_flight.cuh"
#include "strategies/device/occupancy_probe.cuh"
#include "strategies/device/series_slots.hpp"
#include "strategies/device/signal_segments.hpp"
#include "strategies/device/symbol_aggregate.cuh"
#include "strategies/device/warp_long_short_walk.cuh"
#include "strategies/device/warp_segments.cuh"
#include "strategies/export.hpp"
#include "strategies/long_short_export.hpp"
#include "strategies/long_short_segments.hpp"
#include "strategies/signal_strategy.hpp"

namespace tpeopt::gpu {
namespace {

namespace ls = strategies::long_short;

struct SignalBars {
  const double *open, *high, *low, *close;  ///< the data set's bars, all symbols
};

/// The symbols a strategy trades (a subset trades some of the data set's) and their blocks.
struct SignalSymbols {
  int n;
  const long long* offset;  ///< symbol k's first bar in the data set's arrays (and in a series slot)
  const int* length;        ///< its bars
  const int* block_offset;  ///< its blocks: blocks[block_offset[k] .. block_offset[k + 1])
  const strategies::BarBlock* blocks;
};

struct SeriesTask {
  int kind, value, slot;
};

__device__ __forceinline__ ls::Bars symbol_bars(const SignalBars& b, const SignalSymbols& sy, int k) {
  const long long off = sy.offset[k];
  ls::Bars out;
  out.n = sy.length[k];
  out.begin = 0;
  out.open = b.open + off;
  out.high = b.high + off;
  out.low = b.low + off;
  out.close = b.close + off;
  return out;
}

/// Series tasks whose values are a chain over the bars (Logic::compute_series): one thread per
/// (task, symbol).
template <typename Logic>
__global__ void signal_series_kernel(SignalBars bars, SignalSymbols sy, const SeriesTask* tasks, int n_tasks,
                                     long long total_bars, double* pool, OccupancyProbe probe) {
  BlockOccupancy occupancy(probe);
  const long long total = static_cast<long long>(sy.n) * n_tasks;
  for (long long idx = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; idx < total;
       idx += static_cast<long long>(gridDim.x) * blockDim.x) {
    const int k = static_cast<int>(idx / n_tasks);
    const SeriesTask task = tasks[idx % n_tasks];
    Logic::compute_series(task.kind, task.value, symbol_bars(bars, sy, k),
                          pool + static_cast<long long>(task.slot) * total_bars + sy.offset[k]);
  }
}

/// Series tasks whose every bar is a function of the bars alone (Logic::series_at): one
/// thread per (task, symbol, bar), bars fastest (the writes coalesce); `max_bars` is the
/// longest symbol's length.
template <typename Logic>
__global__ void signal_series_per_bar_kernel(SignalBars bars, SignalSymbols sy, const SeriesTask* tasks, int n_tasks,
                                             long long total_bars, int max_bars, double* pool, OccupancyProbe probe) {
  BlockOccupancy occupancy(probe);
  const long long total = static_cast<long long>(n_tasks) * sy.n * max_bars;
  for (long long idx = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; idx < total;
       idx += static_cast<long long>(gridDim.x) * blockDim.x) {
    const int t = static_cast<int>(idx % max_bars);
    const long long task_symbol = idx / max_bars;
    const int k = static_cast<int>(task_symbol % sy.n);
    if (t >= sy.length[k]) continue;
    const SeriesTask task = tasks[task_symbol / sy.n];
    pool[static_cast<long long>(task.slot) * total_bars + sy.offset[k] + t] =
        Logic::series_at(task.kind, task.value, symbol_bars(bars, sy, k), t);
  }
}

struct SignalTrialLaunch {
  SignalBars bars;
  SignalSymbols sy;
  const double* pool;
  long long total_bars;  ///< doubles per series slot
  const int* slots;      ///< per trial of the part: its kNumSeries series slots
  const int* order;      ///< the part's trials in launch order (walk position -> trial of the part)
  const double* params;  ///< the batch's parameters (n x kNumSlots)
  int first;             ///< the part's first trial in the batch
  int count;             ///< trials in the part
  int chunk_first;       ///< the chunk's first trial in the batch (rows are per chunk)
  int row_count;         ///< trials in the chunk (the rows' symbol stride)
  ls::Objective objective;
  double* objective_out;           ///< [symbol][chunk trial]
  double* equity_out;              ///< [symbol][chunk trial]
  double* metrics_out;             ///< [symbol][chunk trial][metric]
  const long long* trade_offsets;  ///< recording: first trade of (batch trial i, symbol k) at [i * n + k]
  ls::Trade* trades;               ///< recording: output
  OccupancyProbe probe;            ///< the batch's (strategies/device/occupancy.hpp)
  // Folds (Strategy::with_folds). One symbol: each trial writes its score, violation and
  // metrics (base and fold columns, n_metrics) straight into the batch; no aggregation.
  // fold_rows (several symbols, or a trial's rows asked for): each (trial, symbol) writes its
  // row with its fold columns (row_metrics = n_metrics a row), and the aggregation finishes.
  strategies::FoldBars folds;  ///< n = 0: no folds; edge and embargo_end of every symbol (symbol_folds)
  strategies::FoldRule rule;
  strategies::symbols::AggregateSpec spec;
  int n_metrics;
  int fold_rows;    ///< 1: folded rows, as above
  int row_metrics;  ///< metrics in a symbol's row (kNumTradeMetrics without fold rows)
  int portfolio;    ///< 1: a fold's score in a row is its compound return (objective.aggregate portfolio)
  double* batch_scores;
  double* batch_violations;
  double* batch_metrics;
};

/// Symbol k's folds in its own bars: the launch keeps K + 1 edges and K embargo ends per symbol.
__device__ __forceinline__ strategies::FoldBars symbol_folds(const SignalTrialLaunch& L, int k) {
  const int K = L.folds.n;
  return {K, L.folds.edge + static_cast<long long>(k) * (K + 1), L.folds.embargo_end + static_cast<long long>(k) * K};
}

/// A launch's segmented walks (long_short_segments.hpp): unit u = (segment g, walk w) at u = g
/// * walks + w, walk w = (symbol k, part trial local) at w = k * count + local (the trial
/// kernel's thread order), each with room for `room` trades' bars. G = 0: not segmented.
struct SignalSegmentLaunch {
  int G = 0;
  int room = 0;
  long long walks = 0;
  int4* records = nullptr;       ///< per unit: count, end, complete (long_short::SegmentRecord)
  ls::BarPair* pairs = nullptr;  ///< per unit: room pairs
};

/// Trial `local` of the part over symbol k: its parameters and series.
template <typename Logic>
struct SymbolTrial {
  typename Logic::Params p;
  const double* series[Logic::kNumSeries];

  __device__ __forceinline__ SymbolTrial(const SignalTrialLaunch& L, int k, int local)
      : p(Logic::unpack(L.params + static_cast<long long>(L.first + local) * Logic::kNumSlots)) {
    for (int j = 0; j < Logic::kNumSeries; ++j)
      series[j] =
          L.pool +
          static_cast<long long>(L.slots[static_cast<long long>(local) * Logic::kNumSeries + j]) * L.total_bars +
          L.sy.offset[k];
  }
};

/// One thread per unit (kWarp: one warp, every lane alike, walking 32 bars a step): segment g
/// of walk w, flat from its first bar, recording its trades' bars (walk_segment). Symbols
/// over several blocks have nothing to record (the trial kernel walks them whole).
template <typename Logic, bool kWarp>
__global__ void signal_segment_kernel(SignalTrialLaunch L, SignalSegmentLaunch S) {
  BlockOccupancy occupancy(L.probe);
  const long long thread = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const long long u = kWarp ? thread / 32 : thread;  // uniform across a warp when kWarp
  const int lane = kWarp ? static_cast<int>(threadIdx.x & 31u) : 0;
  if (u >= S.walks * S.G) return;
  const long long w = u % S.walks;
  const int g = static_cast<int>(u / S.walks);
  const int k = static_cast<int>(w / L.count), local = L.order[w % L.count];
  const int b0 = L.sy.block_offset[k];
  if (L.sy.block_offset[k + 1] - b0 != 1) return;
  const SymbolTrial<Logic> t(L, k, local);
  const ls::Bars bars = symbol_bars(L.bars, L.sy, k);
  const ls::Bars b = ls::block_bars(bars, L.sy.blocks[b0].begin, L.sy.blocks[b0].end);
  const strategies::LogicSignals<Logic> signals{t.p, bars, t.series};
  const double* atr = t.series[Logic::kAtrSeries];
  const auto walk = [&](int from, int stop, auto&& on_exit) {
    if constexpr (kWarp) return warp_walk_from(b, t.p.costs, t.p.first_valid, atr, signals, from, stop, lane, on_exit);
    else return ls::walk_from(b, t.p.costs, t.p.first_valid, atr, signals, from, stop, on_exit);
  };
  record_segment(walk, ls::segment_cut(b, S.G, g), ls::segment_cut(b, S.G, g + 1), S.room, lane, S.pairs + u * S.room,
                 S.records + u);
}

/// How the trial kernel walks a (trial, symbol).
enum class TrialWalk : int {
  Thread,  ///< one thread walks it, bar by bar
  Stitch,  ///< one warp stitches the segments signal_segment_kernel recorded
  Warp,    ///< one warp walks it, 32 bars a step (warp_long_short_walk.cuh)
};

/// A trial kernel's work. Thread: one thread per (trial, symbol) walks the symbol's blocks.
/// Warp: one warp per (trial, symbol) walks each block 32 bars a step
/// (warp_run_backtest), every lane alike. Stitch: one warp per (trial, symbol) stitches a
/// one-block symbol's segments from signal_segment_kernel's records: the records' trades made
/// again from their bars 32 at a time, one per lane, then handed to every lane in trade order;
/// every lane runs the same stitch and sums on the same data (the same bits on each), and lane
/// 0 writes. (A symbol over several blocks is walked whole, by every lane alike.) Then the
/// symbol's row (with fold rows, its fold columns too, which every lane writes alike), or with
/// folds over one symbol the trial's columns of the batch (likewise; a stitch over one block:
/// lane 0 adds the whole span and lane 1 the folds, and lane 1 writes). kFolded: a launch with
/// folds (L.folds.n > 0 or L.fold_rows); a plain launch's kernel has none of the folds' code,
/// so the folds' registers and local memory cost the plain walk nothing.
template <typename Logic, TrialWalk kWalk, bool kFolded>
__device__ __forceinline__ void signal_trial(const SignalTrialLaunch& L, const SignalSegmentLaunch& S) {
  BlockOccupancy occupancy(L.probe);
  constexpr bool kWarpPerWalk = kWalk != TrialWalk::Thread;
  const long long thread = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const long long idx = kWarpPerWalk ? thread / 32 : thread;  // the walk: uniform across a warp when kWarpPerWalk
  const int lane = kWarpPerWalk ? static_cast<int>(threadIdx.x & 31u) : 0;
  if (idx >= static_cast<long long>(L.sy.n) * L.count) return;
  const int k = static_cast<int>(idx / L.count);
  const int local = L.order[idx % L.count];
  const int trial = L.first + local;  // in the batch
  const SymbolTrial<Logic> t(L, k, local);
  const int b0 = L.sy.block_offset[k];
  const int n_blocks = L.sy.block_offset[k + 1] - b0;
  const ls::Bars bars = symbol_bars(L.bars, L.sy, k);
  auto walk = [&](int block, const ls::Bars& b, auto&& on_trade) {
    if constexpr (kWalk == TrialWalk::Warp) {
      warp_run_backtest(b, t.p.costs, t.p.first_valid, t.series[Logic::kAtrSeries],
                        strategies::LogicSignals<Logic>{t.p, bars, t.series}, lane, on_trade);
      return;
    }
    if constexpr (kWalk == TrialWalk::Stitch) {
      if (n_blocks == 1) {
        const strategies::LogicSignals<Logic> signals{t.p, bars, t.series};
        const double* atr = t.series[Logic::kAtrSeries];
        auto adopt = [&](const ls::SegmentRecord& r, int from) {
          adopt_on_lanes(
              r, from, lane, [&](const ls::BarPair& bp) { return ls::replay_trade(b, t.p.costs, atr, signals, bp); },
              on_trade);
        };
        // What the records do not know, the warp walks 32 bars a step (a segment out of room
        // leaves the rest of it to this walk).
        ls::stitch_segments_with(
            [&](int from, int stop, auto&& on_exit) {
              return warp_walk_from(b, t.p.costs, t.p.first_valid, atr, signals, from, stop, lane, on_exit);
            },
            t.p.costs, S.G, [&](int g) { return ls::segment_cut(b, S.G, g); },
            [&](int g) { return read_segment(S.records, S.pairs, static_cast<long long>(g) * S.walks + idx, S.room); },
            on_trade, adopt);
        return;
      }
    }
    strategies::PlainWalk<Logic>{t.p, bars, t.series}(block, b, on_trade);
  };
  if constexpr (kFolded && kWalk == TrialWalk::Stitch) {
    if (!L.fold_rows && n_blocks == 1) {
      // Lane 0 adds each trade to the whole span's summary and lane 1 to its fold, one add
      // instruction stream on two lanes (add_lane_trade), where every lane adding both took
      // 1.3x the plain walk's time at 4,096 trials. Lane 1 holds its folds in its own local
      // memory, so it takes lane 0's summary and finishes: the same adds in the same order
      // as run_signal_folded_walks', the same bits. (Not in the folded warp kernel, held to
      // 128 registers: there it spills.)
      strategies::FoldSummaries<ls::Summary> storage;
      const strategies::FoldView<ls::Summary> folds = storage.view();
      strategies::reset_folds(folds, L.folds.n);
      strategies::FoldCursor<ls::Summary> cursor;
      strategies::start_folds(cursor);
      ls::Summary acc;
      const strategies::BarBlock& block = L.sy.blocks[b0];
      walk(0, ls::block_bars(bars, block.begin, block.end), [&](const ls::Trade& tr) {
        strategies::add_lane_trade(acc, cursor, folds, L.folds, lane, tr.entry_bar, tr.ret,
                                   [&](ls::Summary& s) { ls::add_trade(s, tr); });
      });
      strategies::flush_lane_fold(acc, cursor, folds, lane);
      const ls::Summary all = shfl_bits(acc, 0);
      if (lane != 1) return;
      double violation = 0.0;
      L.batch_scores[trial] =
          strategies::finish_signal_folded(all, strategies::one_block_score(all, L.objective), L.objective, L.spec,
                                           folds, L.folds, L.rule, &violation,
                                           L.batch_metrics + static_cast<long long>(trial) * L.n_metrics);
      L.batch_violations[trial] = violation;
      return;
    }
  }
  if (kFolded && !L.fold_rows) {
    double violation = 0.0;
    const double score =
        strategies::run_signal_folded_walks<Logic>(bars, L.sy.blocks + b0, n_blocks, L.objective, L.spec, L.folds,
                                                   L.rule, &violation,
                                                   L.batch_metrics + static_cast<long long>(trial) * L.n_metrics, walk);
    if (lane == 0) {
      L.batch_scores[trial] = score;
      L.batch_violations[trial] = violation;
    }
    return;
  }
  long long out = L.trades ? L.trade_offsets[static_cast<long long>(trial) * L.sy.n + k] : 0;
  auto record = [&](const ls::Trade& tr) {
    if (L.trades && lane == 0) L.trades[out] = tr;
    ++out;
  };
  const long long row = static_cast<long long>(k) * L.row_count + (trial - L.chunk_first);
  if (kFolded) {  // L.fold_rows
    double equity = 0.0;
    const double score =
        strategies::run_signal_symbol_folds<Logic>(bars, L.sy.blocks + b0, n_blocks, L.objective, L.portfolio != 0,
                                                   symbol_folds(L, k), L.metrics_out + row * L.row_metrics, &equity,
                                                   walk, record);
    if (lane != 0) return;
    L.objective_out[row] = score;
    L.equity_out[row] = equity;
    return;
  }
  ls::Summary all;
  const double score =
      strategies::run_signal_walks<Logic>(bars, L.sy.blocks + b0, n_blocks, L.objective, &all, walk, record);
  if (lane != 0) return;
  double m[strategies::kNumTradeMetrics];
  double violation = 0.0;
  ls::finish(all, L.objective, 0, m, &violation);
  L.objective_out[row] = score;
  L.equity_out[row] = all.equity;
  for (int q = 0; q < strategies::kNumTradeMetrics; ++q) L.metrics_out[row * strategies::kNumTradeMetrics + q] = m[q];
}

/// The trial kernels (signal_trial).
template <typename Logic, TrialWalk kWalk, bool kFolded>
__global__ void signal_trial_kernel(SignalTrialLaunch L, SignalSegmentLaunch S) {
  signal_trial<Logic, kWalk, kFolded>(L, S);
}

/// The folded warp walk's kernel, held to 128 registers (blocks of up to 512 threads). Unbound,
/// one of the bundled Logics took 130, which leaves three blocks of 128 threads an SM instead
/// of four: 8 folds cost 1.53x its plain walk at 65,536 trials on the H200; held to 128 (121
/// used, no spills), 1.17x (docs/benchmarks.md, "The cost of scoring folds").
template <typename Logic>
__global__ void __launch_bounds__(512, 1) signal_folded_warp_kernel(SignalTrialLaunch L, SignalSegmentLaunch S) {
  signal_trial<Logic, TrialWalk::Warp, true>(L, S);
}

template <typename T>
DeviceBuffer<T> upload_vector(const std::vector<T>& h, cudaStream_t stream) {
  DeviceBuffer<T> d(std::max<std::size_t>(1, h.size()));
  if (!h.empty()) CUDA_CHECK(cudaMemcpyAsync(d.data(), h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice, stream));
  return d;
}

/// (kind, value) as one key.
inline std::uint64_t series_id(const strategies::SeriesKey& k) {
  return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(k.kind)) << 32) | static_cast<std::uint32_t>(k.value);
}

// Auto segments, from a sweep of forced G on an H200 (docs/benchmarks.md, "The signal
// strategies' walks cut into segments"; the two signal strategies over 5,000 bars): at 4,096
// walks GPU time per trial falls 4.4 to 5x from G = 1 to G = 16 (312-bar segments) and moves
// little to G = 32; at 65,536 walks G = 2 to 4 gains up to 8%. Half a unit per resident thread of the
// segment kernel (about 76,000 units on 132 SMs) gives G = 19 and 2 there.
constexpr int kSegmentThreads = 128;              ///< signal_segment_kernel's block size
constexpr long long kResidentThreadsPerUnit = 2;  ///< auto segments: one unit per two resident threads
constexpr long long kMinSegmentBars = 128;        ///< auto segments: at least this many bars each
constexpr long long kMaxSegments = 64;            ///< auto segments: at most this many per walk
// Auto warp segments, from a sweep of forced G on an H200 (docs/benchmarks.md, "The signal
// strategies' walks on a warp"; the two bundled signal strategies): over 1,000,000 bars at
// 4,096 walks GPU time per trial falls with G up to 64 (97.8, 69.7, 62.6, 59.3 us at G = 1,
// 4, 16, 64 for one, 38.1 to 14.6 for the other); over 5,000 bars G = 4 is the fastest of 1,
// 2, 4 at 4,096 walks, and at 65,536 G = 2 or 4, within 10% of G = 1. 32 waves of the warp
// segment kernel and segments of at least 1,024 bars give G = 3 over 4,000 bars at 4,096
// walks, and over the long series about 38 (with the 36 resident warps an SM that its 52 to
// 56 registers allow on the H200's 132 SMs). A batch whose count alone would give fewer than
// 4 is not cut: over 1,000,000 bars at 65,536 walks G = 2 took 2.8 and 3.0 times G = 1's time
// (a segment's records then have room for a few thousand trades, and the stitch walks the
// rest of the segment itself).
constexpr long long kWarpUnitsPerResidentWarp = 32;  ///< auto warp segments: units for this many waves
constexpr long long kMinWarpSegmentBars = 1024;      ///< auto warp segments: at least this many bars each
constexpr long long kMinWarpSegments = 4;            ///< auto warp segments: fewer are not worth the stitch
/// A launch's recorded trade bars take at most this: 4,096 walks x 64 segments have room for
/// 2,048 trades a segment (a trade every 8 bars of a 1,000,000-bar series); a segment with
/// more leaves the rest to the stitch, which walks it on one warp.
constexpr std::size_t kMaxPairBytes = std::size_t{1} << 32;

template <typename Logic>
class SignalDevice final : public DeviceStrategy {
  /// What one launch writes and reads besides the batch and the series: its parts' plans, its
  /// segment records and its chunks' per-symbol rows.
  struct Stage {
    DeviceBuffer<char> plan;
    DeviceBuffer<int4> records;
    DeviceBuffer<ls::BarPair> pairs;
    DeviceBuffer<double> rows_objective, rows_equity, rows_metrics;
    cudaEvent_t done{};  ///< after the launch that last used the stage
    bool used = false;
  };

 public:
  /// `fold_rows`: a folded strategy over one symbol keeps its rows too (signal_one_trial);
  /// over several symbols they always are.
  SignalDevice(const strategies::SignalStrategy<Logic>& s, cudaStream_t stream, bool fold_rows = false)
      : objective_(s.options().objective), spec_(s.aggregate_spec()), slots_(1) {
    const CandleSet& set = s.data();
    n_symbols_ = static_cast<int>(s.symbol_names().size());
    total_bars_ = static_cast<long long>(set.n_bars());
    d_open_ = upload_vector(set.bars.open, stream);
    d_high_ = upload_vector(set.bars.high, stream);
    d_low_ = upload_vector(set.bars.low, stream);
    d_close_ = upload_vector(set.bars.close, stream);
    std::vector<long long> offset;
    std::vector<int> length, block_offset{0};
    std::vector<strategies::BarBlock> blocks;
    for (int k = 0; k < n_symbols_; ++k) {
      const std::size_t d = s.data_symbol(static_cast<std::size_t>(k));
      offset.push_back(static_cast<long long>(set.offset[d]));
      length.push_back(static_cast<int>(set.length[d]));
      max_bars_ = std::max(max_bars_, length.back());
      const auto& b = s.blocks(static_cast<std::size_t>(k));
      blocks.insert(blocks.end(), b.begin(), b.end());
      block_offset.push_back(static_cast<int>(blocks.size()));
    }
    d_offset_ = upload_vector(offset, stream);
    d_length_ = upload_vector(length, stream);
    d_block_offset_ = upload_vector(block_offset, stream);
    d_blocks_ = upload_vector(blocks, stream);
    n_folds_ = static_cast<int>(s.folds().n_folds());
    std::vector<int> fold_edge, fold_embargo_end;  // per symbol k, in its bars (symbol_folds)
    if (n_folds_ > 0) {
      for (int k = 0; k < n_symbols_; ++k) {
        const std::vector<int> e = s.fold_edges(static_cast<std::size_t>(k));
        const std::vector<int> b = s.fold_embargo_ends(static_cast<std::size_t>(k));
        fold_edge.insert(fold_edge.end(), e.begin(), e.end());
        fold_embargo_end.insert(fold_embargo_end.end(), b.begin(), b.end());
      }
      d_fold_edge_ = upload_vector(fold_edge, stream);
      d_fold_embargo_end_ = upload_vector(fold_embargo_end, stream);
      rule_ = s.fold_rule();
      n_metrics_ = static_cast<int>(s.metric_names().size());
      fold_rows_ = n_symbols_ > 1 || fold_rows;
      if (fold_rows_) row_metrics_ = n_metrics_;
      portfolio_ = spec_.aggregate == strategies::symbols::Aggregate::Portfolio;
    }
    CUDA_CHECK(cudaStreamSynchronize(stream));  // host vectors may go once the copies are done
    std::size_t free_bytes = 0, total_bytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    // The series cache takes at most half of what is free, the per-symbol rows of each stage
    // an eighth.
    const std::size_t series_bytes = static_cast<std::size_t>(total_bars_) * sizeof(double);
    std::size_t cap = std::min<std::size_t>(free_bytes / 2 / std::max<std::size_t>(1, series_bytes), 1u << 16);
    segments_ = signal_segments();
    if (segments_.max_series > 0 && segments_.max_series < Logic::kNumSeries)
      throw Error("executor cuda: the " + s.name() + " series cache was limited to " +
                  std::to_string(segments_.max_series) + " series; a trial reads " + std::to_string(Logic::kNumSeries));
    if (segments_.max_series > 0) cap = std::min(cap, static_cast<std::size_t>(segments_.max_series));
    if (cap < static_cast<std::size_t>(Logic::kNumSeries))
      throw Error("executor cuda: not enough device memory for the " + s.name() + " series (" +
                  std::to_string(free_bytes >> 20) + " MiB free)");
    slots_ = SeriesSlots<std::uint64_t>(cap);
    const std::size_t row_bytes = static_cast<std::size_t>(n_symbols_) * (2 + row_metrics_) * sizeof(double);
    chunk_trials_ = std::max<std::size_t>(1, free_bytes / 8 / std::max<std::size_t>(1, row_bytes));
    // Segmented walks: the records of each stage take at most a sixteenth of what is free (and
    // kMaxPairBytes).
    pair_bytes_ = std::min(kMaxPairBytes, free_bytes / 16);
    for (int k = 0; k < n_symbols_; ++k) {
      if (block_offset[k + 1] - block_offset[k] != 1) continue;
      const strategies::BarBlock& b = blocks[static_cast<std::size_t>(block_offset[k])];
      cut_bars_ = std::max<long long>(cut_bars_, b.end - b.begin);
    }
    int device = 0, sms = 0, per_sm = 0, warp_per_sm = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, signal_segment_kernel<Logic, false>,
                                                             kSegmentThreads, 0));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&warp_per_sm, signal_segment_kernel<Logic, true>,
                                                             kSegmentThreads, 0));
    resident_threads_ = std::max<long long>(1, static_cast<long long>(sms) * per_sm * kSegmentThreads);
    resident_warps_ = std::max<long long>(1, static_cast<long long>(sms) * warp_per_sm * (kSegmentThreads / 32));
    CUDA_CHECK(cudaEventCreateWithFlags(&series_ready_, cudaEventDisableTiming));
    for (Stage& st : stages_) CUDA_CHECK(cudaEventCreateWithFlags(&st.done, cudaEventDisableTiming));
  }

  ~SignalDevice() override {
    launches_.wait_quietly();  // before the buffers they read go
    for (const Stage& st : stages_)
      if (st.used) cudaEventSynchronize(st.done);
    cudaEventDestroy(series_ready_);
    for (Stage& st : stages_) cudaEventDestroy(st.done);
  }
  SignalDevice(const SignalDevice&) = delete;
  SignalDevice& operator=(const SignalDevice&) = delete;

  bool concurrent_launches() const override { return true; }

  void launch(const DeviceBatch& batch, cudaStream_t stream, int block_size) override {
    run(batch, stream, block_size, nullptr, nullptr);
  }

  /// launch(), recording each (trial i, symbol k)'s trades from d_trade_offsets[i * S + k] when
  /// d_trades is not null. The rows of the last chunk stay in rows_*() ([symbol][trial]).
  void run(const DeviceBatch& batch, cudaStream_t stream, int block_size, const long long* d_trade_offsets,
           ls::Trade* d_trades) {
    const std::size_t n = batch.n;
    if (n == 0) return;
    TPEOPT_ASSERT(batch.host_params != nullptr, "signal strategy: the batch has no host copy of its parameters");
    keys_.resize(n * Logic::kNumSeries);
    for (std::size_t i = 0; i < n; ++i) {
      strategies::SeriesKey k[Logic::kNumSeries];
      Logic::series_keys(Logic::unpack(batch.host_params + i * Logic::kNumSlots), k);
      for (int j = 0; j < Logic::kNumSeries; ++j) keys_[i * Logic::kNumSeries + j] = series_id(k[j]);
    }
    launches_.retire();
    // The series this launch reads may come from earlier launches, on other streams. Always,
    // not only when the stream differs: a stream handle can be reused after the one that made
    // the last launch is destroyed (waiting on the same stream costs nothing).
    if (series_recorded_) CUDA_CHECK(cudaStreamWaitEvent(stream, series_ready_, 0));
    const std::uint64_t first_part = slots_.part() + 1;
    // The next stage of the ring, once the launch that last used it is done.
    Stage& st = stages_[stage_next_];
    stage_next_ = (stage_next_ + 1) % stages_.size();
    if (st.used) CUDA_CHECK(cudaStreamWaitEvent(stream, st.done, 0));
    st.used = true;  // a launch that throws midway (a CUDA error) ends the run; the twin is not used again
    stage_ = &st;
    for (std::size_t chunk = 0; chunk < n; chunk += chunk_trials_) {
      const std::size_t chunk_end = std::min(n, chunk + chunk_trials_), chunk_count = chunk_end - chunk;
      const std::size_t rows = chunk_count * static_cast<std::size_t>(n_symbols_);
      if (rows > st.rows_objective.capacity() ||
          rows * static_cast<std::size_t>(row_metrics_) > st.rows_metrics.capacity())
        drain(st, stream);
      st.rows_objective.resize(rows);
      st.rows_equity.resize(rows);
      st.rows_metrics.resize(rows * static_cast<std::size_t>(row_metrics_));
      rows_count_ = chunk_count;
      std::size_t begin = chunk;
      while (begin < chunk_end) {
        // Grow the part while its distinct series fit in the cache.
        std::unordered_set<std::uint64_t> in_part;
        std::vector<std::uint64_t> part_keys;
        std::size_t end = begin;
        while (end < chunk_end) {
          std::size_t fresh = 0;
          for (int j = 0; j < Logic::kNumSeries; ++j) {
            const std::uint64_t key = keys_[end * Logic::kNumSeries + j];
            bool seen = in_part.count(key) > 0;
            for (int q = 0; q < j && !seen; ++q) seen = keys_[end * Logic::kNumSeries + q] == key;
            fresh += seen ? 0 : 1;
          }
          if (part_keys.size() + fresh > slots_.max_slots()) break;
          for (int j = 0; j < Logic::kNumSeries; ++j)
            if (in_part.insert(keys_[end * Logic::kNumSeries + j]).second)
              part_keys.push_back(keys_[end * Logic::kNumSeries + j]);
          ++end;
        }
        TPEOPT_ASSERT(end > begin, "signal strategy: a trial needs more series than the cache holds");
        run_part(batch, begin, end, chunk, chunk_count, part_keys, stream, block_size, d_trade_offsets, d_trades);
        begin = end;
      }
      if (n_folds_ == 0 || fold_rows_)  // folded trials over one symbol wrote their results into the batch
        launch_rows_aggregate(st.rows_objective.data(), st.rows_equity.data(), st.rows_metrics.data(),
                              static_cast<int>(chunk_count), n_symbols_, spec_, batch.scores + chunk,
                              batch.violations + chunk, batch.metrics + chunk * static_cast<std::size_t>(n_metrics_),
                              stream, fold_rows_ ? n_folds_ : 0, rule_);
    }
    launches_.record(first_part, slots_.part(), stream);
    CUDA_CHECK(cudaEventRecord(st.done, stream));  // the stage may be rewritten after this
  }

  int n_symbols() const { return n_symbols_; }
  /// Metrics in a symbol's row: the base metrics, then with fold rows the fold columns.
  int row_metrics() const { return row_metrics_; }
  std::size_t rows_count() const { return rows_count_; }
  /// Before a buffer of the stage grows (its old allocation is freed): the stage's previous
  /// launch and this launch's earlier work on `stream` are done with it.
  static void drain(const Stage& st, cudaStream_t stream) {
    CUDA_CHECK(cudaEventSynchronize(st.done));
    CUDA_CHECK(cudaStreamSynchronize(stream));
  }

  /// The last launch's rows of its last chunk.
  const double* rows_objective() const { return stage_->rows_objective.data(); }
  const double* rows_equity() const { return stage_->rows_equity.data(); }
  const double* rows_metrics() const { return stage_->rows_metrics.data(); }

 private:
  void run_part(const DeviceBatch& batch, std::size_t begin, std::size_t end, std::size_t chunk,
                std::size_t chunk_count, const std::vector<std::uint64_t>& part_keys, cudaStream_t stream,
                int block_size, const long long* d_trade_offsets, ls::Trade* d_trades) {
    if (slots_.reserve(part_keys.size())) {
      // Kernels of earlier launches, this one's earlier parts included, may still read the old pool.
      launches_.synchronize();
      CUDA_CHECK(cudaStreamSynchronize(stream));
      pool_ = DeviceBuffer<double>();
      pool_ = DeviceBuffer<double>(slots_.slots() * static_cast<std::size_t>(total_bars_));
    }
    // The part's resident series stay; missing ones take the least recently used slots, once
    // the launches still reading what those held are done.
    std::uint64_t evicted_use = 0;
    std::vector<SeriesTask> tasks;
    for (const auto& [key, slot] : slots_.place(part_keys, &evicted_use))
      tasks.push_back({static_cast<int>(key >> 32), static_cast<int>(static_cast<std::uint32_t>(key)), slot});
    if (evicted_use > 0) launches_.wait_for_readers(evicted_use, stream);
    Stage& st = *stage_;
    const std::size_t count = end - begin;
    std::vector<int> trial_slots(count * Logic::kNumSeries + count);  // then the launch order
    for (std::size_t i = 0; i < count * Logic::kNumSeries; ++i)
      trial_slots[i] = slots_.slot(keys_[begin * Logic::kNumSeries + i]);
    launch_order(trial_slots.data(), count, trial_slots.data() + count * Logic::kNumSeries);

    // Upload the plan (pageable copies: staged before the call returns). The device buffer
    // grows only after the stream has drained.
    const std::size_t b_slots = trial_slots.size() * sizeof(int), b_tasks = tasks.size() * sizeof(SeriesTask);
    const std::size_t o_tasks = (b_slots + 255) / 256 * 256, total = o_tasks + b_tasks;
    if (total > st.plan.capacity()) {
      drain(st, stream);
      st.plan.resize(total);
    }
    CUDA_CHECK(cudaMemcpyAsync(st.plan.data(), trial_slots.data(), b_slots, cudaMemcpyHostToDevice, stream));
    if (b_tasks > 0)
      CUDA_CHECK(cudaMemcpyAsync(st.plan.data() + o_tasks, tasks.data(), b_tasks, cudaMemcpyHostToDevice, stream));
    const SignalBars bars{d_open_.data(), d_high_.data(), d_low_.data(), d_close_.data()};
    const SignalSymbols sy{n_symbols_, d_offset_.data(), d_length_.data(), d_block_offset_.data(), d_blocks_.data()};
    if (!tasks.empty()) {
      const auto* d_tasks = reinterpret_cast<const SeriesTask*>(st.plan.data() + o_tasks);
      const int n_tasks = static_cast<int>(tasks.size());
      const int threads = 128;
      if constexpr (strategies::SeriesPerBar<Logic>) {
        const long long work = static_cast<long long>(n_symbols_) * n_tasks * max_bars_;
        const unsigned blocks = static_cast<unsigned>(std::min<long long>((work + threads - 1) / threads, 1 << 20));
        signal_series_per_bar_kernel<Logic><<<blocks, threads, 0, stream>>>(bars, sy, d_tasks, n_tasks, total_bars_,
                                                                            max_bars_, pool_.data(), batch.probe);
        CUDA_CHECK_LAUNCH("signal_series_per_bar_kernel");
      } else {
        const long long work = static_cast<long long>(n_symbols_) * n_tasks;
        const unsigned blocks = static_cast<unsigned>(std::min<long long>((work + threads - 1) / threads, 1 << 20));
        signal_series_kernel<Logic>
            <<<blocks, threads, 0, stream>>>(bars, sy, d_tasks, n_tasks, total_bars_, pool_.data(), batch.probe);
        CUDA_CHECK_LAUNCH("signal_series_kernel");
      }
      CUDA_CHECK(cudaEventRecord(series_ready_, stream));  // later launches read these series
      series_recorded_ = true;
    }
    SignalTrialLaunch L;
    L.bars = bars;
    L.sy = sy;
    L.pool = pool_.data();
    L.total_bars = total_bars_;
    L.slots = reinterpret_cast<const int*>(st.plan.data());
    L.order = L.slots + count * Logic::kNumSeries;
    L.params = batch.params;
    L.first = static_cast<int>(begin);
    L.count = static_cast<int>(count);
    L.chunk_first = static_cast<int>(chunk);
    L.row_count = static_cast<int>(chunk_count);
    L.objective = objective_;
    L.objective_out = st.rows_objective.data();
    L.equity_out = st.rows_equity.data();
    L.metrics_out = st.rows_metrics.data();
    L.trade_offsets = d_trade_offsets;
    L.trades = d_trades;
    L.probe = batch.probe;
    L.folds = {n_folds_, d_fold_edge_.data(), d_fold_embargo_end_.data()};
    L.rule = rule_;
    L.spec = spec_;
    L.n_metrics = n_metrics_;
    L.fold_rows = fold_rows_ ? 1 : 0;
    L.row_metrics = row_metrics_;
    L.portfolio = portfolio_ ? 1 : 0;
    L.batch_scores = batch.scores;
    L.batch_violations = batch.violations;
    L.batch_metrics = batch.metrics;
    const long long work = static_cast<long long>(n_symbols_) * L.count;
    const bool warp = warp_walks();
    const int G = warp ? warp_segments_for(count) : segments_for(count);
    // A trial kernel with one warp (32 threads) or one thread a walk, in blocks within what it
    // can launch: a kernel over 128 registers a thread (the Stitch kernels) has no room for
    // blocks of 512 threads (strategies/device/launch_size.cuh).
    auto launch_trials = [&](auto kernel, int threads_per_walk, const SignalSegmentLaunch& S) {
      const int threads = launchable_block_size(kernel, block_size);
      kernel<<<static_cast<unsigned>((work * threads_per_walk + threads - 1) / threads), threads, 0, stream>>>(L, S);
    };
    const bool folded = n_folds_ > 0;
    if (G <= 1 && warp) {
      if (folded) launch_trials(signal_folded_warp_kernel<Logic>, 32, SignalSegmentLaunch{});
      else launch_trials(signal_trial_kernel<Logic, TrialWalk::Warp, false>, 32, SignalSegmentLaunch{});
      CUDA_CHECK_LAUNCH("signal_trial_kernel or signal_folded_warp_kernel (warp)");
      return;
    }
    if (G <= 1) {
      if (folded) launch_trials(signal_trial_kernel<Logic, TrialWalk::Thread, true>, 1, SignalSegmentLaunch{});
      else launch_trials(signal_trial_kernel<Logic, TrialWalk::Thread, false>, 1, SignalSegmentLaunch{});
      CUDA_CHECK_LAUNCH("signal_trial_kernel");
      return;
    }
    const SignalSegmentLaunch S = segment_scratch(st, G, work, stream);
    const long long units = work * G, unit_threads = warp ? units * 32 : units;
    const unsigned blocks = static_cast<unsigned>((unit_threads + kSegmentThreads - 1) / kSegmentThreads);
    if (warp) signal_segment_kernel<Logic, true><<<blocks, kSegmentThreads, 0, stream>>>(L, S);
    else signal_segment_kernel<Logic, false><<<blocks, kSegmentThreads, 0, stream>>>(L, S);
    CUDA_CHECK_LAUNCH("signal_segment_kernel");
    if (folded) launch_trials(signal_trial_kernel<Logic, TrialWalk::Stitch, true>, 32, S);
    else launch_trials(signal_trial_kernel<Logic, TrialWalk::Stitch, false>, 32, S);
    CUDA_CHECK_LAUNCH("signal_trial_kernel (stitch)");
  }

  /// The part's trials in launch order: by the cache slot of their first series (a counting
  /// sort: stable, linear), so that neighbouring threads and warps mostly read the same
  /// series (L1 and L2 reuse). Each trial's walk, and where it writes, is the same in any
  /// order.
  void launch_order(const int* trial_slots, std::size_t count, int* order) {
    slot_start_.assign(slots_.slots() + 1, 0);
    for (std::size_t i = 0; i < count; ++i)
      ++slot_start_[static_cast<std::size_t>(trial_slots[i * Logic::kNumSeries]) + 1];
    for (std::size_t q = 1; q < slot_start_.size(); ++q) slot_start_[q] += slot_start_[q - 1];
    for (std::size_t i = 0; i < count; ++i)
      order[slot_start_[static_cast<std::size_t>(trial_slots[i * Logic::kNumSeries])]++] = static_cast<int>(i);
  }

  /// One warp per walk or unit, 32 bars a step (warp_long_short_walk.cuh), unless
  /// SignalSegments::walk asks for threads.
  bool warp_walks() const { return segments_.walk != SignalSegments::Walk::Thread; }

  /// Segments per warp walk: SignalSegments::segments when forced; auto: enough units for
  /// kWarpUnitsPerResidentWarp waves of the warp segment kernel (so that the longest walks
  /// of a small batch are cut and the device stays full to the end), segments of at least
  /// kMinWarpSegmentBars bars of the longest one-block walk, at most kMaxSegments; 1 (the
  /// trial kernel walks whole) when the count alone would give fewer than kMinWarpSegments
  /// (the length may then still give fewer) or no symbol is traded over one block.
  int warp_segments_for(std::size_t count) const {
    return auto_segments(count, resident_warps_ * kWarpUnitsPerResidentWarp, kMinWarpSegments, kMinWarpSegmentBars);
  }

  /// Segments per thread walk (SignalSegments::segments). Auto: enough units for one per
  /// kResidentThreadsPerUnit resident threads of signal_segment_kernel, segments of at
  /// least kMinSegmentBars bars of the longest one-block walk, at most kMaxSegments; 1 (no
  /// segments) when the walks alone are that many or no symbol is traded over one block.
  int segments_for(std::size_t count) const {
    return auto_segments(count, std::max<long long>(1, resident_threads_ / kResidentThreadsPerUnit), 1,
                         kMinSegmentBars);
  }

  /// Segments per walk of `count` trials' walks: SignalSegments::segments when forced; else
  /// enough for `target_units` units, 1 when that gives fewer than `min_segments`, and at most
  /// one per `min_bars` bars of the longest one-block walk and kMaxSegments; 1 when no symbol
  /// is traded over one block.
  int auto_segments(std::size_t count, long long target_units, long long min_segments, long long min_bars) const {
    if (cut_bars_ == 0) return 1;
    if (segments_.segments > 0) return segments_.segments;
    const long long walks = static_cast<long long>(count) * n_symbols_;
    const long long by_count = (target_units + walks - 1) / walks;
    if (by_count < min_segments) return 1;
    const long long by_length = std::max<long long>(1, (cut_bars_ - 1) / min_bars);
    return static_cast<int>(std::max<long long>(1, std::min({by_count, by_length, kMaxSegments})));
  }

  /// The records of `walks` walks cut into G segments: room per unit for every trade a
  /// segment can make (one per two bars it scans) when the memory cap allows, else what it
  /// allows (a unit out of room stops there and the stitch walks the rest: same results).
  /// The stage's buffers grow only after the stream has drained (the stage's earlier users,
  /// this launch's earlier parts among them, may still read them; the stream waits for them).
  SignalSegmentLaunch segment_scratch(Stage& st, int G, long long walks, cudaStream_t stream) {
    const long long units = walks * G;
    const long long segment_bars = (cut_bars_ - 1) / G + 1;
    long long room = segments_.segment_room > 0 ? segments_.segment_room : segment_bars / 2 + 2;
    room = std::max<long long>(1, std::min<long long>(room, static_cast<long long>(pair_bytes_ / sizeof(ls::BarPair)) /
                                                                units));
    const std::size_t n_pairs = static_cast<std::size_t>(units) * static_cast<std::size_t>(room);
    if (st.records.capacity() < static_cast<std::size_t>(units) || st.pairs.capacity() < n_pairs) {
      drain(st, stream);
      st.records.resize(static_cast<std::size_t>(units));
      st.pairs.resize(n_pairs);
    }
    SignalSegmentLaunch S;
    S.G = G;
    S.room = static_cast<int>(room);
    S.walks = walks;
    S.records = st.records.data();
    S.pairs = st.pairs.data();
    return S;
  }

  ls::Objective objective_;
  strategies::symbols::AggregateSpec spec_;
  int n_symbols_ = 0;
  int max_bars_ = 0;  ///< the longest symbol's bars
  long long total_bars_ = 0;
  DeviceBuffer<double> d_open_, d_high_, d_low_, d_close_;
  DeviceBuffer<long long> d_offset_;
  DeviceBuffer<int> d_length_, d_block_offset_;
  DeviceBuffer<strategies::BarBlock> d_blocks_;
  SeriesSlots<std::uint64_t> slots_;  ///< which (kind, value) series sits in which slot of pool_
  DeviceBuffer<double> pool_;         ///< slots x total_bars_ doubles
  std::size_t chunk_trials_ = 1, rows_count_ = 0;
  std::vector<std::uint64_t> keys_;  ///< per trial of the batch: its series' keys
  std::array<Stage, 2> stages_;      ///< in turn: two launches in flight before one waits
  std::size_t stage_next_ = 0;
  Stage* stage_ = &stages_[0];  ///< the last launch's
  LaunchesInFlight launches_;
  cudaEvent_t series_ready_{};  ///< after the last part's series work
  bool series_recorded_ = false;
  int n_folds_ = 0, n_metrics_ = strategies::kNumTradeMetrics, row_metrics_ = strategies::kNumTradeMetrics;
  bool fold_rows_ = false, portfolio_ = false;
  strategies::FoldRule rule_{};
  DeviceBuffer<int> d_fold_edge_, d_fold_embargo_end_;
  // Segmented walks (long_short_segments.hpp).
  SignalSegments segments_;         ///< the process's setting when the twin was made
  long long cut_bars_ = 0;          ///< bars of the longest one-block walk (0: none, never segmented)
  long long resident_warps_ = 1;    ///< warps of signal_segment_kernel<Logic, true> resident at once
  std::vector<int> slot_start_;     ///< launch_order's counts
  long long resident_threads_ = 1;  ///< threads of signal_segment_kernel resident at once on the device
  std::size_t pair_bytes_ = 0;      ///< cap on the records' trade bars
};

/// One trial on CUDA device 0, its per-symbol rows and (with `trades`) its trades per symbol.
template <typename Logic>
void signal_one_trial(const strategies::SignalStrategy<Logic>& s, const double* params, int block_size,
                      strategies::SymbolResults* rows, std::vector<std::vector<ls::Trade>>* trades) {
  if (s.folds().n_folds() > 0 && trades) {  // the trades do not depend on the folds: the strategy without them
    const auto plain = s.with_folds({}, {});
    signal_one_trial<Logic>(dynamic_cast<const strategies::SignalStrategy<Logic>&>(*plain), params, block_size, nullptr,
                            trades);
    if (!rows) return;
    trades = nullptr;
  }
  CUDA_CHECK(cudaSetDevice(0));
  OwnedStream owned;
  const cudaStream_t stream = owned.get();
  SignalDevice<Logic> device(s, stream, /*fold_rows=*/true);  // with folds, the rows' fold columns too
  const std::size_t S = static_cast<std::size_t>(device.n_symbols());
  const std::size_t M = static_cast<std::size_t>(device.row_metrics());
  const StagedBatch staged(params, 1, Logic::kNumSlots, s.metric_names().size(), stream);
  device.run(staged.batch(), stream, block_size, nullptr, nullptr);
  strategies::SymbolResults r;
  r.objective.resize(S);
  r.equity.resize(S);
  r.metrics.resize(S * M);
  CUDA_CHECK(
      cudaMemcpyAsync(r.objective.data(), device.rows_objective(), S * sizeof(double), cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(
      cudaMemcpyAsync(r.equity.data(), device.rows_equity(), S * sizeof(double), cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(
      cudaMemcpyAsync(r.metrics.data(), device.rows_metrics(), S * M * sizeof(double), cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  if (trades) {
    // Each symbol's trades from its offset (their counts are the rows' trades column).
    std::vector<long long> counts(S);
    for (std::size_t k = 0; k < S; ++k)
      counts[k] = static_cast<long long>(r.metrics[k * M + strategies::kTradeMetricTrades]);
    *trades = record_trade_lists<ls::Trade>(device, staged.batch(), stream, block_size, counts);
  }
  if (rows) *rows = std::move(r);
}

/// The twin of a SignalStrategy<Logic> (the registry's device factory).
template <typename Logic>
std::unique_ptr<DeviceStrategy> make_signal_device(const strategies::Strategy& strategy, cudaStream_t stream) {
  return std::make_unique<SignalDevice<Logic>>(dynamic_cast<const strategies::SignalStrategy<Logic>&>(strategy),
                                               stream);
}

/// One trial's trades per symbol computed on CUDA device 0 (the registry's trades.device).
template <typename Logic>
strategies::ExportedTrades signal_trades_device(const strategies::Strategy& strategy, const double* params,
                                                int block_size) {
  const auto& s = dynamic_cast<const strategies::SignalStrategy<Logic>&>(strategy);
  std::vector<std::vector<ls::Trade>> trades;
  signal_one_trial<Logic>(s, params, block_size, nullptr, &trades);
  strategies::ExportedTrades out(trades.size());
  for (std::size_t k = 0; k < trades.size(); ++k) {
    const CandleSet& set = s.data();
    const std::int64_t* time_ms = set.bars.time_ms.data() + set.offset[s.data_symbol(k)];
    for (const auto& t : trades[k]) out[k].push_back(strategies::export_long_short_trade(t, time_ms));
  }
  return out;
}

/// One trial's per-symbol results computed on CUDA device 0 (the registry's symbol_results.device).
template <typename Logic>
strategies::SymbolResults signal_symbols_device(const strategies::Strategy& strategy, const double* params,
                                                int block_size) {
  strategies::SymbolResults rows;
  signal_one_trial<Logic>(dynamic_cast<const strategies::SignalStrategy<Logic>&>(strategy), params, block_size, &rows,
                          nullptr);
  return rows;
}

}  // namespace
}  // namespace tpeopt::gpu
