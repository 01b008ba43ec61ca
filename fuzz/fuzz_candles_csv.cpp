// libFuzzer target: the OHLCV CSV reader turns any text into candles or a
// tpeopt::Error naming file:line:column, never a crash, hang or sanitizer report.
// fuzz-sources: io/candles_csv.cpp
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/error.hpp"
#include "io/candles_csv.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    (void)tpeopt::io::parse_candles_csv(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.csv");
  } catch (const tpeopt::Error&) {}
  return 0;
}
