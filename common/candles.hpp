#pragma once
// OHLCV candles as a struct of arrays: the data type that io/ loads (io/candles_csv.hpp,
// io/candles_cache.hpp) and strategies/ read (strategies/exhaustion/). Plain data, no logic.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tpeopt {

struct Candles {
  std::string source;               ///< where the bars came from (file path), for messages
  std::vector<std::int64_t> time_ms;  ///< bar time, Unix milliseconds UTC, strictly increasing
  std::vector<double> open, high, low, close, volume;

  std::size_t size() const { return time_ms.size(); }
  void reserve(std::size_t n) {
    time_ms.reserve(n);
    for (auto* v : {&open, &high, &low, &close, &volume}) v->reserve(n);
  }
};

}  // namespace tpeopt
