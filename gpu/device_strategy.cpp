// Picks the device twin of a host strategy.
#include "gpu/device_strategy.hpp"

#include "common/error.hpp"
#include "gpu/functions_kernel.hpp"

namespace tpeopt::gpu {

std::unique_ptr<DeviceStrategy> make_device_strategy(const strategies::Strategy& strategy, cudaStream_t stream) {
  if (const auto* f = dynamic_cast<const strategies::FunctionsStrategy*>(&strategy))
    return make_functions_device(*f, stream);
  throw make_error("executor cuda: strategy {} has no CUDA implementation yet; use --executor cpu", strategy.name());
}

}  // namespace tpeopt::gpu
