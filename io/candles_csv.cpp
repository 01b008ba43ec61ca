#include "io/candles_csv.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <fstream>
#include <optional>
#include <sstream>
#include <unordered_map>
#include <vector>

#include "common/error.hpp"
#include "common/host_memory.hpp"
#include "io/csv_rows.hpp"

namespace tpeopt::io {

namespace {

enum Col : int { kTime = 0, kOpen, kHigh, kLow, kClose, kVolume, kNumCols };
constexpr std::array<const char*, kNumCols> kColNames = {"time", "open", "high", "low", "close", "volume"};

/// One parsed and checked bar (prices and volume valid; times not yet compared).
struct Row {
  std::size_t line = 0;
  CsvField time_field;
  std::string_view time_text;  ///< as read: the time field, or "DATE TIME" from two columns (valid for one row)
  std::int64_t time = 0;
  std::array<double, kNumCols> v{};
  std::string_view symbol;  ///< empty without a symbol column
};

/// Parses every row of a candles CSV under its detected layout (io/candles_format.hpp),
/// checking each bar on its own, and calls on_row(const Row&) in file order. With
/// `read_symbol`, a `symbol` or `ticker` column (any case) is read into Row::symbol;
/// without it such a column is ignored like any other. Returns the layout.
template <typename OnRow>
CandlesCsvLayout parse_rows(std::string_view text, const std::string& source, const CandlesCsvOptions& options,
                            bool read_symbol, OnRow&& on_row) {
  const CandlesCsvLayout L =
      detect_candles_layout(text.substr(0, std::min(text.size(), kCandlesHeadBytes)), source, options, read_symbol);
  const bool decimal_comma = L.delimiter != ',';
  std::array<int, kNumCols> index = {L.time, L.open, L.high, L.low, L.close, L.volume};
  const int max_index = L.max_index();
  std::vector<CsvField> fields;
  std::string joined;  // "DATE TIME" of two columns, reused from row to row
  std::size_t pos = 0, line_no = 0, n_rows = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line_no == 1 && line.size() >= 3 && static_cast<unsigned char>(line[0]) == 0xEF &&
        static_cast<unsigned char>(line[1]) == 0xBB && static_cast<unsigned char>(line[2]) == 0xBF)
      line.remove_prefix(3);  // UTF-8 byte-order mark
    if (line_no == L.header_line) continue;
    bool blank = true;
    for (char c : line)
      if (c != ' ' && c != '\t' && c != '\r') blank = false;
    if (blank) continue;
    split_csv_line(line, L.delimiter, fields);
    if (static_cast<int>(fields.size()) <= max_index)
      throw make_error("{}:{}:{}: expected {} fields as in the {}, found {} (read: {})", source, line_no,
                       line.size() + 1, L.n_columns, L.header ? "header" : "first line", fields.size(), L.describe());
    Row row;
    row.line = line_no;
    row.time_field = fields[static_cast<std::size_t>(L.time)];
    row.time_text = row.time_field.text;
    if (L.time_of_day >= 0) {
      joined.assign(row.time_field.text);
      joined += ' ';
      joined += fields[static_cast<std::size_t>(L.time_of_day)].text;
      row.time_text = joined;
    }
    const bool time_ok = options.time_format.empty()
                             ? parse_time_ms(row.time_text, row.time)
                             : parse_time_with_format(row.time_text, options.time_format, row.time);
    if (!time_ok)
      throw make_error("{}:{}:{}: time: cannot parse \"{}\" ({}){}", source, line_no, row.time_field.column,
                       row.time_text,
                       options.time_format.empty()
                           ? "expected a date or date-time as listed in docs/user-guide.md \"Candle CSV files\", or "
                             "set data.time_format"
                           : "data.time_format is \"" + options.time_format + "\"",
                       time_parse_hint(row.time_field.text));
    if (L.symbol >= 0) {
      const CsvField& sf = fields[static_cast<std::size_t>(L.symbol)];
      if (sf.text.empty()) throw make_error("{}:{}:{}: symbol: empty", source, line_no, sf.column);
      if (sf.text.find('"') != std::string_view::npos)
        throw make_error("{}:{}:{}: symbol: \"{}\" contains a quote", source, line_no, sf.column, sf.text);
      row.symbol = sf.text;
    }
    auto& v = row.v;
    for (int m = kOpen; m < kNumCols; ++m) {
      if (index[m] < 0) {  // no volume column (a strategy that does not read it)
        v[m] = 0.0;
        continue;
      }
      const CsvField& f = fields[static_cast<std::size_t>(index[m])];
      if (!parse_candle_number(f.text, decimal_comma, v[m]))
        throw make_error("{}:{}:{}: {}: cannot parse \"{}\" as a finite number{} (read: {})", source, line_no, f.column,
                         kColNames[m], f.text,
                         decimal_comma ? " (a point or one decimal comma, no thousands separators)" : "", L.describe());
    }
    auto where = [&](int m) { return fields[static_cast<std::size_t>(index[m])].column; };
    for (int m = kOpen; m <= kClose; ++m)
      if (!(v[m] > 0.0))
        throw make_error("{}:{}:{}: {}: price {} is not positive", source, line_no, where(m), kColNames[m], v[m]);
    if (v[kHigh] < std::max(v[kOpen], v[kClose]))
      throw make_error("{}:{}:{}: high: {} is below max(open, close) = {}", source, line_no, where(kHigh), v[kHigh],
                       std::max(v[kOpen], v[kClose]));
    if (v[kLow] > std::min(v[kOpen], v[kClose]))
      throw make_error("{}:{}:{}: low: {} is above min(open, close) = {}", source, line_no, where(kLow), v[kLow],
                       std::min(v[kOpen], v[kClose]));
    if (v[kVolume] < 0.0)
      throw make_error("{}:{}:{}: volume: {} is negative", source, line_no, where(kVolume), v[kVolume]);
    on_row(row);
    ++n_rows;
  }
  if (n_rows == 0)
    throw make_error("{}:{}:1: no bars{} (read: {})", source, line_no + 1, L.header ? " after the header" : "",
                     L.describe());
  return L;
}

