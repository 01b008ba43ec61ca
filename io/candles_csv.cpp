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
#include "io/csv_rows.hpp"

namespace tpeopt::io {

namespace {

std::string lower(std::string_view s) {
  std::string r(s);
  for (char& c : r) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return r;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  if (s.size() >= 2 && s.front() == '"' && s.back() == '"') s = s.substr(1, s.size() - 2);
  return s;
}

struct Field {
  std::string_view text;  // trimmed
  std::size_t column;     // 1-based character position of the raw field's start
};

void split_line(std::string_view line, std::vector<Field>& out) {
  out.clear();
  std::size_t start = 0;
  bool quoted = false;
  for (std::size_t k = 0; k <= line.size(); ++k) {
    if (k < line.size() && line[k] == '"') quoted = !quoted;
    if (k == line.size() || (line[k] == ',' && !quoted)) {
      out.push_back({trim(line.substr(start, k - start)), start + 1});
      start = k + 1;
    }
  }
}

bool is_leap(std::int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

// Reads exactly n digits at s[pos..] into v.
bool digits(std::string_view s, std::size_t& pos, std::size_t n, int& v) {
  if (pos + n > s.size()) return false;
  v = 0;
  for (std::size_t k = 0; k < n; ++k) {
    const char c = s[pos + k];
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  pos += n;
  return true;
}

bool parse_iso(std::string_view s, std::int64_t& out) {
  std::size_t p = 0;
  int y, mo, d, h = 0, mi = 0, sec = 0, ms = 0;
  if (!digits(s, p, 4, y) || p >= s.size() || s[p++] != '-' || !digits(s, p, 2, mo) || p >= s.size() ||
      s[p++] != '-' || !digits(s, p, 2, d))
    return false;
  if (mo < 1 || mo > 12) return false;
  static constexpr std::array<int, 12> kDays = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const int month_days = kDays[mo - 1] + (mo == 2 && is_leap(y) ? 1 : 0);
  if (d < 1 || d > month_days) return false;
  int offset_min = 0;
  if (p < s.size()) {
    if (s[p] != ' ' && s[p] != 'T') return false;
    ++p;
    if (!digits(s, p, 2, h) || p >= s.size() || s[p++] != ':' || !digits(s, p, 2, mi)) return false;
    if (p < s.size() && s[p] == ':') {
      ++p;
      if (!digits(s, p, 2, sec)) return false;
      if (p < s.size() && s[p] == '.') {
        ++p;
        int scale = 100, n = 0;
        while (p < s.size() && s[p] >= '0' && s[p] <= '9') {
          ms += (s[p] - '0') * scale;
          scale /= 10;
          ++p;
          ++n;
        }
        if (n == 0) return false;  // sub-millisecond digits are truncated
      }
    }
    if (h > 23 || mi > 59 || sec > 60) return false;
    if (p < s.size()) {
      if (s[p] == 'Z' && p + 1 == s.size()) {
        ++p;
      } else if (s[p] == '+' || s[p] == '-') {
        const int sign = s[p] == '-' ? -1 : 1;
        ++p;
        int oh, om;
        if (!digits(s, p, 2, oh)) return false;
        if (p < s.size() && s[p] == ':') ++p;
        if (!digits(s, p, 2, om)) return false;
        if (oh > 23 || om > 59) return false;
        offset_min = sign * (oh * 60 + om);
      } else {
        return false;
      }
    }
  }
  if (p != s.size()) return false;
  const std::int64_t seconds = days_from_civil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d)) * 86400 +
                               h * 3600 + mi * 60 + sec - static_cast<std::int64_t>(offset_min) * 60;
  out = seconds * 1000 + ms;
  return true;
}

bool parse_double(std::string_view s, double& out) {
  if (s.empty()) return false;
  if (s.front() == '+') s.remove_prefix(1);
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && ptr == s.data() + s.size() && std::isfinite(out);
}

enum Col : int { kTime = 0, kOpen, kHigh, kLow, kClose, kVolume, kNumCols };
constexpr std::array<const char*, kNumCols> kColNames = {"time", "open", "high", "low", "close", "volume"};

}  // namespace

bool parse_time_ms(std::string_view s, std::int64_t& out) {
  if (s.empty()) return false;
  const bool numeric = std::all_of(s.begin(), s.end(), [](char c) { return (c >= '0' && c <= '9') || c == '-'; }) &&
                       s.find('-', 1) == std::string_view::npos;
  if (numeric) {
    std::int64_t v = 0;
    const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || ptr != s.data() + s.size()) return false;
    const std::int64_t kMsThreshold = 100'000'000'000;  // 1e11: seconds below (year 5138), milliseconds above
    if (v > -kMsThreshold && v < kMsThreshold) {
      out = v * 1000;
    } else {
      out = v;
    }
    return true;
  }
  return parse_iso(s, out);
}

