#pragma once
// Trade lists from a device twin, shared by every strategy that exports trades from the GPU
// (the registry's trades.device): a batch staged on the device (StagedBatch), a first run
// that gives scores, metrics and the trade counts, and a second run that records each list
// from its offset (record_trade_lists). A list is a trial's trades, or a (trial, symbol)'s
// for a twin over several symbols. CUDA translation units only.
#include <algorithm>
#include <cstddef>
#include <vector>

#include "strategies/device/cuda_check.cuh"
#include "strategies/device/device_buffers.hpp"
#include "strategies/device/device_strategy.hpp"

namespace tpeopt::gpu {

/// n trials' parameters (n x n_slots) on the device, with a pinned host copy (the twins plan
/// from it), and their result buffers.
class StagedBatch {
 public:
  StagedBatch(const double* params, std::size_t n, std::size_t n_slots, std::size_t n_metrics, cudaStream_t stream)
      : n_(n), n_metrics_(n_metrics), d_params_(n * n_slots), d_scores_(n), d_viol_(n), d_metrics_(n * n_metrics) {
    h_params_.resize(n * n_slots);
    std::copy_n(params, n * n_slots, h_params_.data());
    CUDA_CHECK(cudaMemcpyAsync(d_params_.data(), h_params_.data(), n * n_slots * sizeof(double), cudaMemcpyHostToDevice,
                               stream));
  }
  DeviceBatch batch() const {
    return {d_params_.data(), h_params_.data(), d_scores_.data(), d_viol_.data(), d_metrics_.data(), n_};
  }
  /// The scores, violations and metrics (n x n_metrics) of the last run (synchronizes the stream).
  void results(std::vector<double>& scores, std::vector<double>& violations, std::vector<double>& metrics,
               cudaStream_t stream) const {
    scores.resize(n_);
    violations.resize(n_);
    metrics.resize(n_ * n_metrics_);
    CUDA_CHECK(cudaMemcpyAsync(scores.data(), d_scores_.data(), n_ * sizeof(double), cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaMemcpyAsync(violations.data(), d_viol_.data(), n_ * sizeof(double), cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaMemcpyAsync(metrics.data(), d_metrics_.data(), n_ * n_metrics_ * sizeof(double),
                               cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
  }

 private:
  std::size_t n_, n_metrics_;
  PinnedBuffer<double> h_params_;
  DeviceBuffer<double> d_params_, d_scores_, d_viol_, d_metrics_;
};

/// Runs `device` over `batch` again, recording trade list l (counts[l] trades) from the l-th
/// offset (the prefix sums of counts): `Device::run(batch, stream, block_size, offsets, trades)`.
template <typename Trade, typename Device>
std::vector<std::vector<Trade>> record_trade_lists(Device& device, const DeviceBatch& batch, cudaStream_t stream,
                                                   int block_size, const std::vector<long long>& counts) {
  const std::size_t lists = counts.size();
  std::vector<long long> offsets(lists + 1, 0);
  for (std::size_t l = 0; l < lists; ++l) offsets[l + 1] = offsets[l] + counts[l];
  const std::size_t total = static_cast<std::size_t>(offsets[lists]);
  DeviceBuffer<long long> d_offsets(lists + 1);
  DeviceBuffer<Trade> d_trades(std::max<std::size_t>(1, total));
  CUDA_CHECK(cudaMemcpyAsync(d_offsets.data(), offsets.data(), (lists + 1) * sizeof(long long), cudaMemcpyHostToDevice,
                             stream));
  device.run(batch, stream, block_size, d_offsets.data(), d_trades.data());
  std::vector<Trade> all(total);
  if (total > 0)
    CUDA_CHECK(cudaMemcpyAsync(all.data(), d_trades.data(), total * sizeof(Trade), cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<std::vector<Trade>> out(lists);
  for (std::size_t l = 0; l < lists; ++l) out[l].assign(all.begin() + offsets[l], all.begin() + offsets[l + 1]);
  return out;
}

/// Evaluates n trials (params: n x n_slots) on a one-series `device` and fills `out` (n
/// entries with score, violation, metrics and trades): the first run writes no trades
/// (offsets null); metric `trades_metric` is a trial's trade count.
template <typename Trade, typename Device, typename TrialOut>
void collect_trade_lists(Device& device, cudaStream_t stream, const double* params, std::size_t n, std::size_t n_slots,
                         std::size_t n_metrics, int trades_metric, int block_size, std::vector<TrialOut>& out) {
  const StagedBatch staged(params, n, n_slots, n_metrics, stream);
  device.run(staged.batch(), stream, block_size, nullptr, nullptr);
  std::vector<double> scores, violations, metrics;
  staged.results(scores, violations, metrics, stream);
  out.resize(n);
  std::vector<long long> counts(n);
  for (std::size_t i = 0; i < n; ++i) {
    out[i].score = scores[i];
    out[i].violation = violations[i];
    out[i].metrics.assign(metrics.begin() + static_cast<std::ptrdiff_t>(i * n_metrics),
                          metrics.begin() + static_cast<std::ptrdiff_t>((i + 1) * n_metrics));
    counts[i] = static_cast<long long>(out[i].metrics[static_cast<std::size_t>(trades_metric)]);
  }
  auto lists = record_trade_lists<Trade>(device, staged.batch(), stream, block_size, counts);
  for (std::size_t i = 0; i < n; ++i) out[i].trades = std::move(lists[i]);
}

}  // namespace tpeopt::gpu