void push_bar(Candles& c, const Row& r) {
  c.time_ms.push_back(r.time);
  c.open.push_back(r.v[kOpen]);
  c.high.push_back(r.v[kHigh]);
  c.low.push_back(r.v[kLow]);
  c.close.push_back(r.v[kClose]);
  c.volume.push_back(r.v[kVolume]);
}

}  // namespace

Candles parse_candles_csv(std::string_view text, const std::string& source, const CandlesCsvOptions& options) {
  Candles c;
  c.source = source;
  c.reserve(std::count(text.begin(), text.end(), '\n') + 1);
  parse_rows(text, source, options, false, [&](const Row& r) {
    if (!c.time_ms.empty() && r.time <= c.time_ms.back())
      throw make_error("{}:{}:{}: time: \"{}\" is not after the previous bar's time (times must increase)", source,
                       r.line, r.time_field.column, r.time_text);
    push_bar(c, r);
  });
  return c;
}

CandleSet parse_candle_set_csv(std::string_view text, const std::string& source, const std::string& default_symbol,
                               const CandlesCsvOptions& options) {
  std::vector<std::string> names;
  std::vector<Candles> per;
  std::vector<std::size_t> last_line;
  std::unordered_map<std::string, std::size_t> index;
  const CandlesCsvLayout layout = parse_rows(text, source, options, true, [&](const Row& r) {
    const std::string name = r.symbol.empty() ? default_symbol : std::string(r.symbol);
    auto [it, inserted] = index.try_emplace(name, names.size());
    if (inserted) {
      names.push_back(name);
      per.emplace_back();
      last_line.push_back(0);
    }
    Candles& c = per[it->second];
    if (!c.time_ms.empty() && r.time <= c.time_ms.back()) {
      if (!r.symbol.empty())
        throw make_error(
            "{}:{}:{}: time: \"{}\" is not after the previous bar of symbol {} (line {}; times must "
            "increase within a symbol)",
            source, r.line, r.time_field.column, r.time_text, name, last_line[it->second]);
      throw make_error("{}:{}:{}: time: \"{}\" is not after the previous bar's time (times must increase)", source,
                       r.line, r.time_field.column, r.time_text);
    }
    last_line[it->second] = r.line;
    push_bar(c, r);
  });
  const bool has_symbol = layout.symbol >= 0;
  std::vector<std::size_t> order(names.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return names[a] < names[b]; });
  CandleSet set;
  set.source = source;
  for (const std::size_t i : order) set.append(names[i], has_symbol ? source + "[" + names[i] + "]" : source, per[i]);
  return set;
}

