#include "strategies/trade_filter/trade_filter_cache.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <sstream>

#include "common/atomic_file.hpp"
#include "common/binary_format.hpp"
#include "common/error.hpp"
#include "io/file_checksum.hpp"

namespace tpeopt::io {

using strategies::TradeFilterData;
namespace fs = std::filesystem;

namespace {

constexpr binary::Magic kMagic = {'T', 'P', 'F', 'C', 'A', 'C', 'H', 'E'};
constexpr binary::Magic kEnd = {'T', 'P', 'F', 'C', '_', 'E', 'N', 'D'};
constexpr std::uint32_t kByteOrder = 0x01020304;

using File = std::unique_ptr<std::FILE, int (*)(std::FILE*)>;

/// A binary::Writer sink: the cache file being written.
class FileSink {
 public:
  explicit FileSink(AtomicFileWriter& file) : file_(&file) {}
  void write(const void* data, std::size_t n) { file_->write(data, n); }

 private:
  AtomicFileWriter* file_;
};

/// Writes the fields and the sections, summing the sections' bytes.
class Writer {
 public:
  explicit Writer(AtomicFileWriter& file) : w_(FileSink(file)) {}
  void raw(const void* data, std::size_t n) { w_.put_bytes(data, n); }
  void magic(const binary::Magic& m) { w_.put_magic(m); }
  template <binary::Field T>
  void value(T v) {
    w_.put(v);
  }
  void section(const void* data, std::size_t n) {
    w_.put(static_cast<std::uint64_t>(n));
    w_.put_bytes(data, n);
    sum_.add(data, n);
  }
  template <typename T>
  void section(const std::vector<T>& v) {
    section(v.data(), v.size() * sizeof(T));
  }
  std::uint64_t checksum() const { return sum_.value(); }

 private:
  binary::Writer<FileSink> w_;
  FastChecksum sum_;
};

/// A binary::Reader source: the cache file, `left` bytes of it still unread.
class FileSource {
 public:
  FileSource(std::FILE* f, std::uint64_t left) : f_(f), left_(left) {}
  bool read(void* out, std::size_t n) {
    if (n > left_) return false;
    if (n > 0 && std::fread(out, 1, n, f_) != n) {
      unreadable_ = true;
      return false;
    }
    left_ -= n;
    return true;
  }
  std::uint64_t remaining() const { return left_; }
  bool unreadable() const { return unreadable_; }

 private:
  std::FILE* f_;
  std::uint64_t left_;
  bool unreadable_ = false;
};

/// Reads the fields and the sections, summing the sections' bytes; refuses the file, naming
/// what is wrong, at the first field that cannot be read.
class Reader {
 public:
  Reader(std::FILE* f, const fs::path& p, std::uint64_t file_size) : r_(FileSource(f, file_size)), path_(p) {}
  [[noreturn]] void corrupt(const std::string& what) const {
    throw make_error("{}: not a valid trade_filter cache ({}); delete it to prepare the data again", path_.string(),
                     what);
  }
  void raw(void* data, std::size_t n) {
    if (!r_.get_bytes(data, n)) read_failed();
  }
  bool magic(const binary::Magic& m) {
    binary::Magic got{};
    raw(got.data(), got.size());
    return got == m;
  }
  template <binary::Field T>
  T value() {
    T v{};
    if (!r_.get(v)) read_failed();
    return v;
  }
  template <typename T>
  void section(std::vector<T>& v, std::uint64_t count, const char* what) {
    const std::uint64_t size = value<std::uint64_t>();
    if (size != count * sizeof(T)) corrupt(std::string("wrong size of section ") + what);
    if (size > left()) corrupt("truncated");
    if (!r_.get_array(v, count)) read_failed();
    sum_.add(v.data(), size);
  }
  std::string text_section(const char* what) {
    const std::uint64_t size = value<std::uint64_t>();
    if (size > left() || size > (std::uint64_t{1} << 32)) corrupt(std::string("wrong size of section ") + what);
    std::string s;
    if (!r_.get_string(s, size)) read_failed();
    sum_.add(s.data(), size);
    return s;
  }
  std::uint64_t checksum() const { return sum_.value(); }
  std::uint64_t left() const { return r_.source().remaining(); }

 private:
  [[noreturn]] void read_failed() const { corrupt(r_.source().unreadable() ? "truncated or unreadable" : "truncated"); }
  binary::Reader<FileSource> r_;
  const fs::path& path_;
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
  w.magic(kMagic);
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
  w.magic(kEnd);
  file.commit(/*durable=*/true);
}

TradeFilterData read_trade_filter_cache(const fs::path& path) {
  std::error_code ec;
  const std::uint64_t file_size = fs::file_size(path, ec);
  if (ec) throw make_error("{}: cannot read the cache: {}", path.string(), ec.message());
  File f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) throw make_error("{}: cannot open: {}", path.string(), std::strerror(errno));
  Reader r(f.get(), path, file_size);
  if (!r.magic(kMagic)) r.corrupt("bad magic");
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
  if (!r.magic(kEnd)) r.corrupt("bad end marker");
  if (r.left() != 0) r.corrupt("trailing bytes");
  check_trade_filter_data(d, path.string());
  return d;
}

}  // namespace tpeopt::io
