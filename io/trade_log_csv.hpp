#pragma once
// Reads a log of live trades with their entry metrics: one CSV with at least the columns `Date,Trade Id,Ticker,
// Entry Price,Exit Price,Entry Time,Exit Time,Worst Exit Percent,Entry Volatility Percent,
// Entry Volatility Ratio,Entry Adx28,Entry Adx14,Entry Adx7,Trade Best Exit Percent,Trade
// Percent Change` (others ignored, any order). Date as MM/DD/YYYY or YYYY-MM-DD; times
// HH:MM:SS.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace tpeopt::io {

/// One kept trade as logged.
struct TradeLogRow {
  std::uint32_t ticker = 0;     ///< ticker id
  std::int64_t entry_time = 0;  ///< seconds since 1970-01-01
  std::int64_t exit_time = 0;
  double entry_price = 0;
  float metrics[5] = {};  ///< volatility percent, volatility ratio, adx28, adx14, adx7 (float32)
  double logged_pct = 0;  ///< Trade Percent Change
  std::size_t line = 0;   ///< line in the log, for messages
};

/// Parses the log's text. Trades of tickers not in `keep` are counted in `dropped` and
/// skipped without further checks. Errors name source:line:column: a missing column, a
/// short row, an unparsable number, date or time, an entry or exit price <= 0, an exit
/// time before the entry time.
std::vector<TradeLogRow> parse_trade_log_csv(std::string_view text, const std::string& source,
                                             const std::map<std::string, std::uint32_t, std::less<>>& keep,
                                             std::uint64_t& dropped);

}  // namespace tpeopt::io
