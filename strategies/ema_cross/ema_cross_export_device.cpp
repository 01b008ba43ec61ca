// The GPU side of ema_cross_export.hpp (builds with CUDA).
#include "strategies/ema_cross/ema_cross_device.hpp"
#include "strategies/ema_cross/ema_cross_export.hpp"

namespace tpeopt::gpu {

strategies::ExportedTrades ema_cross_trades_device(const strategies::Strategy& strategy, const double* params,
                                                   int block_size) {
  const auto& s = dynamic_cast<const strategies::EmaCrossStrategy&>(strategy);
  // Named: a range-for over `gpu_ema_cross_trades(...)[0].trades` would walk a destroyed
  // vector (a temporary's lifetime ends before the loop body: docs/writing-a-strategy.md).
  const auto lists = gpu_ema_cross_trades(s, params, 1, {}, block_size);
  std::vector<strategies::ExportedTrade> out;
  for (const auto& t : lists[0].trades) out.push_back(strategies::export_ema_cross_trade(t, s.candles().time_ms));
  return {out};
}

}  // namespace tpeopt::gpu
