// Kernels of the trade_filter device twin (see trade_filter_device.hpp).
#include <algorithm>

#include "strategies/device/cuda_check.cuh"
#include "strategies/device/occupancy_probe.cuh"
#include "strategies/trade_filter/trade_filter_device.hpp"
#include "strategies/trade_filter/trade_filter_device_data.hpp"
#include "strategies/trade_filter/trade_filter_folds.hpp"
#include "strategies/trade_filter/trade_filter_grid.hpp"

namespace tpeopt::gpu {

namespace tf = strategies::trade_filter;

namespace {

struct BatchParams {
  const double* slots;
  __device__ tf::Params operator()(std::uint64_t i) const { return tf::params_from_slots(slots + i * tf::kSlots); }
};

struct GridParams {
  tf::GridLayout layout;
  const float* fvalues;
  std::uint64_t first;
  __device__ tf::Params operator()(std::uint64_t i) const { return tf::grid_params(layout, fvalues, first + i); }
};

/// Adds a run of one fold's trades to the fold's words (kFoldTallyWords: sum_q, kept, sq_lo,
/// sq_hi) with integer atomics: the 128-bit sum of squares carries from its low word into its
/// high word, so the words end as the exact totals whatever the order of the additions.
__device__ void add_fold_tally(unsigned long long* words, const tf::FoldTally& t) {
  atomicAdd(words + 0, static_cast<unsigned long long>(t.sum_q));
  atomicAdd(words + 1, static_cast<unsigned long long>(t.kept));
  const unsigned long long lo = t.sq_lo;
  const unsigned long long before = atomicAdd(words + 2, lo);
  const unsigned long long hi = t.sq_hi + (before + lo < before ? 1ull : 0ull);
  if (hi) atomicAdd(words + 3, hi);
}

/// A trial's accumulators: 4 words (sum_q, kept, wins, losses), then kFoldTallyWords per fold.
__host__ __device__ constexpr std::size_t acc_words(int folds) {
  return 4 + static_cast<std::size_t>(folds) * tf::kFoldTallyWords;
}

/// Adds a piece of a trial's walk (tf::tally_trades_folded's flush) to its words: the
/// whole-span words, and its fold's words when it belongs to one.
struct FlushRun {
  unsigned long long* trial_acc;
  __device__ void operator()(int k, const tf::RunTally& r) const {
    atomicAdd(trial_acc + 0, static_cast<unsigned long long>(r.sum_q));  // two's complement: exact for signed sums
    atomicAdd(trial_acc + 1, static_cast<unsigned long long>(r.kept));
    if (r.wins) atomicAdd(trial_acc + 2, static_cast<unsigned long long>(r.wins));
    if (r.losses) atomicAdd(trial_acc + 3, static_cast<unsigned long long>(r.losses));
    if (k >= 0) add_fold_tally(trial_acc + 4 + static_cast<std::size_t>(k) * tf::kFoldTallyWords, tf::fold_part(r));
  }
};

/// blockIdx.y selects a chunk of trades; every thread of a warp reads the same trade
/// (broadcast loads), so the bisections of a warp probe the same small record arrays.
/// kFolds: each kept trade also joins its fold (a's fold runs), `folds` folds per trial.
/// 40 registers: what the plain walk uses (its code is the same under the cap). The folded walk
/// would take 47, which at blocks of 128 leaves 40 warps an SM instead of 48 for a walk that
/// waits on its bisections' loads; under the cap it keeps 48, for one 64-bit value spilled per
/// thread (reloaded once per piece of a fold run) and the float32 exits' fixed-point values
/// recomputed at each exit instead of held.
template <bool kFolds, typename ParamsOf>
__global__ void __maxnreg__(40) tally_kernel(tf::TradeArrays a, ParamsOf params_of, std::size_t n, std::uint64_t chunk,
                                             int folds, unsigned long long* acc, OccupancyProbe probe) {
  BlockOccupancy occupancy(probe);
  const std::uint64_t trial = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (trial >= n) return;
  const std::uint64_t begin = static_cast<std::uint64_t>(blockIdx.y) * chunk;
  const std::uint64_t end = begin + chunk < a.n ? begin + chunk : a.n;
  if (begin >= end) return;
  unsigned long long* out = acc + trial * acc_words(folds);
  if constexpr (kFolds) {
    // Each piece of a fold run adds itself: no totals kept across the runs (registers).
    tf::tally_trades_folded(a, params_of(trial), begin, end, 1, FlushRun{out});
    return;
  }
  const tf::Tally t = tf::tally_trades(a, params_of(trial), begin, end);
  if (t.kept == 0) return;
  atomicAdd(out + 0, static_cast<unsigned long long>(t.sum_q));  // two's complement: exact for signed sums
  atomicAdd(out + 1, static_cast<unsigned long long>(t.kept));
  if (t.wins) atomicAdd(out + 2, static_cast<unsigned long long>(t.wins));
  if (t.losses) atomicAdd(out + 3, static_cast<unsigned long long>(t.losses));
}

/// Few trials (halving's late rungs, small batches): one warp per (trial, chunk of trades),
/// the lanes over the chunk's trades, the totals summed over the warp (int64: exact, so
/// the order does not matter) and added by lane 0. The thread-per-trial kernel above would
/// leave most lanes idle and walk long chunks one trade after another. With folds, each lane
/// adds its own runs of a fold's trades to the fold's words.
template <bool kFolds, typename ParamsOf>
__global__ void tally_warp_kernel(tf::TradeArrays a, ParamsOf params_of, std::size_t n, std::uint64_t chunk, int folds,
                                  unsigned long long* acc, OccupancyProbe probe) {
  BlockOccupancy occupancy(probe);
  const std::uint64_t trial = (static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  if (trial >= n) return;  // uniform across a warp
  const unsigned lane = threadIdx.x & 31u;
  const std::uint64_t begin = static_cast<std::uint64_t>(blockIdx.y) * chunk;
  const std::uint64_t end = begin + chunk < a.n ? begin + chunk : a.n;
  if (begin >= end) return;  // uniform across a warp
  const tf::Params p = params_of(trial);
  unsigned long long* out = acc + trial * acc_words(folds);
  long long sum_q = 0, kept = 0, wins = 0, losses = 0;
  if constexpr (kFolds) {
    // The lane's whole-span totals are summed over the warp below; its fold parts go to the
    // fold's words as they come.
    tf::tally_trades_folded(a, p, begin + lane, end, 32, [&](int k, const tf::RunTally& r) {
      sum_q += r.sum_q;
      kept += r.kept;
      wins += r.wins;
      losses += r.losses;
      if (k >= 0) add_fold_tally(out + 4 + static_cast<std::size_t>(k) * tf::kFoldTallyWords, tf::fold_part(r));
    });
  } else {
    for (std::uint64_t i = begin + lane; i < end; i += 32) {
      const tf::Tally t = tf::tally_trades(a, p, i, i + 1);
      sum_q += t.sum_q;
      kept += t.kept;
      wins += t.wins;
      losses += t.losses;
    }
  }
  for (int d = 16; d > 0; d >>= 1) {
    sum_q += __shfl_down_sync(0xffffffffu, sum_q, d);
    kept += __shfl_down_sync(0xffffffffu, kept, d);
    wins += __shfl_down_sync(0xffffffffu, wins, d);
    losses += __shfl_down_sync(0xffffffffu, losses, d);
  }
  if (lane != 0 || kept == 0) return;
  atomicAdd(out + 0, static_cast<unsigned long long>(sum_q));
  atomicAdd(out + 1, static_cast<unsigned long long>(kept));
  if (wins) atomicAdd(out + 2, static_cast<unsigned long long>(wins));
  if (losses) atomicAdd(out + 3, static_cast<unsigned long long>(losses));
}

/// Scores, violations and metrics from each trial's accumulators; with folds (folds > 0) the
/// fold columns and the rule's score as TradeFilterStrategy::evaluate makes them.
__global__ void finalize_kernel(const unsigned long long* acc, std::size_t n, std::int64_t min_trades, int folds,
                                strategies::FoldRule rule, double* scores, double* violations, double* metrics) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const unsigned long long* w = acc + i * acc_words(folds);
  const auto sum = static_cast<std::int64_t>(w[0]);
  const auto kept = static_cast<std::int64_t>(w[1]);
  double score = tf::from_fixed_point(sum);
  violations[i] = tf::violation_of(kept, min_trades);
  const std::size_t n_metrics = 3 + static_cast<std::size_t>(folds) * strategies::kFoldColumns;
  if (metrics) {
    metrics[i * n_metrics + 0] = static_cast<double>(kept);
    metrics[i * n_metrics + 1] = static_cast<double>(static_cast<std::int64_t>(w[2]));
    metrics[i * n_metrics + 2] = static_cast<double>(static_cast<std::int64_t>(w[3]));
  }
  if (folds > 0) {
    tf::FoldTally t[strategies::kMaxFolds];
    for (int k = 0; k < folds; ++k) {
      const unsigned long long* f = w + 4 + static_cast<std::size_t>(k) * tf::kFoldTallyWords;
      t[k].sum_q = static_cast<std::int64_t>(f[0]);
      t[k].kept = static_cast<std::int64_t>(f[1]);
      t[k].sq_lo = f[2];
      t[k].sq_hi = f[3];
    }
    double columns[strategies::kMaxFolds * strategies::kFoldColumns];
    score = tf::finish_fold_tallies(t, folds, rule, score, metrics ? metrics + i * n_metrics + 3 : columns);
  }
  scores[i] = score;
}

/// Batches of fewer trials than this run one warp per (trial, chunk) (tally_warp_kernel).
constexpr std::size_t kWarpTallyBelow = 128;

/// Enough (trial, trade-chunk) threads to fill the device a few times over. folds > 0: the
/// arrays carry the trades' fold runs, and acc holds acc_words(folds) words per trial.
template <typename ParamsOf>
void launch_tally(const tf::TradeArrays& a, ParamsOf p, std::size_t n, int folds, unsigned long long* acc,
                  cudaStream_t stream, int block_size, OccupancyProbe probe) {
  if (n == 0 || a.n == 0) return;
  if (n < kWarpTallyBelow) {
    // ~8192 warps (a few per SM slot), at least 8 trades per lane.
    const int threads = std::max(32, block_size / 32 * 32);
    std::uint64_t chunks = std::max<std::uint64_t>(1, 8192 / n);
    chunks = std::min<std::uint64_t>(chunks, std::max<std::uint64_t>(1, a.n / 256));
    chunks = std::min<std::uint64_t>(chunks, 65535);
    const std::uint64_t chunk = (a.n + chunks - 1) / chunks;
    chunks = (a.n + chunk - 1) / chunk;
    const std::uint64_t warp_blocks = (n * 32 + threads - 1) / threads;
    const dim3 grid(static_cast<unsigned>(warp_blocks), static_cast<unsigned>(chunks));
    if (folds > 0) tally_warp_kernel<true><<<grid, threads, 0, stream>>>(a, p, n, chunk, folds, acc, probe);
    else tally_warp_kernel<false><<<grid, threads, 0, stream>>>(a, p, n, chunk, folds, acc, probe);
    CUDA_CHECK_LAUNCH("trade_filter tally_warp_kernel");
    return;
  }
  const std::uint64_t trial_blocks = (n + block_size - 1) / block_size;
  const std::uint64_t want_blocks = 4096;  // ~ 30 blocks per SM on an H100
  std::uint64_t chunks = std::max<std::uint64_t>(1, want_blocks / trial_blocks);
  chunks = std::min<std::uint64_t>(chunks, std::max<std::uint64_t>(1, a.n / 64));  // at least 64 trades a chunk
  chunks = std::min<std::uint64_t>(chunks, 65535);
  const std::uint64_t chunk = (a.n + chunks - 1) / chunks;
  chunks = (a.n + chunk - 1) / chunk;
  const dim3 grid(static_cast<unsigned>(trial_blocks), static_cast<unsigned>(chunks));
  if (folds > 0) tally_kernel<true><<<grid, block_size, 0, stream>>>(a, p, n, chunk, folds, acc, probe);
  else tally_kernel<false><<<grid, block_size, 0, stream>>>(a, p, n, chunk, folds, acc, probe);
  CUDA_CHECK_LAUNCH("trade_filter tally_kernel");
}

void finalize(const unsigned long long* acc, std::size_t n, std::int64_t min_trades, int folds,
              const strategies::FoldRule& rule, double* scores, double* violations, double* metrics,
              cudaStream_t stream) {
  if (n == 0) return;
  finalize_kernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(acc, n, min_trades, folds, rule, scores,
                                                                              violations, metrics);
  CUDA_CHECK_LAUNCH("trade_filter finalize_kernel");
}

class TradeFilterDevice final : public DeviceStrategy {
 public:
  explicit TradeFilterDevice(const strategies::TradeFilterStrategy& s)
      : data_(s), min_trades_(s.min_trades()), folds_(static_cast<int>(s.folds().n_folds())), rule_(s.fold_rule()) {}
  void launch(const DeviceBatch& batch, cudaStream_t stream, int block_size) override {
    const std::size_t words = batch.n * acc_words(folds_);
    acc_.resize(std::max<std::size_t>(1, words));
    CUDA_CHECK(cudaMemsetAsync(acc_.data(), 0, words * sizeof(unsigned long long), stream));
    launch_tally(data_.arrays(), BatchParams{batch.params}, batch.n, folds_, acc_.data(), stream, block_size,
                 batch.probe);
    finalize(acc_.data(), batch.n, min_trades_, folds_, rule_, batch.scores, batch.violations, batch.metrics, stream);
  }

