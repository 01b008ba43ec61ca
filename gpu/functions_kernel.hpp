#pragma once
#include "gpu/device_strategy.hpp"
#include "strategies/functions/functions_strategy.hpp"

namespace tpeopt::gpu {
std::unique_ptr<DeviceStrategy> make_functions_device(const strategies::FunctionsStrategy& strategy,
                                                      cudaStream_t stream);
}