std::string read_file_bytes(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw make_error("{}: is a directory, not a file", path.string());
  std::ifstream in(path, std::ios::binary);
  if (!in) throw make_error("{}: cannot open for reading", path.string());
  // One allocation of the file's size (a growing string would take up to three).
  const auto size = std::filesystem::file_size(path, ec);
  std::string bytes;
  if (!ec) {
    bytes.resize(size);
    in.read(bytes.data(), static_cast<std::streamsize>(size));
    bytes.resize(static_cast<std::size_t>(in.gcount()));
    if (in.bad()) throw make_error("{}: read error", path.string());
    std::ostringstream rest;  // a file that grew since its size was taken
    rest << in.rdbuf();
    bytes += std::move(rest).str();
    return bytes;
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw make_error("{}: read error", path.string());
  return std::move(ss).str();
}

CandlesFile read_candles_file(const std::filesystem::path& path, const CandlesCsvOptions& options, bool read_symbol) {
  const std::string source = path.string();
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw make_error("{}: is a directory, not a CSV file", source);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw make_error("{}: cannot open for reading", source);
  std::string head(kCandlesHeadBytes, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(in.gcount()));
  if (in.bad()) throw make_error("{}: read error", source);
  in.close();
  CandlesFile file;
  file.layout = detect_candles_layout(head, source, options, read_symbol);  // before the body is read
  const std::uint64_t size = std::filesystem::file_size(path, ec);
  if (!ec) {
    file.estimated_bars = estimate_bar_count(head, size);
    const std::uint64_t need = size + file.estimated_bars * kCandlesBytesPerBar;
    const auto available = available_host_memory();
    if (available && need > *available)
      throw make_error(
          "{}: {} of CSV (about {} bars) needs about {} of memory to load ({} per bar after the file's "
          "bytes), but {} is available ({}); load a part of it, or free memory",
          source, format_bytes(size), file.estimated_bars, format_bytes(need), kCandlesBytesPerBar,
          format_bytes(*available), available_host_memory_source());
  }
  file.bytes = read_file_bytes(path);
  return file;
}

std::uint64_t estimate_bar_count(std::string_view head, std::uint64_t file_size) {
  // Lines in the head (the last one may be cut), and their mean length.
  std::uint64_t lines = 0;
  std::size_t last_end = 0;
  for (std::size_t k = 0; k < head.size(); ++k)
    if (head[k] == '\n') {
      ++lines;
      last_end = k + 1;
    }
  if (lines == 0) return file_size > 0 ? 1 : 0;
  if (head.size() == file_size) return lines + (last_end < head.size() ? 1 : 0);
  return file_size * lines / last_end;
}

Candles read_candles_csv(const std::filesystem::path& path, const CandlesCsvOptions& options) {
  return parse_candles_csv(read_candles_file(path, options, false).bytes, path.string(), options);
}

}  // namespace tpeopt::io
