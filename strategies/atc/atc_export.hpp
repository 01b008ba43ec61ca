#pragma once
// The trades export of the atc strategy (its registry entry's `trades`, CPU only).
#include <string>
#include <vector>

#include "strategies/export.hpp"
#include "strategies/strategy.hpp"

namespace tpeopt::strategies {

/// entry_bar, exit_bar, side, entry_price, exit_price, bars, return.
const std::vector<std::string>& atc_trade_columns();
/// One list per symbol, in trade order; the number of trades is the `trades` metric.
ExportedTrades atc_trades_cpu(const Strategy& strategy, const double* params);

}  // namespace tpeopt::strategies
