#pragma once
// gpu/: the CUDA executor. This header holds no device code and builds with the
// ordinary compiler; without CUDA the factory below says so instead of running.
#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include "engine/executor.hpp"
#include "engine/param_binding.hpp"
#include "strategies/strategy.hpp"

namespace tpeopt::gpu {

struct CudaExecutorOptions {
  int device = 0;
  /// Threads per block of the per-trial kernels (results do not depend on it).
  int block_size = 128;
  /// Batches submitted to the device before the oldest is collected.
  std::size_t max_in_flight = 2;
  /// Largest number of trials evaluated in one device part; a larger batch runs as
  /// consecutive parts with the same results. 0 = sized from the device's free memory.
  std::size_t max_part_trials = 0;
};

/// True when this binary was built with CUDA and a CUDA device is usable.
bool cuda_available();
/// Number of usable CUDA devices (0 without CUDA).
int cuda_device_count();
/// "NVIDIA H100 80GB HBM3 (sm_90, 132 SMs, 79.1 GiB)" or why none is usable.
std::string cuda_device_description();

/// Free and total memory of a CUDA device, in bytes (cudaMemGetInfo).
struct DeviceMemory {
  std::size_t free = 0, total = 0;
};
/// The memory of `device`; nullopt without CUDA or when the device cannot be queried.
std::optional<DeviceMemory> cuda_device_memory(int device);

/// Device bytes per trial of the CUDA executor's buffers (parameters, scores, violations,
/// metrics), for `n_slots` parameter slots and `n_metrics` metrics. A batch larger than
/// half of the free memory allows runs in parts, so this bounds a part, not a batch.
inline std::size_t cuda_bytes_per_trial(std::size_t n_slots, std::size_t n_metrics) {
  return (n_slots + 2 + n_metrics) * sizeof(double);
}

/// The CUDA twin of engine::CpuExecutor for `strategy`: same bits for every trial.
/// Throws tpeopt::Error when CUDA is missing, the device fails, or the strategy has
/// no kernel.
std::unique_ptr<engine::Executor> make_cuda_executor(const strategies::Strategy& strategy, engine::ParamBinding binding,
                                                     const CudaExecutorOptions& options = {});

}  // namespace tpeopt::gpu
