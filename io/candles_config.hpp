#pragma once
// The `data` object of a one-series candle strategy's config: {"candles": FILE, "cache_dir":
// DIR, "time_format": PATTERN}.
#include <filesystem>

#include "common/candles.hpp"
#include "io/candles_format.hpp"
#include "io/json_fields.hpp"

namespace tpeopt::io {

/// Resolves `data.candles` (relative paths: against `base_dir`, the config's folder, and
/// when no such file exists there, against the current directory) and loads it through
/// the binary cache (io/candles_cache.hpp). `data.cache_dir` (optional) overrides the
/// cache directory; "" disables the cache. `data.time_format` (optional): the time
/// column's pattern (io/candles_format.hpp). The volume column is optional (the one-series
/// strategies do not read it). Errors name the key or file:line:column. The load is recorded
/// (io/data_log.hpp).
Candles load_candles_data(const Json& data, const std::filesystem::path& base_dir);

/// The path `data.candles` names, resolved as above (the file need not exist).
std::filesystem::path resolve_data_path(const std::string& value, const std::filesystem::path& base_dir);

/// resolve_data_path for `key`, requiring a folder (`dir`) or a regular file there; the
/// error says what is there instead (nothing, a folder, a file).
std::filesystem::path resolve_existing(const std::string& value, const std::filesystem::path& base_dir,
                                       const std::string& key, bool dir);

/// The CSV options of a data object: its "time_format" (checked), else the defaults.
CandlesCsvOptions candles_csv_options(const JsonFields& data);

}  // namespace tpeopt::io
