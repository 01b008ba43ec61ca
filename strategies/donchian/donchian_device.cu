// The CUDA twin of the donchian strategy: the signal strategies' device template
// (strategies/device/signal_device.cuh) for donchian::Logic, as the registry names it.
#include "strategies/device/signal_device.cuh"
#include "strategies/donchian/donchian.hpp"

namespace tpeopt::gpu {

using strategies::donchian::Logic;

std::unique_ptr<DeviceStrategy> make_donchian_twin(const strategies::Strategy& s, cudaStream_t stream) {
  return make_signal_device<Logic>(s, stream);
}

strategies::ExportedTrades donchian_trades_device(const strategies::Strategy& s, const double* params, int block) {
  return signal_trades_device<Logic>(s, params, block);
}

strategies::SymbolResults donchian_symbols_device(const strategies::Strategy& s, const double* params, int block) {
  return signal_symbols_device<Logic>(s, params, block);
}

}  // namespace tpeopt::gpu
