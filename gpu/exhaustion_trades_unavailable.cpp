// gpu_exhaustion_trades in a build without CUDA: says so clearly.
#include "common/error.hpp"
#include "gpu/exhaustion_trades.hpp"

namespace tpeopt::gpu {

std::vector<GpuTrialTrades> gpu_exhaustion_trades(const strategies::ExhaustionStrategy&, const double*, std::size_t,
                                                  const ExhaustionDeviceOptions&, int) {
  throw make_error("executor cuda: this tpeopt was built without CUDA; use --executor cpu");
}

}  // namespace tpeopt::gpu
