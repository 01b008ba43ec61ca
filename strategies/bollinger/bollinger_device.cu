// The CUDA twin of the bollinger strategy: the signal strategies' device template
// (strategies/device/signal_device.cuh) for bollinger::Logic, as the registry names it.
#include "strategies/device/signal_device.cuh"
#include "strategies/bollinger/bollinger.hpp"

namespace tpeopt::gpu {

using strategies::bollinger::Logic;

std::unique_ptr<DeviceStrategy> make_bollinger_twin(const strategies::Strategy& s, cudaStream_t stream) {
  return make_signal_device<Logic>(s, stream);
}

strategies::ExportedTrades bollinger_trades_device(const strategies::Strategy& s, const double* params, int block) {
  return signal_trades_device<Logic>(s, params, block);
}

strategies::SymbolResults bollinger_symbols_device(const strategies::Strategy& s, const double* params, int block) {
  return signal_symbols_device<Logic>(s, params, block);
}

}  // namespace tpeopt::gpu
