// The bollinger strategy in the registry (strategies/registry.hpp): Bollinger-band mean
// reversion, long and short, whose fills are vectorbt's (docs/strategies.md, "bollinger").
#include "strategies/bollinger/bollinger.hpp"
#include "strategies/signal_register.hpp"

namespace tpeopt::gpu {
// strategies/bollinger/bollinger_device.cu (builds with CUDA).
std::unique_ptr<DeviceStrategy> make_bollinger_twin(const strategies::Strategy& s, CUstream_st* stream);
strategies::ExportedTrades bollinger_trades_device(const strategies::Strategy& s, const double* params, int block);
strategies::SymbolResults bollinger_symbols_device(const strategies::Strategy& s, const double* params, int block);
}  // namespace tpeopt::gpu

namespace tpeopt::strategies {

/// The parameter slots, in the order of bollinger::Slot.
const ParamList& bollinger_params() {
  const char* bp = "must be >= 0 basis points (and below 10000)";
  static const ParamList list({
      {"window", NAN, closed_open(1.5, 1e5, "must be an integer in [2, 100000)"), true, 10, 60},
      {"num_std", NAN, above(0.0, "must be > 0 standard deviations"), false, 1.0, 3.0},
      {"atr_window", 14.0, closed_open(0.5, 1e5, "must be an integer in [1, 100000)"), true, 5, 30},
      {"atr_stop", 0.0, at_least(0.0, "must be >= 0 ATRs (0 = no stop)"), false, 0.0, 4.0},
      {"fee_bp", 0.0, closed_open(0.0, 1e4, bp), false, 0.0, 5.0},
      {"slippage_bp", 0.0, closed_open(0.0, 1e4, bp), false, 0.0, 2.0},
  });
  return list;
}

void register_bollinger(Registry& registry) {
  registry.add(signal_strategy_entry<bollinger::Logic>(
      "bollinger", "Bollinger-band mean reversion, long and short, ATR stop, fills equal to vectorbt's from_signals",
      bollinger_params(),
      {TPEOPT_DEVICE(gpu::make_bollinger_twin), TPEOPT_DEVICE(gpu::bollinger_trades_device),
       TPEOPT_DEVICE(gpu::bollinger_symbols_device)}));
}

}  // namespace tpeopt::strategies