 private:
  TradeFilterDeviceData data_;
  std::int64_t min_trades_;
  int folds_;  ///< the strategy's folds (0: none)
  strategies::FoldRule rule_;
  DeviceBuffer<unsigned long long> acc_;  // batches run in stream order: one set of accumulators suffices
};

}  // namespace

void launch_tally_batch(const tf::TradeArrays& a, const double* slots, std::size_t n, unsigned long long* acc,
                        cudaStream_t stream, int block_size, OccupancyProbe probe) {
  launch_tally(a, BatchParams{slots}, n, 0, acc, stream, block_size, probe);
}

void launch_tally_grid(const tf::TradeArrays& a, const tf::GridLayout& layout, const float* fvalues,
                       std::uint64_t first, std::size_t n, unsigned long long* acc, cudaStream_t stream,
                       int block_size) {
  launch_tally(a, GridParams{layout, fvalues, first}, n, 0, acc, stream, block_size, OccupancyProbe{});
}

void launch_tally_finalize(const unsigned long long* acc, std::size_t n, std::int64_t min_trades, double* scores,
                           double* violations, double* metrics, cudaStream_t stream) {
  finalize(acc, n, min_trades, 0, {}, scores, violations, metrics, stream);
}

std::unique_ptr<DeviceStrategy> make_trade_filter_device(const strategies::TradeFilterStrategy& strategy,
                                                         cudaStream_t) {
  return std::make_unique<TradeFilterDevice>(strategy);
}

std::unique_ptr<DeviceStrategy> make_trade_filter_twin(const strategies::Strategy& strategy, cudaStream_t stream) {
  return make_trade_filter_device(dynamic_cast<const strategies::TradeFilterStrategy&>(strategy), stream);
}

}  // namespace tpeopt::gpu
