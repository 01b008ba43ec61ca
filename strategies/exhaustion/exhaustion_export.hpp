#pragma once
// The exhaustion strategy's trades and per-symbol results as the registry exports them
// (`tpeopt backtest --trades-out`, `--symbols-out`): the CPU side here, the GPU side in
// exhaustion_export_device.cpp (builds with CUDA).
#include <cstdint>
#include <string>
#include <vector>

#include "strategies/exhaustion/exhaustion.hpp"
#include "strategies/registry.hpp"

namespace tpeopt::strategies {

/// signal_bar, entry_bar, exit_bar, entry_price, exit_price, reason, return, r_multiple.
const std::vector<std::string>& exhaustion_trade_columns();
/// One trade's row; numbers in their shortest round-trip form, times from `time_ms`.
ExportedTrade export_exhaustion_trade(const exhaustion::Trade& t, const std::vector<std::int64_t>& time_ms);
/// The CPU reference's trades, per symbol.
ExportedTrades exhaustion_trades_cpu(const Strategy& strategy, const double* params);

}  // namespace tpeopt::strategies

namespace tpeopt::gpu {

/// The same trades computed on CUDA device 0.
strategies::ExportedTrades exhaustion_trades_device(const strategies::Strategy& strategy, const double* params,
                                                    int block_size);
/// Each symbol's objective, equity and metrics on CUDA device 0 (several symbols).
strategies::SymbolResults exhaustion_symbols_device(const strategies::Strategy& strategy, const double* params,
                                                    int block_size);

}  // namespace tpeopt::gpu
