#pragma once
// The two passes that turn a device twin's run into per-trial trade lists, shared by the
// "trade lists on the GPU" entry points of exhaustion and ema_cross (gpu_exhaustion_trades,
// gpu_ema_cross_trades): pass 1 scores, metrics and trade counts; pass 2 each trial's trades
// written from its offset. CUDA translation units only.
#include <algorithm>
#include <cstddef>
#include <vector>

#include "gpu/cuda_check.cuh"
#include "gpu/device_buffers.hpp"
#include "gpu/device_strategy.hpp"

namespace tpeopt::gpu {

/// Evaluates n trials (params: n x n_slots) on `device` twice and fills `out` (n entries
/// with score, violation, metrics and trades): `Device::run(batch, stream, block_size,
/// offsets, trades)` writes no trades when offsets is null; metric `trades_metric` is a
/// trial's trade count.
template <typename Trade, typename Device, typename TrialOut>
void collect_trade_lists(Device& device, cudaStream_t stream, const double* params, std::size_t n,
                         std::size_t n_slots, std::size_t n_metrics, int trades_metric, int block_size,
                         std::vector<TrialOut>& out) {
  const std::size_t nm = n_metrics;
  PinnedBuffer<double> h_params, h_scores, h_viol, h_metrics;
  h_params.resize(n * n_slots);
  std::copy_n(params, n * n_slots, h_params.data());
  h_scores.resize(n);
  h_viol.resize(n);
  h_metrics.resize(n * nm);
  DeviceBuffer<double> d_params(n * n_slots), d_scores(n), d_viol(n), d_metrics(n * nm);
  CUDA_CHECK(cudaMemcpyAsync(d_params.data(), h_params.data(), n * n_slots * sizeof(double), cudaMemcpyHostToDevice,
                             stream));
  const DeviceBatch batch{d_params.data(), h_params.data(), d_scores.data(), d_viol.data(), d_metrics.data(), n};
  // Pass 1: scores, metrics and trade counts.
  device.run(batch, stream, block_size, nullptr, nullptr);
  CUDA_CHECK(cudaMemcpyAsync(h_scores.data(), d_scores.data(), n * sizeof(double), cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaMemcpyAsync(h_viol.data(), d_viol.data(), n * sizeof(double), cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaMemcpyAsync(h_metrics.data(), d_metrics.data(), n * nm * sizeof(double), cudaMemcpyDeviceToHost,
                             stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  out.resize(n);
  std::vector<long long> offsets(n + 1, 0);
  for (std::size_t i = 0; i < n; ++i) {
    out[i].score = h_scores.data()[i];
    out[i].violation = h_viol.data()[i];
    out[i].metrics.assign(h_metrics.data() + i * nm, h_metrics.data() + (i + 1) * nm);
    offsets[i + 1] = offsets[i] + static_cast<long long>(out[i].metrics[static_cast<std::size_t>(trades_metric)]);
  }
  // Pass 2: the trades, each trial's written from its offset.
  const std::size_t total = static_cast<std::size_t>(offsets[n]);
  DeviceBuffer<long long> d_offsets(n + 1);
  DeviceBuffer<Trade> d_trades(std::max<std::size_t>(1, total));
  CUDA_CHECK(cudaMemcpyAsync(d_offsets.data(), offsets.data(), (n + 1) * sizeof(long long), cudaMemcpyHostToDevice,
                             stream));
  device.run(batch, stream, block_size, d_offsets.data(), d_trades.data());
  std::vector<Trade> all(total);
  if (total > 0)
    CUDA_CHECK(cudaMemcpyAsync(all.data(), d_trades.data(), total * sizeof(Trade), cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  for (std::size_t i = 0; i < n; ++i) out[i].trades.assign(all.begin() + offsets[i], all.begin() + offsets[i + 1]);
}

}  // namespace tpeopt::gpu
