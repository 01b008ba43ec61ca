// Kernels of the trade_filter device twin (see trade_filter_kernel.hpp).
#include <algorithm>

#include "gpu/cuda_check.cuh"
#include "gpu/trade_filter_device_data.hpp"
#include "gpu/trade_filter_kernel.hpp"
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
                             unsigned long long* acc) {
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

/// Enough (trial, trade-chunk) threads to fill the device a few times over.
template <typename ParamsOf>
void launch_tally(const tf::TradeArrays& a, ParamsOf p, std::size_t n, unsigned long long* acc, cudaStream_t stream,
                  int block_size) {
  if (n == 0 || a.n == 0) return;
  const std::uint64_t trial_blocks = (n + block_size - 1) / block_size;
  const std::uint64_t want_blocks = 4096;  // ~ 30 blocks per SM on an H100
  std::uint64_t chunks = std::max<std::uint64_t>(1, want_blocks / trial_blocks);
  chunks = std::min<std::uint64_t>(chunks, std::max<std::uint64_t>(1, a.n / 64));  // at least 64 trades a chunk
  chunks = std::min<std::uint64_t>(chunks, 65535);
  const std::uint64_t chunk = (a.n + chunks - 1) / chunks;
  chunks = (a.n + chunk - 1) / chunk;
  const dim3 grid(static_cast<unsigned>(trial_blocks), static_cast<unsigned>(chunks));
  tally_kernel<<<grid, block_size, 0, stream>>>(a, p, n, chunk, acc);
  CUDA_CHECK_LAUNCH("trade_filter tally_kernel");
}

class TradeFilterDevice final : public DeviceStrategy {
 public:
  explicit TradeFilterDevice(const strategies::TradeFilterStrategy& s) : data_(s), min_trades_(s.min_trades()) {}
  void launch(const DeviceBatch& batch, cudaStream_t stream, int block_size) override {
    acc_.resize(std::max<std::size_t>(1, batch.n * 4));
    CUDA_CHECK(cudaMemsetAsync(acc_.data(), 0, batch.n * 4 * sizeof(unsigned long long), stream));
    launch_tally_batch(data_.arrays(), batch.params, batch.n, acc_.data(), stream, block_size);
    launch_tally_finalize(acc_.data(), batch.n, min_trades_, batch.scores, batch.violations, batch.metrics, stream);
  }

 private:
  TradeFilterDeviceData data_;
  std::int64_t min_trades_;
  DeviceBuffer<unsigned long long> acc_;  // batches run in stream order: one set of accumulators suffices
};

}  // namespace

void launch_tally_batch(const tf::TradeArrays& a, const double* slots, std::size_t n, unsigned long long* acc,
                        cudaStream_t stream, int block_size) {
  launch_tally(a, BatchParams{slots}, n, acc, stream, block_size);
}

void launch_tally_grid(const tf::TradeArrays& a, const tf::GridLayout& layout, const float* fvalues,
                       std::uint64_t first, std::size_t n, unsigned long long* acc, cudaStream_t stream,
                       int block_size) {
  launch_tally(a, GridParams{layout, fvalues, first}, n, acc, stream, block_size);
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

}  // namespace tpeopt::gpu
