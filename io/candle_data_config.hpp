#pragma once
// The `data` object of a candle strategy as a typed struct, checked when the study config
// is loaded (every error names its key), then loaded by the strategy's factory. The shapes
// (docs/strategies.md, "Candle data sets of many symbols"):
//   {"candles": FILE} | {"candles": [FILE, ...]} | {"candles_dir": DIR}
// with optional "symbols": [NAME, ...], "cache_dir": DIR and "time_format" (io/candles_format.hpp).
// A one-series strategy takes {"candles": FILE}, "cache_dir" and "time_format" only.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "common/candles.hpp"
#include "io/json_fields.hpp"

namespace tpeopt::io {

/// Which shapes a strategy reads.
enum class CandleSources {
  OneSeries,  ///< {"candles": FILE, "cache_dir"?}: one series (io/candles_config.hpp)
  Many,       ///< every shape above: a data set of one or more symbols (io/candle_set.hpp)
};

struct CandleDataConfig {
  CandleSources sources = CandleSources::Many;
  std::vector<std::string> candles;  ///< "candles": the paths as written (one for a string)
  bool candles_list = false;         ///< "candles" was written as a list
  std::string candles_dir;           ///< "candles_dir" (set when `candles` is empty)
  std::vector<std::string> symbols;  ///< "symbols": keep only these (empty: all)
  std::optional<std::string> cache_dir;
  std::string time_format;  ///< "time_format": strptime-style, for layouts not detected ("" = detect)

  /// The object in the resolved config (keys in the order candles, candles_dir, symbols,
  /// cache_dir, time_format).
  Json to_json() const;
};

/// Checks the shape of `data` (keys, types, non-empty lists); the files are read later.
/// Errors name the key ("data.candles[2]: expected a CSV file path, got a number").
/// With `errors`, every unknown key of `data` is recorded there (the rest is still parsed);
/// other errors are thrown.
CandleDataConfig parse_candle_data_config(const Json& data, CandleSources sources, ConfigErrors* errors = nullptr);

/// The data set (sources Many): paths resolved against `base_dir`, then the current folder;
/// errors name the key or file:line:column (io/candle_set.hpp's load_candle_set_data).
/// `require_volume`: false for strategies that do not read volume (files without one load).
CandleSet load_candle_set(const CandleDataConfig& config, const std::filesystem::path& base_dir,
                          bool require_volume = true);
/// The one series (sources OneSeries), through the one-series cache (io/candles_config.hpp);
/// volume is not required.
Candles load_one_series(const CandleDataConfig& config, const std::filesystem::path& base_dir);

}  // namespace tpeopt::io
