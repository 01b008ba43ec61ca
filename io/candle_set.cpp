#include "io/candle_set.hpp"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/atomic_file.hpp"
#include "common/binary_format.hpp"
#include "common/digest.hpp"
#include "common/error.hpp"
#include "common/floor_div.hpp"
#include "io/candles_config.hpp"
#include "io/candles_csv.hpp"
#include "io/csv_rows.hpp"
#include "io/data_log.hpp"

namespace tpeopt::io {

namespace fs = std::filesystem;

namespace {

constexpr binary::Magic kMagic = {'T', 'P', 'E', 'O', 'C', 'S', 'E', 'T'};
constexpr std::uint32_t kVersion = 2;  // 2: the parser of io/candles_format.hpp (see io/candles_cache.cpp)

/// A cache file's fields, each read or the file is refused as truncated.
class Reader {
 public:
  Reader(std::string_view in, const std::string& where) : r_(in), size_(in.size()), where_(where) {}
  template <binary::Field T>
  T get() {
    T v{};
    if (!r_.get(v)) truncated();
    return v;
  }
  /// A u32 byte count, then the bytes.
  std::string get_string() {
    std::string s;
    if (!r_.get_string(s)) truncated();
    return s;
  }
  template <binary::Field T>
  void get_array(std::size_t n, std::vector<T>& v) {
    if (!r_.get_array(v, n)) truncated();
  }
  std::size_t pos() const { return r_.pos(); }

 private:
  [[noreturn]] void truncated() const {
    throw make_error("{}: truncated or corrupt candle set cache ({} bytes)", where_, size_);
  }
  binary::BytesReader r_;
  std::size_t size_;
  const std::string& where_;
};

bool is_csv_name(const fs::path& p) {
  std::string ext = p.extension().string();
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext == ".csv";
}

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) throw make_error("{}: cannot open for writing", path.string());
  f.write(text.data(), static_cast<std::streamsize>(text.size()));
  f.flush();
  if (!f) throw make_error("{}: write error", path.string());
}

void append_bar(std::string& out, const Candles& c, std::size_t i) {
  fmt::format_to(std::back_inserter(out), "{},{},{},{},{},{}\n", format_time_ms(c.time_ms[i]), c.open[i], c.high[i],
                 c.low[i], c.close[i], c.volume[i]);
}

}  // namespace

std::string format_time_ms(std::int64_t ms) {
  const std::int64_t days = floor_div(ms, 86400000);
  const std::int64_t rem = ms - days * 86400000;
  std::int64_t y;
  unsigned m, d;
  civil_from_days(days, y, m, d);
  const auto s = rem / 1000, frac = rem % 1000;
  std::string out = fmt::format("{:04}-{:02}-{:02} {:02}:{:02}:{:02}", y, m, d, s / 3600, (s / 60) % 60, s % 60);
  if (frac != 0) out += fmt::format(".{:03}", frac);
  return out;
}

fs::path candle_set_cache_path(const fs::path& cache_dir, const CandlesSourceId& id) {
  return cache_dir / fmt::format("candleset-{:016x}-{}.bin", id.checksum, id.size);
}

void write_candle_set_cache(const fs::path& path, const CandleSet& set, const CandlesSourceId& id) {
  std::string out;
  out.reserve(64 + set.n_bars() * 48 + set.n_symbols() * 32);
  binary::StringWriter w(out);
  w.put_magic(kMagic);
  w.put(kVersion);
  w.put(std::uint32_t{0});
  w.put(id.checksum);
  w.put(id.size);
  w.put(static_cast<std::uint64_t>(set.n_symbols()));
  w.put(static_cast<std::uint64_t>(set.n_bars()));
  for (std::size_t s = 0; s < set.n_symbols(); ++s) {
    w.put_string(set.symbols[s]);
    w.put(static_cast<std::uint64_t>(set.length[s]));
  }
  w.put_array(set.bars.time_ms);
  for (const auto* v : {&set.bars.open, &set.bars.high, &set.bars.low, &set.bars.close, &set.bars.volume})
    w.put_array(*v);
  w.seal();
  write_file_atomically(path, out, false);
}

