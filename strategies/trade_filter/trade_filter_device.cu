// Kernels of the trade_filter device twin (see trade_filter_kernel.hpp).
#include <algorithm>

#include "strategies/device/cuda_check.cuh"
#include "strategies/device/occupancy_probe.cuh"
#include "strategies/trade_filter/trade_filter_device.hpp"
#include "strategies/trade_filter/trade_filter_device_data.hpp"
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

/// blockIdx.y selects a chunk of trades; every thread of a warp reads the same trade
/// (broadcast loads), so the bisections of a warp probe the same small record arrays.
template <typename ParamsOf>
__global__ void tally_kernel(tf::TradeArrays a, ParamsOf params_of, std::size_t n, std::uint64_t chunk,
                             unsigned long long* acc, OccupancyProbe probe) {
  BlockOccupancy occupancy(probe);
  const std::uint64_t trial = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (trial >= n) return;
  const std::uint64_t begin = static_cast<std::uint64_t>(blockIdx.y) * chunk;
  const std::uint64_t end = begin + chunk < a.n ? begin + chunk : a.n;
  if (begin >= end) return;
  const tf::Tally t = tf::tally_trades(a, params_of(trial), begin, end);
  if (t.kept == 0) return;
  unsigned long long* out = acc + trial * 4;
  atomicAdd(out + 0, static_cast<unsigned long long>(t.sum_q));  // two's complement: exact for signed sums
  atomicAdd(out + 1, static_cast<unsigned long long>(t.kept));
  if (t.wins) atomicAdd(out + 2, static_cast<unsigned long long>(t.wins));
  if (t.losses) atomicAdd(out + 3, static_cast<unsigned long long>(t.losses));
}

/// Few trials (halving's late rungs, small batches): one warp per (trial, chunk of trades),
/// the lanes over the chunk's trades, the totals summed over the warp (int64: exact, so
/// the order does not matter) and added by lane 0. The thread-per-trial kernel above would
/// leave most lanes idle and walk long chunks one trade after another.
template <typename ParamsOf>
__global__ void tally_warp_kernel(tf::TradeArrays a, ParamsOf params_of, std::size_t n, std::uint64_t chunk,
                                  unsigned long long* acc, OccupancyProbe probe) {
  BlockOccupancy occupancy(probe);
  const std::uint64_t trial = (static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  if (trial >= n) return;  // uniform across a warp
  const unsigned lane = threadIdx.x & 31u;
  const std::uint64_t begin = static_cast<std::uint64_t>(blockIdx.y) * chunk;
  const std::uint64_t end = begin + chunk < a.n ? begin + chunk : a.n;
  if (begin >= end) return;  // uniform across a warp
  const tf::Params p = params_of(trial);
  long long sum_q = 0, kept = 0, wins = 0, losses = 0;
  for (std::uint64_t i = begin + lane; i < end; i += 32) {
    const tf::Tally t = tf::tally_trades(a, p, i, i + 1);
    sum_q += t.sum_q;
    kept += t.kept;
    wins += t.wins;
    losses += t.losses;
  }
  for (int d = 16; d > 0; d >>= 1) {
    sum_q += __shfl_down_sync(0xffffffffu, sum_q, d);
    kept += __shfl_down_sync(0xffffffffu, kept, d);
    wins += __shfl_down_sync(0xffffffffu, wins, d);
    losses += __shfl_down_sync(0xffffffffu, losses, d);
  }
  if (lane != 0 || kept == 0) return;
  unsigned long long* out = acc + trial * 4;
  atomicAdd(out + 0, static_cast<unsigned long long>(sum_q));
  atomicAdd(out + 1, static_cast<unsigned long long>(kept));
  if (wins) atomicAdd(out + 2, static_cast<unsigned long long>(wins));
  if (losses) atomicAdd(out + 3, static_cast<unsigned long long>(losses));
}

__global__ void finalize_kernel(const unsigned long long* acc, std::size_t n, std::int64_t min_trades, double* scores,
                                double* violations, double* metrics) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const auto sum = static_cast<std::int64_t>(acc[i * 4 + 0]);
  const auto kept = static_cast<std::int64_t>(acc[i * 4 + 1]);
  scores[i] = tf::from_fixed_point(sum);
  violations[i] = tf::violation_of(kept, min_trades);
  if (metrics) {
    metrics[i * 3 + 0] = static_cast<double>(kept);
    metrics[i * 3 + 1] = static_cast<double>(static_cast<std::int64_t>(acc[i * 4 + 2]));
    metrics[i * 3 + 2] = static_cast<double>(static_cast<std::int64_t>(acc[i * 4 + 3]));
  }
}

