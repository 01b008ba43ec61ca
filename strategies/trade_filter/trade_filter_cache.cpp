#include "strategies/trade_filter/trade_filter_cache.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <sstream>

#include "common/atomic_file.hpp"
#include "common/error.hpp"
#include "io/file_checksum.hpp"

namespace tpeopt::io {

using strategies::TradeFilterData;
namespace fs = std::filesystem;

namespace {

constexpr char kMagic[8] = {'T', 'P', 'F', 'C', 'A', 'C', 'H', 'E'};
constexpr char kEnd[8] = {'T', 'P', 'F', 'C', '_', 'E', 'N', 'D'};
constexpr std::uint32_t kByteOrder = 0x01020304;

using File = std::unique_ptr<std::FILE, int (*)(std::FILE*)>;

class Writer {
 public:
  explicit Writer(AtomicFileWriter& file) : file_(file) {}
  void raw(const void* data, std::size_t n) { file_.write(data, n); }
  template <typename T>
  void value(T v) {
    raw(&v, sizeof v);
  }
  void section(const void* data, std::size_t n) {
    const std::uint64_t size = n;
    value(size);
    raw(data, n);
    sum_.add(data, n);
  }
  template <typename T>
  void section(const std::vector<T>& v) {
    section(v.data(), v.size() * sizeof(T));
  }
  std::uint64_t checksum() const { return sum_.value(); }

 private:
  AtomicFileWriter& file_;
  FastChecksum sum_;
};

class Reader {
 public:
  Reader(std::FILE* f, const fs::path& p, std::uint64_t file_size) : f_(f), path_(p), left_(file_size) {}
  [[noreturn]] void corrupt(const std::string& what) const {
    throw make_error("{}: not a valid trade_filter cache ({}); delete it to prepare the data again", path_.string(),
                     what);
  }
  void raw(void* data, std::size_t n) {
    if (n > left_) corrupt("truncated");
    if (n > 0 && std::fread(data, 1, n, f_) != n) corrupt("truncated or unreadable");
    left_ -= n;
  }
  template <typename T>
  T value() {
    T v;
    raw(&v, sizeof v);
    return v;
  }
  template <typename T>
  void section(std::vector<T>& v, std::uint64_t count, const char* what) {
    const std::uint64_t size = value<std::uint64_t>();
    if (size != count * sizeof(T)) corrupt(std::string("wrong size of section ") + what);
    if (size > left_) corrupt("truncated");
    v.resize(count);
    raw(v.data(), size);
    sum_.add(v.data(), size);
  }
  std::string text_section(const char* what) {
    const std::uint64_t size = value<std::uint64_t>();
    if (size > left_ || size > (std::uint64_t{1} << 32)) corrupt(std::string("wrong size of section ") + what);
    std::string s(size, '\0');
    raw(s.data(), size);
    sum_.add(s.data(), size);
    return s;
  }
  std::uint64_t checksum() const { return sum_.value(); }
  std::uint64_t left() const { return left_; }

 private:
  std::FILE* f_;
  const fs::path& path_;
  std::uint64_t left_;
  FastChecksum sum_;
};

std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

}  // namespace

void write_trade_filter_cache(const TradeFilterData& d, const fs::path& path) {
  check_trade_filter_data(d, path.string());
  std::error_code ec;
  if (path.has_parent_path()) fs::create_directories(path.parent_path(), ec);
  // Written section by section (the data can be large), and renamed into place only whole.
  AtomicFileWriter file(path);
  Writer w(file);
  w.raw(kMagic, 8);
  w.value(kTradeFilterCacheVersion);
  w.value(kByteOrder);
  const std::uint64_t counts[9] = {d.tickers.size(), d.prices.size(),   d.n_trades(),
                                   d.path.size(),    d.up_value.size(), d.down_value.size(),
                                   d.sources.size(), d.dropped_trades,  d.empty_windows};
  w.raw(counts, sizeof counts);
  std::string tickers, sources;
  for (const auto& t : d.tickers) tickers += t + "\n";
  for (const auto& s : d.sources) sources += s.name + "\t" + std::to_string(s.size) + "\t" + s.checksum + "\n";
  w.section(tickers.data(), tickers.size());
  w.section(sources.data(), sources.size());
  w.section(d.prices);
  w.section(d.ticker_offset);
  strategies::for_each_trade_column([&](auto column, const char*) { w.section(d.*column); });
  w.section(d.path_offset);
  w.section(d.path);
  w.section(d.up_offset);
  w.section(d.up_value);
  w.section(d.up_pos);
  w.section(d.down_offset);
  w.section(d.down_value);
  w.section(d.down_pos);
  w.value(w.checksum());
  w.raw(kEnd, 8);
  file.commit(/*durable=*/true);
}

TradeFilterData read_trade_filter_cache(const fs::path& path) {
  std::error_code ec;
  const std::uint64_t file_size = fs::file_size(path, ec);
  if (ec) throw make_error("{}: cannot read the cache: {}", path.string(), ec.message());
  File f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) throw make_error("{}: cannot open: {}", path.string(), std::strerror(errno));
  Reader r(f.get(), path, file_size);
  char magic[8];
  r.raw(magic, 8);
  if (std::memcmp(magic, kMagic, 8) != 0) r.corrupt("bad magic");
  const auto version = r.value<std::uint32_t>();
  if (version != kTradeFilterCacheVersion)
    r.corrupt("version " + std::to_string(version) + ", this build reads version " +
              std::to_string(kTradeFilterCacheVersion));
  if (r.value<std::uint32_t>() != kByteOrder) r.corrupt("written on a machine of another byte order");
  std::uint64_t c[9];
  r.raw(c, sizeof c);
  for (int i = 0; i < 7; ++i)
    if (c[i] > file_size) r.corrupt("impossible counts");
  TradeFilterData d;
  const std::uint64_t n = c[2];
  d.tickers = lines_of(r.text_section("tickers"));
  if (d.tickers.size() != c[0]) r.corrupt("ticker count");
  for (const auto& l : lines_of(r.text_section("sources"))) {
    const auto t1 = l.find('\t'), t2 = l.rfind('\t');
    if (t1 == std::string::npos || t2 == t1) r.corrupt("bad source line");
    d.sources.push_back({l.substr(0, t1), std::strtoull(l.c_str() + t1 + 1, nullptr, 10), l.substr(t2 + 1)});
  }
  if (d.sources.size() != c[6]) r.corrupt("source count");
  d.dropped_trades = c[7];
  d.empty_windows = c[8];
  r.section(d.prices, c[1], "prices");
  r.section(d.ticker_offset, c[0] + 1, "ticker_offset");
  strategies::for_each_trade_column([&](auto column, const char* name) { r.section(d.*column, n, name); });
  r.section(d.path_offset, n + 1, "path_offset");
  r.section(d.path, c[3], "path");
  r.section(d.up_offset, n + 1, "up_offset");
  r.section(d.up_value, c[4], "up_value");
  r.section(d.up_pos, c[4], "up_pos");
  r.section(d.down_offset, n + 1, "down_offset");
  r.section(d.down_value, c[5], "down_value");
  r.section(d.down_pos, c[5], "down_pos");
  const std::uint64_t expected = r.checksum();
  if (r.value<std::uint64_t>() != expected) r.corrupt("checksum mismatch");
  char end[8];
  r.raw(end, 8);
  if (std::memcmp(end, kEnd, 8) != 0) r.corrupt("bad end marker");
  if (r.left() != 0) r.corrupt("trailing bytes");
  check_trade_filter_data(d, path.string());
  return d;
}

}  // namespace tpeopt::io
