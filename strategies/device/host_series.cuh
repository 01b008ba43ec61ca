#pragma once
// Series a twin computes on the host instead of the device. A new EMA span is a sequential
// chain over the whole series: on the GPU it is one lane's long walk, which holds up a batch
// that brings only a few new spans. So a twin computes a few new series on host threads,
// with the CPU reference's own function (the same bits), and uploads them into their slots
// of its series pool (strategies/device/series_slots.hpp).
#include <algorithm>
#include <cstddef>
#include <thread>
#include <vector>

#include "common/hardware_threads.hpp"
#include "strategies/device/cuda_check.cuh"

namespace tpeopt::gpu {

/// Whether `new_series` series are few enough for the host: at most one per host thread.
inline bool few_enough_for_host(std::size_t new_series) { return new_series <= usable_hardware_threads(); }

/// Computes series k of `tasks` with `compute(tasks[k], out)` (n doubles into out) on up to
/// one host thread per series, then copies each into slot `tasks[k].slot` of `pool` (n
/// doubles a slot) on `stream`. The copies are from pageable memory, staged before
/// cudaMemcpyAsync returns: the host vectors may go when this returns.
template <typename Task, typename Compute>
void upload_host_series(const std::vector<Task>& tasks, std::size_t n, double* pool, cudaStream_t stream,
                        Compute compute) {
  const std::size_t nt = tasks.size();
  std::vector<std::vector<double>> out(nt);
  const std::size_t threads = std::min<std::size_t>(nt, usable_hardware_threads());
  std::vector<std::thread> workers;
  for (std::size_t w = 0; w < threads; ++w)
    workers.emplace_back([&, w] {
      for (std::size_t k = w; k < nt; k += threads) {
        out[k].resize(n);
        compute(tasks[k], out[k].data());
      }
    });
  for (auto& t : workers) t.join();
  for (std::size_t k = 0; k < nt; ++k)
    CUDA_CHECK(cudaMemcpyAsync(pool + static_cast<std::size_t>(tasks[k].slot) * n, out[k].data(), n * sizeof(double),
                               cudaMemcpyHostToDevice, stream));
}

}  // namespace tpeopt::gpu
