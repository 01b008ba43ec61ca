// gpu_ema_cross_trades in a build without CUDA: says so clearly.
#include "common/error.hpp"
#include "gpu/ema_cross_kernel.hpp"

namespace tpeopt::gpu {

std::vector<GpuEmaCrossTrial> gpu_ema_cross_trades(const strategies::EmaCrossStrategy&, const double*, std::size_t,
                                                   const EmaCrossDeviceOptions&, int) {
  throw make_error("executor cuda: this tpeopt was built without CUDA; use --executor cpu");
}

}  // namespace tpeopt::gpu
