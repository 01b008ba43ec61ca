// Picks the device twin of a host strategy.
#include "gpu/device_strategy.hpp"

#include "common/error.hpp"
#include "gpu/atc_kernel.hpp"
#include "gpu/ema_cross_kernel.hpp"
#include "gpu/exhaustion_kernel.hpp"
#include "gpu/functions_kernel.hpp"
#include "gpu/trade_filter_kernel.hpp"

namespace tpeopt::gpu {

std::unique_ptr<DeviceStrategy> make_device_strategy(const strategies::Strategy& strategy, cudaStream_t stream) {
  if (const auto* f = dynamic_cast<const strategies::FunctionsStrategy*>(&strategy))
    return make_functions_device(*f, stream);
  if (const auto* e = dynamic_cast<const strategies::ExhaustionStrategy*>(&strategy))
    return make_exhaustion_device(*e, stream);
  if (const auto* t = dynamic_cast<const strategies::TradeFilterStrategy*>(&strategy))
    return make_trade_filter_device(*t, stream);
  if (const auto* e = dynamic_cast<const strategies::ExhaustionSymbolsStrategy*>(&strategy))
    return make_exhaustion_symbols_device(*e, stream);
  if (const auto* a = dynamic_cast<const strategies::AtcStrategy*>(&strategy))
    return make_atc_device(*a, stream);
  if (const auto* c = dynamic_cast<const strategies::EmaCrossStrategy*>(&strategy))
    return make_ema_cross_device(*c, stream);
  throw make_error("executor cuda: strategy {} has no CUDA implementation yet; use --executor cpu", strategy.name());
}

}  // namespace tpeopt::gpu
