#pragma once
// The CUDA twin of strategies::AtcStrategy (host-visible header, no device code).
#include <cstddef>
#include <memory>
#include <vector>

#include "strategies/device/device_strategy.hpp"
#include "strategies/atc/atc_strategy.hpp"

namespace tpeopt::gpu {

/// How the atc kernels run. Results do not depend on any of these (same bits).
struct AtcDeviceOptions {
  /// true: six lanes per (trial, symbol), one per moving-average type, exchanging their
  /// layer-1 signals by shuffles every bar (the fast kernel); false: one thread per
  /// (trial, symbol) running the CPU's atc::run_symbol (the simple kernel).
  bool grouped = true;
  /// Cap on cached signal series (one per moving-average type and length, over all
  /// symbols); 0 = from free device memory (at most 6 x 1000). Small values force a batch
  /// into parts (for tests); at least 54.
  std::size_t max_series = 0;
  /// Cap on trials whose per-symbol rows are on the device at once; 0 = from free memory.
  std::size_t max_chunk_trials = 0;
};

std::unique_ptr<DeviceStrategy> make_atc_device(const strategies::AtcStrategy& strategy, cudaStream_t stream,
                                                const AtcDeviceOptions& options = {});

/// The registry's device factory (atc_register.cpp).
std::unique_ptr<DeviceStrategy> make_atc_twin(const strategies::Strategy& strategy, cudaStream_t stream);

/// n trials (params: n x kNumSlots, the strategy's slot order) evaluated on device 0, with
/// the per-symbol results kept (for `tpeopt backtest --executor cuda` and the [gpu] tests).
struct AtcGpuResults {
  std::vector<double> scores, violations;
  std::vector<double> metrics;         ///< n x M (the aggregate)
  std::vector<double> objective;       ///< n x S
  std::vector<double> equity;          ///< n x S
  std::vector<double> symbol_metrics;  ///< n x S x M
};
AtcGpuResults gpu_atc_evaluate(const strategies::AtcStrategy& strategy, const double* params, std::size_t n,
                               const AtcDeviceOptions& options = {}, int block_size = 128);

}  // namespace tpeopt::gpu
