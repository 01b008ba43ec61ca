#include "io/candles_cache.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <system_error>

#include "common/atomic_file.hpp"
#include "common/digest.hpp"
#include "common/error.hpp"
#include "io/candles_csv.hpp"

namespace tpeopt::io {

namespace {

constexpr char kMagic[8] = {'T', 'P', 'E', 'O', 'C', 'N', 'D', 'L'};
// 2: the parser of io/candles_format.hpp (delimiters, decimal commas, more time formats;
// 16-digit Unix times are microseconds, 1 read them as milliseconds).
constexpr std::uint32_t kVersion = 2;
constexpr std::size_t kHeaderBytes = 8 + 4 + 4 + 8 + 8 + 8;

template <typename T>
void put(std::string& out, const T& v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof v);
}

template <typename T>
void put_array(std::string& out, const std::vector<T>& v) {
  out.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}

template <typename T>
T get(const std::string& in, std::size_t& pos) {
  T v;
  std::memcpy(&v, in.data() + pos, sizeof v);
  pos += sizeof v;
  return v;
}

template <typename T>
void get_array(const std::string& in, std::size_t& pos, std::size_t n, std::vector<T>& v) {
  v.resize(n);
  std::memcpy(v.data(), in.data() + pos, n * sizeof(T));
  pos += n * sizeof(T);
}

std::uint64_t checksum_of(const void* data, std::size_t n) {
  Digest d;
  d.add_bytes(data, n);
  return d.value();
}

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
  out.append(kMagic, sizeof kMagic);
  put(out, kVersion);
  put(out, std::uint32_t{0});
  put(out, id.checksum);
  put(out, id.size);
  put(out, static_cast<std::uint64_t>(c.size()));
  put_array(out, c.time_ms);
  for (const auto* v : {&c.open, &c.high, &c.low, &c.close, &c.volume}) put_array(out, *v);
  put(out, checksum_of(out.data(), out.size()));

  // Not fsynced: a cache lost in a crash is rebuilt from its source.
  write_file_atomically(path, out, false);
}

Candles read_candles_cache(const std::filesystem::path& path, const CandlesSourceId& expected,
                           const std::string& source_name) {
  const std::string in = read_file_bytes(path);
  const std::string where = path.string();
  if (in.size() < sizeof kMagic || std::memcmp(in.data(), kMagic, sizeof kMagic) != 0)
    throw make_error("{}: not a tpeopt candles cache (bad magic)", where);
  if (in.size() < kHeaderBytes) throw make_error("{}: truncated candles cache ({} bytes)", where, in.size());
  std::size_t pos = sizeof kMagic;
  const auto version = get<std::uint32_t>(in, pos);
  if (version != kVersion)
    throw make_error("{}: candles cache format version {} (this tpeopt reads version {}); delete the file", where,
                     version, kVersion);
  pos += 4;
  const auto checksum = get<std::uint64_t>(in, pos);
  const auto size = get<std::uint64_t>(in, pos);
  const auto n = get<std::uint64_t>(in, pos);
  if (checksum != expected.checksum || size != expected.size)
    throw make_error("{}: candles cache of another CSV (checksum {:016x}, {} bytes; expected {:016x}, {} bytes)", where,
                     checksum, size, expected.checksum, expected.size);
  const std::uint64_t expected_bytes = kHeaderBytes + n * 48 + 8;
  if (n > (std::uint64_t{1} << 40) || in.size() != expected_bytes)
    throw make_error("{}: truncated or corrupt candles cache ({} bytes, expected {} for {} bars)", where, in.size(),
                     expected_bytes, n);
  std::size_t tail = in.size() - 8;
  if (get<std::uint64_t>(in, tail) != checksum_of(in.data(), in.size() - 8))
    throw make_error("{}: corrupt candles cache (its checksum does not match its contents)", where);
  Candles c;
  c.source = source_name;
  get_array(in, pos, n, c.time_ms);
  for (auto* v : {&c.open, &c.high, &c.low, &c.close, &c.volume}) get_array(in, pos, n, *v);
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
