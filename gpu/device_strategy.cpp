// Finds the device twin of a host strategy through the registry.
#include "strategies/device/device_strategy.hpp"

#include "common/error.hpp"
#include "strategies/registry.hpp"

namespace tpeopt::gpu {

std::unique_ptr<DeviceStrategy> make_device_strategy(const strategies::Strategy& strategy, cudaStream_t stream) {
  const strategies::StrategyEntry& entry = strategies::registry().at(strategy.name());
  if (!entry.make_device)
    throw make_error("executor cuda: strategy {} has no CUDA implementation; use --executor cpu", strategy.name());
  return entry.make_device(strategy, stream);
}

}  // namespace tpeopt::gpu