namespace {

/// One parsed and checked bar (prices and volume valid; times not yet compared).
struct Row {
  std::size_t line = 0;
  Field time_field;
  std::int64_t time = 0;
  std::array<double, kNumCols> v{};
  std::string_view symbol;  ///< empty without a symbol column
};

/// Parses the header and every row of a candles CSV, checking each bar on its own, and
/// calls on_row(const Row&) in file order. With `read_symbol`, a `symbol` or `ticker`
/// column (any case) is read into Row::symbol (*has_symbol says whether there is one);
/// without it such a column is ignored like any other.
template <typename OnRow>
std::size_t parse_rows(std::string_view text, const std::string& source, bool read_symbol, bool* has_symbol,
                       OnRow&& on_row) {
  std::vector<Field> fields;
  std::size_t pos = 0, line_no = 0;
  std::array<int, kNumCols> index;
  index.fill(-1);
  int symbol_index = -1;
  bool have_header = false;
  std::size_t n_header = 0, n_rows = 0;
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
    if (trim(line).empty()) continue;
    split_line(line, fields);
    if (!have_header) {
      have_header = true;
      n_header = fields.size();
      for (std::size_t k = 0; k < fields.size(); ++k) {
        const std::string name = lower(fields[k].text);
        if (read_symbol && (name == "symbol" || name == "ticker")) {
          if (symbol_index >= 0)
            throw make_error("{}:{}:{}: a second symbol column ({}); keep one of symbol, ticker", source, line_no,
                             fields[k].column, fields[k].text);
          symbol_index = static_cast<int>(k);
          continue;
        }
        int col = -1;
        if (name == "time" || name == "date" || name == "datetime" || name == "timestamp" || name == "open_time" ||
            (k == 0 && name.empty()))
          col = kTime;
        for (int m = kOpen; m < kNumCols; ++m)
          if (name == kColNames[m]) col = m;
        if (col < 0) continue;
        if (index[col] >= 0)
          throw make_error("{}:{}:{}: column {} appears twice in the header", source, line_no, fields[k].column,
                           kColNames[col]);
        index[col] = static_cast<int>(k);
      }
      for (int m = 0; m < kNumCols; ++m)
        if (index[m] < 0)
          throw make_error("{}:{}:1: the header has no {} column (expected {}; names are case-insensitive)", source,
                           line_no, kColNames[m],
                           m == kTime ? "time, date, datetime, timestamp, open_time or an empty first header"
                                      : kColNames[m]);
      if (has_symbol) *has_symbol = symbol_index >= 0;
      continue;
    }
    const int max_index = std::max(*std::max_element(index.begin(), index.end()), symbol_index);
    if (static_cast<int>(fields.size()) <= max_index)
      throw make_error("{}:{}:{}: expected {} fields as in the header, found {}", source, line_no, line.size() + 1,
                       n_header, fields.size());
    Row row;
    row.line = line_no;
    row.time_field = fields[static_cast<std::size_t>(index[kTime])];
    const Field& tf = row.time_field;
    if (!parse_time_ms(tf.text, row.time))
      throw make_error("{}:{}:{}: time: cannot parse \"{}\" (expected YYYY-MM-DD, YYYY-MM-DD HH:MM:SS with an optional "
                       "UTC offset, or Unix seconds or milliseconds)",
                       source, line_no, tf.column, tf.text);
    if (symbol_index >= 0) {
      const Field& sf = fields[static_cast<std::size_t>(symbol_index)];
      if (sf.text.empty()) throw make_error("{}:{}:{}: symbol: empty", source, line_no, sf.column);
      if (sf.text.find('"') != std::string_view::npos)
        throw make_error("{}:{}:{}: symbol: \"{}\" contains a quote", source, line_no, sf.column, sf.text);
      row.symbol = sf.text;
    }
    auto& v = row.v;
    for (int m = kOpen; m < kNumCols; ++m) {
      const Field& f = fields[static_cast<std::size_t>(index[m])];
      if (!parse_double(f.text, v[m]))
        throw make_error("{}:{}:{}: {}: cannot parse \"{}\" as a finite number", source, line_no, f.column,
                         kColNames[m], f.text);
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
  if (!have_header) throw make_error("{}:1:1: empty file (expected a header and bars)", source);
  if (n_rows == 0) throw make_error("{}:{}:1: no bars after the header", source, line_no + 1);
  return line_no;
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

Candles parse_candles_csv(std::string_view text, const std::string& source) {
  Candles c;
  c.source = source;
  c.reserve(std::count(text.begin(), text.end(), '\n') + 1);
  parse_rows(text, source, false, nullptr, [&](const Row& r) {
    if (!c.time_ms.empty() && r.time <= c.time_ms.back())
      throw make_error("{}:{}:{}: time: \"{}\" is not after the previous bar's time (times must increase)", source,
                       r.line, r.time_field.column, r.time_field.text);
    push_bar(c, r);
  });
  return c;
}

CandleSet parse_candle_set_csv(std::string_view text, const std::string& source, const std::string& default_symbol) {
  bool has_symbol = false;
  std::vector<std::string> names;
  std::vector<Candles> per;
  std::vector<std::size_t> last_line;
  std::unordered_map<std::string, std::size_t> index;
  parse_rows(text, source, true, &has_symbol, [&](const Row& r) {
    const std::string name = has_symbol ? std::string(r.symbol) : default_symbol;
    auto [it, inserted] = index.try_emplace(name, names.size());
    if (inserted) {
      names.push_back(name);
      per.emplace_back();
      last_line.push_back(0);
    }
    Candles& c = per[it->second];
    if (!c.time_ms.empty() && r.time <= c.time_ms.back()) {
      if (has_symbol)
        throw make_error("{}:{}:{}: time: \"{}\" is not after the previous bar of symbol {} (line {}; times must "
                         "increase within a symbol)",
                         source, r.line, r.time_field.column, r.time_field.text, name, last_line[it->second]);
      throw make_error("{}:{}:{}: time: \"{}\" is not after the previous bar's time (times must increase)", source,
                       r.line, r.time_field.column, r.time_field.text);
    }
    last_line[it->second] = r.line;
    push_bar(c, r);
  });
  std::vector<std::size_t> order(names.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return names[a] < names[b]; });
  CandleSet set;
  set.source = source;
  for (const std::size_t i : order)
    set.append(names[i], has_symbol ? source + "[" + names[i] + "]" : source, per[i]);
  return set;
}

bool csv_has_symbol_column(std::string_view text) {
  // The header is the first non-blank line.
  std::size_t pos = 0;
  std::vector<Field> fields;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    if (line.size() >= 3 && static_cast<unsigned char>(line[0]) == 0xEF &&
        static_cast<unsigned char>(line[1]) == 0xBB && static_cast<unsigned char>(line[2]) == 0xBF)
      line.remove_prefix(3);
    if (trim(line).empty()) continue;
    split_line(line, fields);
    for (const Field& f : fields) {
      const std::string name = lower(f.text);
      if (name == "symbol" || name == "ticker") return true;
    }
    return false;
  }
  return false;
}

std::string read_file_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw make_error("{}: cannot open for reading", path.string());
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw make_error("{}: read error", path.string());
  return std::move(ss).str();
}

Candles read_candles_csv(const std::filesystem::path& path) {
  return parse_candles_csv(read_file_bytes(path), path.string());
}

}  // namespace tpeopt::io
