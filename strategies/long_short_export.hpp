#pragma once
// The trades of the long/short walk (strategies/long_short.hpp) as `tpeopt backtest
// --trades-out` writes them. CUDA-safe header (no fmt): the CUDA twins export through it.
#include <cstdint>
#include <string>
#include <vector>

#include "strategies/export.hpp"
#include "strategies/long_short.hpp"

namespace tpeopt::strategies {

/// signal_bar, entry_bar, exit_bar, side, entry_price, exit_price, reason, return.
const std::vector<std::string>& long_short_trade_columns();
/// One trade's row; numbers in their shortest round-trip form, times from `time_ms`.
ExportedTrade export_long_short_trade(const long_short::Trade& t, const std::int64_t* time_ms);

}  // namespace tpeopt::strategies
