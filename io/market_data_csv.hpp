#pragma once
// Reads per-second market data: a directory of `Raw_Market_data_MM-DD-YYYY.csv` files,
// header `Ticker,Price,Val,Avg,Atr14,Atr28,Rsi,Volume,Adx28,Adx14,Adx7,Volatility
// Percent,Volatility Ratio,Time` (only Ticker, Price and Time are read; columns in any
// order), Time as HH:MM:SS; the date comes from the file name.
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace tpeopt::io {

/// Rows of the kept tickers, in file order.
struct MarketRows {
  std::vector<std::uint32_t> ticker;  ///< ticker id
  std::vector<std::int64_t> time;     ///< seconds since 1970-01-01
  std::vector<float> price;           ///< Price rounded to float32
};

/// Day number (days since 1970-01-01) of a market file name; false when `name` is not
/// `Raw_Market_data_MM-DD-YYYY.csv` with a real date.
bool market_file_day(const std::string& name, std::int64_t& day);

/// The market files of `dir`, sorted by date (other files are ignored). Throws Error
/// when the directory cannot be read or holds no market file.
std::vector<std::filesystem::path> list_market_files(const std::filesystem::path& dir);

/// Appends the rows of tickers in `keep` (name -> id) from one file's text. Rows of
/// other tickers are skipped without further checks. Errors name source:line:column:
/// a missing column, a short row, an unparsable Price or Time, a Price <= 0.
void parse_market_csv(std::string_view text, const std::string& source, std::int64_t day,
                      const std::map<std::string, std::uint32_t, std::less<>>& keep, MarketRows& out);

}  // namespace tpeopt::io
