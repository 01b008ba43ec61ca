#pragma once
// The trades of a population of exhaustion trials, computed on the GPU (for
// `tpeopt backtest --executor cuda` and the [gpu] parity tests). Host-visible header.
#include <cstddef>
#include <vector>

#include "gpu/exhaustion_kernel.hpp"
#include "strategies/exhaustion/exhaustion_strategy.hpp"

namespace tpeopt::gpu {

struct GpuTrialTrades {
  double score = 0.0;
  double violation = 0.0;
  std::vector<double> metrics;                          ///< metric_names() order
  std::vector<strategies::exhaustion::Trade> trades;  ///< in trade order
};

/// Evaluates n trials (params: n x kNumSlots, row-major, the strategy's slot order) on
/// device 0 and returns each one's score, metrics and trade list: a first pass counts
/// trades, a second records them. Throws tpeopt::Error on CUDA failures.
std::vector<GpuTrialTrades> gpu_exhaustion_trades(const strategies::ExhaustionStrategy& strategy, const double* params,
                                                  std::size_t n, const ExhaustionDeviceOptions& options = {},
                                                  int block_size = 128);

}  // namespace tpeopt::gpu