CandleSet read_candle_set_cache(const fs::path& path, const CandlesSourceId& expected, const std::string& source_name) {
  const std::string in = read_file_bytes(path);
  const std::string where = path.string();
  if (in.size() < kMagic.size() + 8 || !binary::BytesReader(in).get_magic(kMagic))
    throw make_error("{}: not a tpeopt candle set cache (bad magic)", where);
  if (!binary::is_sealed(in))
    throw make_error("{}: corrupt candle set cache (its checksum does not match its contents)", where);
  const std::string_view body = std::string_view(in).substr(0, in.size() - 8);
  Reader r(body, where);
  r.get<std::uint64_t>();  // the magic, checked above
  const auto version = r.get<std::uint32_t>();
  if (version != kVersion)
    throw make_error("{}: candle set cache format version {} (this tpeopt reads version {}); delete the file", where,
                     version, kVersion);
  r.get<std::uint32_t>();
  const auto checksum = r.get<std::uint64_t>();
  const auto size = r.get<std::uint64_t>();
  if (checksum != expected.checksum || size != expected.size)
    throw make_error("{}: candle set cache of another CSV (checksum {:016x}, {} bytes; expected {:016x}, {} bytes)",
                     where, checksum, size, expected.checksum, expected.size);
  const auto n_symbols = r.get<std::uint64_t>();
  const auto n_bars = r.get<std::uint64_t>();
  if (n_symbols > (std::uint64_t{1} << 32) || n_bars > (std::uint64_t{1} << 40))
    throw make_error("{}: corrupt candle set cache ({} symbols, {} bars)", where, n_symbols, n_bars);
  CandleSet set;
  set.source = source_name;
  std::uint64_t total = 0;
  for (std::uint64_t s = 0; s < n_symbols; ++s) {
    std::string name = r.get_string();
    const auto bars = r.get<std::uint64_t>();
    if (name.empty() || bars == 0 || bars > n_bars - total || (!set.symbols.empty() && !(set.symbols.back() < name)))
      throw make_error("{}: corrupt candle set cache (symbol {})", where, s);
    set.sources.push_back(source_name + "[" + name + "]");
    set.symbols.push_back(std::move(name));
    set.offset.push_back(static_cast<std::int64_t>(total));
    set.length.push_back(static_cast<std::int64_t>(bars));
    total += bars;
  }
  if (total != n_bars) throw make_error("{}: corrupt candle set cache (symbol lengths do not add up)", where);
  r.get_array(n_bars, set.bars.time_ms);
  for (auto* v : {&set.bars.open, &set.bars.high, &set.bars.low, &set.bars.close, &set.bars.volume})
    r.get_array(n_bars, *v);
  if (r.pos() != body.size()) throw make_error("{}: corrupt candle set cache (trailing bytes)", where);
  set.bars.source = source_name;
  return set;
}

CandleSet load_candle_set_file(const fs::path& csv, const std::string& default_symbol,
                               const std::optional<fs::path>& cache_dir, const CandlesCsvOptions& options) {
  const CandlesFile file = read_candles_file(csv, options, true);
  const std::string& bytes = file.bytes;
  const std::string source = csv.string();
  if (file.layout.symbol < 0) {
    // One symbol: the single-series cache, exactly as a one-file config always loaded it.
    Candles c = load_candles_bytes(bytes, source, cache_dir, options);
    CandleSet set;
    set.source = source;
    set.append(default_symbol, source, c);
    set.bars.source = source;
    return set;
  }
  const CandlesSourceId id = candles_source_id(bytes, options);
  const fs::path dir = cache_dir ? *cache_dir : default_candles_cache_dir();
  fs::path cache;
  if (!dir.empty()) {
    cache = candle_set_cache_path(dir, id);
    std::error_code ec;
    if (fs::is_regular_file(cache, ec)) {
      try {
        return read_candle_set_cache(cache, id, source);
      } catch (const Error&) {
        // stale or corrupt: parse again and replace it below
      }
    }
  }
  CandleSet set = parse_candle_set_csv(bytes, source, default_symbol, options);
  set.bars.source = source;
  if (!cache.empty()) {
    try {
      std::error_code ec;
      fs::create_directories(dir, ec);
      if (!ec) write_candle_set_cache(cache, set, id);
    } catch (const Error&) {
      // an unwritable cache directory only costs the next run a parse
    }
  }
  return set;
}

