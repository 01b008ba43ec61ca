// libFuzzer target: the trade_filter strategy's trade log.
// fuzz-sources: io/trade_log_csv.cpp io/csv_rows.cpp
#include <cstddef>
#include <cstdint>
#include <map>
#include <string_view>

#include "common/error.hpp"
#include "io/trade_log_csv.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::map<std::string, std::uint32_t, std::less<>> keep = {{"SOXL", 0}, {"IONQ", 1}, {"MARA", 2}};
  std::uint64_t dropped = 0;
  try {
    (void)tpeopt::io::parse_trade_log_csv(std::string_view(reinterpret_cast<const char*>(data), size), "trades.csv",
                                          keep, dropped);
  } catch (const tpeopt::Error&) {}
  return 0;
}
