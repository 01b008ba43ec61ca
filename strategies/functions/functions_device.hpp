#pragma once
// The CUDA twin of strategies::FunctionsStrategy (host-visible header, no device code).
#include "strategies/device/device_strategy.hpp"
#include "strategies/functions/functions_strategy.hpp"

namespace tpeopt::gpu {

std::unique_ptr<DeviceStrategy> make_functions_device(const strategies::FunctionsStrategy& strategy,
                                                      cudaStream_t stream);
/// The registry's device factory (strategies/functions/functions_register.cpp).
std::unique_ptr<DeviceStrategy> make_functions_twin(const strategies::Strategy& strategy, cudaStream_t stream);

}  // namespace tpeopt::gpu
