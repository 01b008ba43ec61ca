// The donchian strategy in the registry (strategies/registry.hpp): Donchian channel
// breakout, long and short, whose fills are vectorbt's (docs/strategies.md, "donchian").
#include "strategies/donchian/donchian.hpp"
#include "strategies/signal_register.hpp"

namespace tpeopt::gpu {
// strategies/donchian/donchian_device.cu (builds with CUDA).
std::unique_ptr<DeviceStrategy> make_donchian_twin(const strategies::Strategy& s, CUstream_st* stream);
strategies::ExportedTrades donchian_trades_device(const strategies::Strategy& s, const double* params, int block);
strategies::SymbolResults donchian_symbols_device(const strategies::Strategy& s, const double* params, int block);
}  // namespace tpeopt::gpu

namespace tpeopt::strategies {

/// The parameter slots, in the order of donchian::Slot.
const ParamList& donchian_params() {
  const char* window = "must be an integer in [1, 100000)";
  const char* bp = "must be >= 0 basis points (and below 10000)";
  static const ParamList list({
      {"channel", NAN, closed_open(0.5, 1e5, window), true, 10, 80},
      {"exit_channel", 10.0, closed_open(0.5, 1e5, window), true, 5, 40},
      {"atr_window", 20.0, closed_open(0.5, 1e5, window), true, 5, 30},
      {"atr_stop", 0.0, at_least(0.0, "must be >= 0 ATRs (0 = no stop)"), false, 0.0, 4.0},
      {"fee_bp", 0.0, closed_open(0.0, 1e4, bp), false, 0.0, 5.0},
      {"slippage_bp", 0.0, closed_open(0.0, 1e4, bp), false, 0.0, 2.0},
  });
  return list;
}

void register_donchian(Registry& registry) {
  registry.add(signal_strategy_entry<donchian::Logic>(
      "donchian", "Donchian channel breakout, long and short, ATR stop, fills equal to vectorbt's from_signals",
      donchian_params(),
      {TPEOPT_DEVICE(gpu::make_donchian_twin), TPEOPT_DEVICE(gpu::donchian_trades_device),
       TPEOPT_DEVICE(gpu::donchian_symbols_device)}));
}

}  // namespace tpeopt::strategies