CandleSet merge_candle_sets(std::vector<CandleSet> parts, const std::string& source) {
  if (parts.size() == 1) {
    parts[0].source = source;
    parts[0].bars.source = source;
    return std::move(parts[0]);
  }
  // (name, part, symbol in part), in name order; a name twice is an error naming both files.
  std::vector<std::tuple<std::string, std::size_t, std::size_t>> all;
  for (std::size_t p = 0; p < parts.size(); ++p)
    for (std::size_t s = 0; s < parts[p].n_symbols(); ++s) all.emplace_back(parts[p].symbols[s], p, s);
  std::sort(all.begin(), all.end());
  for (std::size_t i = 1; i < all.size(); ++i)
    if (std::get<0>(all[i]) == std::get<0>(all[i - 1])) {
      const auto& a = all[i - 1];
      const auto& b = all[i];
      throw make_error(
          "symbol {} appears twice: in {} and in {} (file stems and symbol columns must name each symbol "
          "once)",
          std::get<0>(a), parts[std::get<1>(a)].sources[std::get<2>(a)], parts[std::get<1>(b)].sources[std::get<2>(b)]);
    }
  CandleSet set;
  set.source = source;
  set.bars.source = source;
  std::size_t total = 0;
  for (const auto& p : parts) total += p.n_bars();
  set.bars.reserve(total);
  for (const auto& [name, p, s] : all) set.append(name, parts[p].sources[s], parts[p].symbol(s));
  return set;
}

CandleSet select_symbols(const CandleSet& set, const std::vector<std::string>& names, const std::string& key_path) {
  std::map<std::string, std::size_t> index;
  for (std::size_t s = 0; s < set.n_symbols(); ++s) index.emplace(set.symbols[s], s);
  std::vector<std::size_t> keep;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const auto it = index.find(names[i]);
    if (it == index.end()) {
      std::vector<std::string> shown(set.symbols.begin(),
                                     set.symbols.begin() +
                                         static_cast<std::ptrdiff_t>(std::min<std::size_t>(set.n_symbols(), 20)));
      throw make_error("{}[{}]: no symbol \"{}\" in {} (its {} symbols: {}{})", key_path, i, names[i], set.source,
                       set.n_symbols(), fmt::join(shown, ", "), set.n_symbols() > 20 ? ", ..." : "");
    }
    if (std::find(keep.begin(), keep.end(), it->second) != keep.end())
      throw make_error("{}[{}]: symbol \"{}\" is listed twice", key_path, i, names[i]);
    keep.push_back(it->second);
  }
  std::sort(keep.begin(), keep.end());
  CandleSet out;
  out.source = set.source;
  out.bars.source = set.source;
  for (const std::size_t s : keep) out.append(set.symbols[s], set.sources[s], set.symbol(s));
  return out;
}

