#include "io/candles_cache.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <system_error>

#include "common/atomic_file.hpp"
#include "common/binary_format.hpp"
#include "common/digest.hpp"
#include "common/error.hpp"
#include "io/candles_csv.hpp"

namespace tpeopt::io {

namespace {

constexpr binary::Magic kMagic = {'T', 'P', 'E', 'O', 'C', 'N', 'D', 'L'};
// 2: the parser of io/candles_format.hpp (delimiters, decimal commas, more time formats;
// 16-digit Unix times are microseconds, 1 read them as milliseconds).
constexpr std::uint32_t kVersion = 2;
constexpr std::size_t kHeaderBytes = 8 + 4 + 4 + 8 + 8 + 8;

}  // namespace

CandlesSourceId candles_source_id(std::string_view bytes, const CandlesCsvOptions& options) {
  Digest d;
  d.add_bytes(bytes.data(), bytes.size());
  // Options that change the parse change the identity (the defaults keep it).
  if (const std::string key = options.cache_key(); !key.empty()) d.add(std::string_view(key));
  return {d.value(), bytes.size()};
}

void write_candles_cache(const std::filesystem::path& path, const Candles& c, const CandlesSourceId& id) {
  std::string out;
  out.reserve(kHeaderBytes + c.size() * 48 + 8);
  binary::StringWriter w(out);
  w.put_magic(kMagic);
  w.put(kVersion);
  w.put(std::uint32_t{0});
  w.put(id.checksum);
  w.put(id.size);
  w.put(static_cast<std::uint64_t>(c.size()));
  w.put_array(c.time_ms);
  for (const auto* v : {&c.open, &c.high, &c.low, &c.close, &c.volume}) w.put_array(*v);
  w.seal();

  // Not fsynced: a cache lost in a crash is rebuilt from its source.
  write_file_atomically(path, out, false);
}

Candles read_candles_cache(const std::filesystem::path& path, const CandlesSourceId& expected,
                           const std::string& source_name) {
  const std::string in = read_file_bytes(path);
  const std::string where = path.string();
  binary::BytesReader r(in);
  if (!r.get_magic(kMagic)) throw make_error("{}: not a tpeopt candles cache (bad magic)", where);
  if (in.size() < kHeaderBytes) throw make_error("{}: truncated candles cache ({} bytes)", where, in.size());
  std::uint32_t version = 0, reserved = 0;
  std::uint64_t checksum = 0, size = 0, n = 0;
  r.get(version);  // the header's fields are there: the file holds kHeaderBytes
  if (version != kVersion)
    throw make_error("{}: candles cache format version {} (this tpeopt reads version {}); delete the file", where,
                     version, kVersion);
  r.get(reserved);
  r.get(checksum);
  r.get(size);
  r.get(n);
  if (checksum != expected.checksum || size != expected.size)
    throw make_error("{}: candles cache of another CSV (checksum {:016x}, {} bytes; expected {:016x}, {} bytes)", where,
                     checksum, size, expected.checksum, expected.size);
  const std::uint64_t expected_bytes = kHeaderBytes + n * 48 + 8;
  if (n > (std::uint64_t{1} << 40) || in.size() != expected_bytes)
    throw make_error("{}: truncated or corrupt candles cache ({} bytes, expected {} for {} bars)", where, in.size(),
                     expected_bytes, n);
  if (!binary::is_sealed(in))
    throw make_error("{}: corrupt candles cache (its checksum does not match its contents)", where);
  Candles c;
  c.source = source_name;
  r.get_array(c.time_ms, n);  // the size was checked: every array is there
  for (auto* v : {&c.open, &c.high, &c.low, &c.close, &c.volume}) r.get_array(*v, n);
  return c;
}

std::filesystem::path default_candles_cache_dir() {
  if (const char* d = std::getenv("TPEOPT_CACHE_DIR"); d && *d) return d;
  if (const char* d = std::getenv("XDG_CACHE_HOME"); d && *d) return std::filesystem::path(d) / "tpeopt";
  if (const char* d = std::getenv("HOME"); d && *d) return std::filesystem::path(d) / ".cache" / "tpeopt";
  return {};
}

std::filesystem::path candles_cache_path(const std::filesystem::path& cache_dir, const CandlesSourceId& id) {
  return cache_dir / fmt::format("candles-{:016x}-{}.bin", id.checksum, id.size);
}

Candles load_candles(const std::filesystem::path& csv, const std::optional<std::filesystem::path>& cache_dir,
                     const CandlesCsvOptions& options) {
  return load_candles_bytes(read_candles_file(csv, options, false).bytes, csv.string(), cache_dir, options);
}

Candles load_candles_bytes(const std::string& bytes, const std::string& source,
                           const std::optional<std::filesystem::path>& cache_dir, const CandlesCsvOptions& options) {
  // The layout first (cheap): a cached file must still be one these options accept.
  detect_candles_layout(std::string_view(bytes).substr(0, std::min(bytes.size(), kCandlesHeadBytes)), source, options,
                        false);
  const CandlesSourceId id = candles_source_id(bytes, options);
  const std::filesystem::path dir = cache_dir ? *cache_dir : default_candles_cache_dir();
  std::filesystem::path cache;
  if (!dir.empty()) {
    cache = candles_cache_path(dir, id);
    std::error_code ec;
    if (std::filesystem::is_regular_file(cache, ec)) {
      try {
        return read_candles_cache(cache, id, source);
      } catch (const Error&) {
        // stale or corrupt: parse again and replace it below
      }
    }
  }
  Candles c = parse_candles_csv(bytes, source, options);
  if (!cache.empty()) {
    try {
      std::error_code ec;
      std::filesystem::create_directories(dir, ec);
      if (!ec) write_candles_cache(cache, c, id);
    } catch (const Error&) {
      // an unwritable cache directory only costs the next run a parse
    }
  }
  return c;
}

}  // namespace tpeopt::io
