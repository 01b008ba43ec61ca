#pragma once
// The ema_cross strategy's trades as the registry exports them (`tpeopt backtest
// --trades-out`): the CPU side here, the GPU side in ema_cross_export_device.cpp (builds
// with CUDA).
#include <cstdint>
#include <string>
#include <vector>

#include "strategies/ema_cross/ema_cross.hpp"
#include "strategies/registry.hpp"

namespace tpeopt::strategies {

/// signal_bar, entry_bar, exit_bar, entry_price, exit_price, reason, return.
const std::vector<std::string>& ema_cross_trade_columns();
ExportedTrade export_ema_cross_trade(const ema_cross::Trade& t, const std::vector<std::int64_t>& time_ms);
ExportedTrades ema_cross_trades_cpu(const Strategy& strategy, const double* params);

}  // namespace tpeopt::strategies

namespace tpeopt::gpu {

strategies::ExportedTrades ema_cross_trades_device(const strategies::Strategy& strategy, const double* params,
                                                   int block_size);

}  // namespace tpeopt::gpu