CandleSet load_candle_set_data(const Json& data, const fs::path& base_dir, bool require_volume) {
  JsonFields f(data, "data");
  f.reject_unknown({"candles", "candles_dir", "symbols", "cache_dir", "time_format"});
  if (f.has("candles") == f.has("candles_dir"))
    throw make_error(
        "data: expected exactly one of \"candles\" (a CSV file or a list of them) and \"candles_dir\" (a "
        "folder of CSV files)");
  std::optional<fs::path> cache_dir;
  if (f.has("cache_dir")) cache_dir = fs::path(f.get_string("cache_dir"));
  CandlesCsvOptions options = candles_csv_options(f);
  options.require_volume = require_volume;
  std::vector<CandleSet> parts;
  std::string source;
  if (f.has("candles")) {
    const Json& v = f.at("candles");
    if (v.is_string()) {
      const fs::path csv = resolve_existing(v.get<std::string>(), base_dir, "data.candles", false);
      parts.push_back(load_candle_set_file(csv, csv.stem().string(), cache_dir, options));
      source = csv.string();
    } else if (v.is_array()) {
      if (v.empty()) throw make_error("data.candles: expected at least one CSV file");
      for (std::size_t i = 0; i < v.size(); ++i) {
        const std::string key = fmt::format("data.candles[{}]", i);
        if (!v[i].is_string()) throw make_error("{}: expected a CSV file path, got {}", key, json_type_name(v[i]));
        const fs::path csv = resolve_existing(v[i].get<std::string>(), base_dir, key, false);
        try {
          parts.push_back(load_candle_set_file(csv, csv.stem().string(), cache_dir, options));
        } catch (const Error& e) {
          throw make_error("{}: {}", key, e.what());
        }
      }
      source = fmt::format("data.candles ({} files)", v.size());
    } else {
      throw make_error("data.candles: expected a CSV file path or a list of them, got {}", json_type_name(v));
    }
  } else {
    const fs::path dir = resolve_existing(f.get_string("candles_dir"), base_dir, "data.candles_dir", true);
    std::vector<fs::path> files;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec))
      if (entry.is_regular_file() && is_csv_name(entry.path())) files.push_back(entry.path());
    if (ec) throw make_error("data.candles_dir: cannot list {}: {}", dir.string(), ec.message());
    if (files.empty()) throw make_error("data.candles_dir: no *.csv file in {}", dir.string());
    std::sort(files.begin(), files.end());
    for (const auto& csv : files) parts.push_back(load_candle_set_file(csv, csv.stem().string(), cache_dir, options));
    source = dir.string();
  }
  CandleSet set;
  try {
    set = merge_candle_sets(std::move(parts), source);
  } catch (const Error& e) {
    throw make_error("{}: {}", f.has("candles") ? "data.candles" : "data.candles_dir", e.what());
  }
  if (f.has("symbols")) {
    const Json& list = f.at("symbols");
    if (!list.is_array() || list.empty())
      throw make_error("data.symbols: expected a non-empty list of symbol names, got {}", json_type_name(list));
    std::vector<std::string> names;
    for (std::size_t i = 0; i < list.size(); ++i) {
      if (!list[i].is_string())
        throw make_error("data.symbols[{}]: expected a symbol name, got {}", i, json_type_name(list[i]));
      names.push_back(list[i].get<std::string>());
    }
    set = select_symbols(set, names, "data.symbols");
  }
  record_candle_loads(set);
  return set;
}

void write_candle_set_dir(const CandleSet& set, const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw make_error("{}: cannot create the folder: {}", dir.string(), ec.message());
  for (std::size_t s = 0; s < set.n_symbols(); ++s) {
    std::string out = "time,open,high,low,close,volume\n";
    const Candles c = set.symbol(s);
    out.reserve(out.size() + c.size() * 80);
    for (std::size_t i = 0; i < c.size(); ++i) append_bar(out, c, i);
    write_text(dir / (set.symbols[s] + ".csv"), out);
  }
}

void write_candle_set_long_csv(const CandleSet& set, const fs::path& file) {
  if (file.has_parent_path()) {
    std::error_code ec;
    fs::create_directories(file.parent_path(), ec);
  }
  std::string out = "symbol,time,open,high,low,close,volume\n";
  out.reserve(out.size() + set.n_bars() * 90);
  for (std::size_t s = 0; s < set.n_symbols(); ++s) {
    const Candles c = set.symbol(s);
    for (std::size_t i = 0; i < c.size(); ++i) {
      out += set.symbols[s];
      out += ',';
      append_bar(out, c, i);
    }
  }
  write_text(file, out);
}

}  // namespace tpeopt::io
