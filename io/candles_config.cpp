#include "io/candles_config.hpp"

#include <optional>

#include "common/error.hpp"
#include "io/candles_cache.hpp"
#include "io/data_log.hpp"

namespace tpeopt::io {

namespace fs = std::filesystem;

fs::path resolve_data_path(const std::string& value, const fs::path& base_dir) {
  const fs::path p(value);
  if (p.is_absolute()) return p;
  std::error_code ec;
  const fs::path in_base = (base_dir / p).lexically_normal();
  if (fs::exists(in_base, ec) || !fs::exists(p, ec)) return in_base;
  return p;
}

fs::path resolve_existing(const std::string& value, const fs::path& base_dir, const std::string& key, bool dir) {
  if (value.empty()) throw make_error("{}: expected a {} path, got an empty string", key, dir ? "folder" : "CSV file");
  const fs::path p = resolve_data_path(value, base_dir);
  std::error_code ec;
  if (dir ? fs::is_directory(p, ec) : fs::is_regular_file(p, ec)) return p;
  if (fs::exists(p, ec))
    throw make_error("{}: {} is {}, not a {}", key, p.string(),
                     fs::is_directory(p, ec) ? "a folder" : "not a regular file", dir ? "folder" : "CSV file");
  throw make_error(
      "{}: no such {}: {} (relative paths are resolved against the config's folder {}, then the "
      "current directory)",
      key, dir ? "folder" : "file", p.string(), base_dir.string());
}

CandlesCsvOptions candles_csv_options(const JsonFields& data) {
  CandlesCsvOptions o;
  if (data.has("time_format")) {
    o.time_format = data.get_string("time_format");
    check_time_format(o.time_format, "data.time_format");
  }
  return o;
}

Candles load_candles_data(const Json& data, const fs::path& base_dir) {
  JsonFields f(data, "data");
  f.reject_unknown({"candles", "cache_dir", "time_format"});
  const fs::path csv = resolve_existing(f.get_string("candles"), base_dir, "data.candles", false);
  std::optional<fs::path> cache_dir;
  if (f.has("cache_dir")) cache_dir = fs::path(f.get_string("cache_dir"));
  CandlesCsvOptions options = candles_csv_options(f);
  options.require_volume = false;
  Candles c = load_candles(csv, cache_dir, options);
  record_candles_load(c);
  return c;
}

}  // namespace tpeopt::io
