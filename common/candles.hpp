#pragma once
// OHLCV candles as a struct of arrays: the data type that io/ loads (io/candles_csv.hpp,
// io/candles_cache.hpp, io/candle_set.hpp) and the candle strategies read. Plain data, no
// logic beyond accessors.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tpeopt {

struct Candles {
  std::string source;                 ///< where the bars came from (file path), for messages
  std::vector<std::int64_t> time_ms;  ///< bar time, Unix milliseconds UTC, strictly increasing
  std::vector<double> open, high, low, close, volume;

  std::size_t size() const { return time_ms.size(); }
  void reserve(std::size_t n) {
    time_ms.reserve(n);
    for (auto* v : {&open, &high, &low, &close, &volume}) v->reserve(n);
  }
};

/// Candles of several symbols stored contiguously (docs/strategies.md, "Candle data sets of many symbols"): symbol s
/// holds the bars [offset[s], offset[s] + length[s]) of `bars`, symbols one after another in name order
/// (offset[0] = 0, offset[s + 1] = offset[s] + length[s]). Symbols may have different lengths
/// and start dates; times increase within a symbol.
struct CandleSet {
  std::string source;                ///< where the set came from (file, folder or list), for messages
  std::vector<std::string> symbols;  ///< names, strictly increasing (byte order)
  std::vector<std::string> sources;  ///< per symbol: the file its bars came from
  std::vector<std::int64_t> offset;  ///< per symbol: its first bar in `bars`
  std::vector<std::int64_t> length;  ///< per symbol: its number of bars
  Candles bars;                      ///< all symbols' bars, contiguous

  std::size_t n_symbols() const { return symbols.size(); }
  std::size_t n_bars() const { return bars.size(); }
  /// A copy of one symbol's bars (source = "file" for one-symbol files, else "file[symbol]").
  Candles symbol(std::size_t s) const {
    Candles c;
    c.source = sources[s];
    const auto b = static_cast<std::ptrdiff_t>(offset[s]), e = b + static_cast<std::ptrdiff_t>(length[s]);
    c.time_ms.assign(bars.time_ms.begin() + b, bars.time_ms.begin() + e);
    c.open.assign(bars.open.begin() + b, bars.open.begin() + e);
    c.high.assign(bars.high.begin() + b, bars.high.begin() + e);
    c.low.assign(bars.low.begin() + b, bars.low.begin() + e);
    c.close.assign(bars.close.begin() + b, bars.close.begin() + e);
    c.volume.assign(bars.volume.begin() + b, bars.volume.begin() + e);
    return c;
  }
  /// Appends a symbol's bars at the end (the caller keeps the name order).
  void append(const std::string& name, const std::string& from, const Candles& c) {
    symbols.push_back(name);
    sources.push_back(from);
    offset.push_back(static_cast<std::int64_t>(bars.size()));
    length.push_back(static_cast<std::int64_t>(c.size()));
    bars.time_ms.insert(bars.time_ms.end(), c.time_ms.begin(), c.time_ms.end());
    bars.open.insert(bars.open.end(), c.open.begin(), c.open.end());
    bars.high.insert(bars.high.end(), c.high.begin(), c.high.end());
    bars.low.insert(bars.low.end(), c.low.begin(), c.low.end());
    bars.close.insert(bars.close.end(), c.close.begin(), c.close.end());
    bars.volume.insert(bars.volume.end(), c.volume.begin(), c.volume.end());
  }
};

}  // namespace tpeopt
