#pragma once
// Builds the trade_filter data (strategies/trade_filter/trade_filter_data.hpp) from
// the trade log and per-second market-data CSVs (io/market_data_csv.hpp, io/trade_log_csv.hpp).
//
// Window of a trade: `start` is the first market row of its ticker with date-time >=
// entry, `end` the last with date-time <= exit, both on the trade's date. Trades of
// tickers not kept are dropped silently; trades with no market row in their window
// keep their logged outcome and are counted in `empty_windows`. Path:
// r_k = (float)((price_k / entry_price - 1.0) * 100.0) in double, from the float32
// price and the logged Entry Price.
#include <filesystem>
#include <string>
#include <vector>

#include "strategies/trade_filter/trade_filter_data.hpp"

namespace tpeopt::io {

struct TradeFilterInputs {
  std::filesystem::path market_dir;  ///< folder of Raw_Market_data_MM-DD-YYYY.csv files
  std::filesystem::path trades;      ///< the trade log CSV
  std::vector<std::string> tickers;  ///< tickers to keep (any order; duplicates ignored)
};

/// Reads, checks and prepares everything. Throws Error naming file:line:column for a
/// bad row, and an error when the trades could overflow the exact int64 score.
strategies::TradeFilterData prepare_trade_filter_data(const TradeFilterInputs& inputs);

/// Fills logged_q, the paths and the record arrays from the trades and prices already
/// in `data` (used by preparation and by tests that build data by hand). `times` holds
/// each price row's date-time (seconds), sorted within each ticker.
void compute_trade_filter_paths(strategies::TradeFilterData& data, const std::vector<std::int64_t>& times);

}  // namespace tpeopt::io
