#pragma once
// What this process loaded, for the line every run prints ("loaded FILE: N bars,
// FIRST .. LAST") and for the memory estimates made before a run starts
// (study/memory_check.hpp). The loaders of io/ add to it; the commands take it.
#include <cstdint>
#include <string>
#include <vector>

#include "common/candles.hpp"

namespace tpeopt::io {

struct DataLoad {
  std::string source;                      ///< the file (or "file[symbol]")
  std::uint64_t rows = 0;                  ///< bars, or trades
  std::string unit;                        ///< "bars" or "trades"
  std::int64_t first_ms = 0, last_ms = 0;  ///< first and last time, Unix milliseconds UTC
  std::string detail;                      ///< more, e.g. "3 tickers, 20 days of market rows"
  std::uint64_t bytes = 0;                 ///< host bytes of the loaded arrays
};

/// Adds a load (thread-safe).
void record_data_load(DataLoad load);
/// Adds one load per symbol of a candle set.
void record_candle_loads(const CandleSet& set);
/// Adds the load of one series.
void record_candles_load(const Candles& candles);
/// The loads recorded since the last call, in order; empties the record.
std::vector<DataLoad> take_data_loads();
/// "loaded data/x.csv: 5000 bars, 2017-04-19 13:00:00 .. 2018-02-07 15:00:00"
std::string describe_data_load(const DataLoad& load);

}  // namespace tpeopt::io
