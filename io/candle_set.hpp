#pragma once
// Candle data sets of many symbols (docs/strategies.md, "Candle data sets of many symbols"): loading from CSV files,
// a folder of them or one long CSV with a symbol column, through binary caches, and the `data` object of
// the candle strategies' configs (docs/strategies.md, "Candle data: one or many symbols").
//
// Long-CSV cache layout (little-endian, as written by this machine):
//   magic "TPEOCSET" (8 bytes), format version (u32), reserved (u32),
//   source CSV checksum (u64, common/digest.hpp over its bytes), source size (u64),
//   symbol count S (u64), bar count n (u64),
//   per symbol: name length (u32) and name bytes, then its bar count (u64),
//   then the arrays time_ms[n] (i64), open, high, low, close, volume [n] (f64), symbols in
//   name order, then the common/digest.hpp checksum of everything before it (u64).
// One file per CSV content, "candleset-<checksum hex>-<size>.bin", in the candles cache
// directory (io/candles_cache.hpp); written atomically. One-symbol CSVs use the
// single-series cache of io/candles_cache.hpp, unchanged.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "common/candles.hpp"
#include "io/candles_cache.hpp"
#include "io/json_fields.hpp"

namespace tpeopt::io {

/// Loads one CSV: without a symbol column it is one symbol named `default_symbol` (usually
/// the file's stem); with one, every symbol it names. Cached as described above; errors name
/// file:line:column.
CandleSet load_candle_set_file(const std::filesystem::path& csv, const std::string& default_symbol,
                               const std::optional<std::filesystem::path>& cache_dir = {},
                               const CandlesCsvOptions& options = {});

/// Joins sets into one, symbols in name order. Throws Error naming both sources when a
/// symbol appears twice. `source` names the result.
CandleSet merge_candle_sets(std::vector<CandleSet> parts, const std::string& source);

/// Keeps only `names` (any order; the result stays in name order). Throws Error naming
/// `key_path`[i] and the set's symbols when a name is missing or listed twice.
CandleSet select_symbols(const CandleSet& set, const std::vector<std::string>& names, const std::string& key_path);

/// The `data` object of a candle strategy:
///   {"candles": FILE}               one CSV (one symbol, or many with a symbol column)
///   {"candles": [FILE, FILE, ...]}  several CSVs
///   {"candles_dir": DIR}            every *.csv in DIR (not recursive)
/// with optional "symbols": [NAME, ...] (keep only these), "cache_dir" (as for
/// load_candles; "" disables the cache) and "time_format" (io/candles_format.hpp). A file
/// without a symbol column is one symbol named after its stem. Paths are resolved against
/// `base_dir` (the config's folder), then the current directory. Errors name the key
/// (data.candles[2], data.symbols[0], ...) or file:line:column. `require_volume`: false for
/// strategies that do not read volume. Each symbol loaded is recorded (io/data_log.hpp).
CandleSet load_candle_set_data(const Json& data, const std::filesystem::path& base_dir, bool require_volume = true);

/// The long-CSV cache (layout above).
void write_candle_set_cache(const std::filesystem::path& path, const CandleSet& set, const CandlesSourceId& id);
CandleSet read_candle_set_cache(const std::filesystem::path& path, const CandlesSourceId& expected,
                                const std::string& source_name);
std::filesystem::path candle_set_cache_path(const std::filesystem::path& cache_dir, const CandlesSourceId& id);

/// Writes a set as one CSV per symbol (DIR/<symbol>.csv) or as one long CSV with a symbol
/// column (`symbol,time,open,high,low,close,volume`); times as `YYYY-MM-DD HH:MM:SS` UTC (with
/// `.fff` when not whole seconds), numbers in their shortest round-trip form, so reading the
/// files back gives the same bits. Throws Error when a file cannot be written.
void write_candle_set_dir(const CandleSet& set, const std::filesystem::path& dir);
void write_candle_set_long_csv(const CandleSet& set, const std::filesystem::path& file);

/// "YYYY-MM-DD HH:MM:SS[.fff]" (UTC) of Unix milliseconds.
std::string format_time_ms(std::int64_t ms);

}  // namespace tpeopt::io
