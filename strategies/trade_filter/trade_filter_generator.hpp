#pragma once
// Writes realistic synthetic inputs for the trade_filter strategy, in exactly seed
// 001's two formats (io/market_data_csv.hpp, io/trade_log_csv.hpp), for tests,
// benchmarks and trying the whole path:
//  - market: second bars over regular sessions (09:30:00 to 16:00:00, 23,401 rows per
//    ticker and day) on weekdays, several tickers per file (the kept ones plus two
//    that preparation drops); log prices follow a random walk whose volatility switches
//    between a calm and a wild regime (a two-state Markov chain), rounded to cents;
//    ATR, volatility percent/ratio, ADX 28/14/7 and RSI are EMA-style indicators of it.
//  - trades: entries at random seconds where a simple rule holds (price above its
//    5-minute mean and volatility ratio >= 0.8, else the last candidate tried), each with
//    its own logged take profit, stop loss and time limit; the exit is the real first
//    passage of the price path (or the time limit, or the session's end), and Trade
//    Percent Change, Best and Worst Exit Percent are measured on that path.
// Deterministic for a given seed.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace tpeopt::io {

struct TradeFilterGeneratorOptions {
  std::filesystem::path out;                                 ///< writes out/market/ and out/trades.csv
  int days = 5;                                              ///< trading days (weekdays from first_day)
  std::vector<std::string> tickers{"SOXL", "IONQ", "MARA"};  ///< tickers that trade
  std::vector<std::string> extra_tickers{"TSLA", "NVDA"};    ///< market-only tickers (dropped by preparation)
  std::uint64_t trades = 10000;                              ///< trades in the log, spread over days and tickers
  std::uint64_t seed = 1;
  std::string first_day = "2024-01-02";  ///< YYYY-MM-DD
};

struct GeneratedTradeFilterData {
  std::filesystem::path market_dir, trades;
  std::uint64_t market_rows = 0, trade_rows = 0;
};

/// Writes the files; throws Error when the folder cannot be written.
GeneratedTradeFilterData generate_trade_filter_data(const TradeFilterGeneratorOptions& options);

}  // namespace tpeopt::io
