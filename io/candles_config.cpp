#include "io/candles_config.hpp"

#include <optional>

#include "common/error.hpp"
#include "io/candles_cache.hpp"

namespace tpeopt::io {

std::filesystem::path resolve_data_path(const std::string& value, const std::filesystem::path& base_dir) {
  const std::filesystem::path p(value);
  if (p.is_absolute()) return p;
  std::error_code ec;
  const std::filesystem::path in_base = base_dir / p;
  if (std::filesystem::exists(in_base, ec) || !std::filesystem::exists(p, ec)) return in_base;
  return p;
}

Candles load_candles_data(const Json& data, const std::filesystem::path& base_dir) {
  JsonFields f(data, "data");
  f.reject_unknown({"candles", "cache_dir"});
  const std::string value = f.get_string("candles");
  if (value.empty()) throw make_error("data.candles: expected a CSV file path, got an empty string");
  const std::filesystem::path csv = resolve_data_path(value, base_dir);
  std::error_code ec;
  if (!std::filesystem::is_regular_file(csv, ec))
    throw make_error("data.candles: no such file: {} (relative paths are resolved against the config's folder {}, "
                     "then the current directory)",
                     csv.string(), base_dir.string());
  std::optional<std::filesystem::path> cache_dir;
  if (f.has("cache_dir")) cache_dir = std::filesystem::path(f.get_string("cache_dir"));
  return load_candles(csv, cache_dir);
}

}  // namespace tpeopt::io
