#pragma once
// The `data` object of a candle strategy's config: {"candles": FILE, "cache_dir": DIR}.
#include <filesystem>

#include "common/candles.hpp"
#include "io/json_fields.hpp"

namespace tpeopt::io {

/// Resolves `data.candles` (relative paths: against `base_dir`, the config's folder, and
/// when no such file exists there, against the current directory) and loads it through
/// the binary cache (io/candles_cache.hpp). `data.cache_dir` (optional) overrides the
/// cache directory; "" disables the cache. Errors name the key or file:line:column.
Candles load_candles_data(const Json& data, const std::filesystem::path& base_dir);

/// The path `data.candles` names, resolved as above (the file need not exist).
std::filesystem::path resolve_data_path(const std::string& value, const std::filesystem::path& base_dir);

}  // namespace tpeopt::io
