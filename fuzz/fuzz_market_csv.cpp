// libFuzzer target: one Raw_Market_data file's text (the trade_filter strategy's per-second market data).
// fuzz-sources: io/market_data_csv.cpp io/csv_rows.cpp
#include <cstddef>
#include <cstdint>
#include <map>
#include <string_view>

#include "common/error.hpp"
#include "io/market_data_csv.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::map<std::string, std::uint32_t, std::less<>> keep = {{"SOXL", 0}, {"IONQ", 1}, {"MARA", 2}};
  tpeopt::io::MarketRows rows;
  try {
    tpeopt::io::parse_market_csv(std::string_view(reinterpret_cast<const char*>(data), size),
                                 "Raw_Market_data_01-02-2024.csv", 19724, keep, rows);
  } catch (const tpeopt::Error&) {}
  return 0;
}
