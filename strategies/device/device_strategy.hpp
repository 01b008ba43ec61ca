#pragma once
// The device side of one strategy: its data on the device and its kernel launch.
// Host-compiler-safe header (only the CUDA runtime API types).
#include <cstddef>
#include <memory>

#include <cuda_runtime_api.h>

#include "strategies/device/occupancy.hpp"
#include "strategies/strategy.hpp"

namespace tpeopt::gpu {

/// Device buffers of one batch, n trials.
struct DeviceBatch {
  const double* params = nullptr;       ///< n x n_slots, row-major (the strategy's slot order), on the device
  const double* host_params = nullptr;  ///< the same values in pinned host memory (valid until the batch completes),
      ///< for strategies that plan a launch from the parameters (e.g. distinct EMA spans)
  double* scores = nullptr;      ///< n
  double* violations = nullptr;  ///< n
  double* metrics = nullptr;     ///< n x n_metrics
  std::size_t n = 0;
  /// The batch's occupancy probe (strategies/device/occupancy.hpp); kernels that carry it open each block
  /// with a BlockOccupancy guard. Null: not measured.
  OccupancyProbe probe{};
};

class DeviceStrategy {
 public:
  virtual ~DeviceStrategy() = default;
  /// Launches the evaluation of a batch on `stream` (asynchronous).
  virtual void launch(const DeviceBatch& batch, cudaStream_t stream, int block_size) = 0;
  /// True when launches of different batches may run at once on different streams: the twin
  /// orders whatever state its launches share (caches, staging) itself. False: the executor
  /// runs each launch after the previous one has finished, as on one stream.
  virtual bool concurrent_launches() const { return false; }
};

/// The device twin of `strategy` (uploads its data once). Throws Error when the
/// strategy has no CUDA implementation.
std::unique_ptr<DeviceStrategy> make_device_strategy(const strategies::Strategy& strategy, cudaStream_t stream);

}  // namespace tpeopt::gpu