/// Batches of fewer trials than this run one warp per (trial, chunk) (tally_warp_kernel).
constexpr std::size_t kWarpTallyBelow = 128;

/// Enough (trial, trade-chunk) threads to fill the device a few times over.
template <typename ParamsOf>
void launch_tally(const tf::TradeArrays& a, ParamsOf p, std::size_t n, unsigned long long* acc, cudaStream_t stream,
                  int block_size, OccupancyProbe probe) {
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
    tally_warp_kernel<<<dim3(static_cast<unsigned>(warp_blocks), static_cast<unsigned>(chunks)), threads, 0, stream>>>(
        a, p, n, chunk, acc, probe);
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
  tally_kernel<<<grid, block_size, 0, stream>>>(a, p, n, chunk, acc, probe);
  CUDA_CHECK_LAUNCH("trade_filter tally_kernel");
}

class TradeFilterDevice final : public DeviceStrategy {
 public:
  explicit TradeFilterDevice(const strategies::TradeFilterStrategy& s) : data_(s), min_trades_(s.min_trades()) {}
  void launch(const DeviceBatch& batch, cudaStream_t stream, int block_size) override {
    acc_.resize(std::max<std::size_t>(1, batch.n * 4));
    CUDA_CHECK(cudaMemsetAsync(acc_.data(), 0, batch.n * 4 * sizeof(unsigned long long), stream));
    launch_tally_batch(data_.arrays(), batch.params, batch.n, acc_.data(), stream, block_size, batch.probe);
    launch_tally_finalize(acc_.data(), batch.n, min_trades_, batch.scores, batch.violations, batch.metrics, stream);
  }

 private:
  TradeFilterDeviceData data_;
  std::int64_t min_trades_;
  DeviceBuffer<unsigned long long> acc_;  // batches run in stream order: one set of accumulators suffices
};

}  // namespace

void launch_tally_batch(const tf::TradeArrays& a, const double* slots, std::size_t n, unsigned long long* acc,
                        cudaStream_t stream, int block_size, OccupancyProbe probe) {
  launch_tally(a, BatchParams{slots}, n, acc, stream, block_size, probe);
}

void launch_tally_grid(const tf::TradeArrays& a, const tf::GridLayout& layout, const float* fvalues,
                       std::uint64_t first, std::size_t n, unsigned long long* acc, cudaStream_t stream,
                       int block_size) {
  launch_tally(a, GridParams{layout, fvalues, first}, n, acc, stream, block_size, OccupancyProbe{});
}

void launch_tally_finalize(const unsigned long long* acc, std::size_t n, std::int64_t min_trades, double* scores,
                           double* violations, double* metrics, cudaStream_t stream) {
  if (n == 0) return;
  finalize_kernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(acc, n, min_trades, scores, violations,
                                                                              metrics);
  CUDA_CHECK_LAUNCH("trade_filter finalize_kernel");
}

std::unique_ptr<DeviceStrategy> make_trade_filter_device(const strategies::TradeFilterStrategy& strategy,
                                                         cudaStream_t) {
  return std::make_unique<TradeFilterDevice>(strategy);
}

std::unique_ptr<DeviceStrategy> make_trade_filter_twin(const strategies::Strategy& strategy, cudaStream_t stream) {
  return make_trade_filter_device(dynamic_cast<const strategies::TradeFilterStrategy&>(strategy), stream);
}

}  // namespace tpeopt::gpu
