#include "io/candles_csv.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <fstream>
#include <optional>
#include <sstream>
#include <vector>

#include "common/error.hpp"

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

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2 ? 1 : 0;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
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

Candles parse_candles_csv(std::string_view text, const std::string& source) {
  Candles c;
  c.source = source;
  std::vector<Field> fields;
  std::size_t pos = 0, line_no = 0;
  std::array<int, kNumCols> index;
  index.fill(-1);
  bool have_header = false;
  std::size_t n_header = 0;
  c.reserve(std::count(text.begin(), text.end(), '\n') + 1);
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
      continue;
    }
    const int max_index = *std::max_element(index.begin(), index.end());
    if (static_cast<int>(fields.size()) <= max_index)
      throw make_error("{}:{}:{}: expected {} fields as in the header, found {}", source, line_no, line.size() + 1,
                       n_header, fields.size());
    std::int64_t t = 0;
    const Field& tf = fields[static_cast<std::size_t>(index[kTime])];
    if (!parse_time_ms(tf.text, t))
      throw make_error("{}:{}:{}: time: cannot parse \"{}\" (expected YYYY-MM-DD, YYYY-MM-DD HH:MM:SS with an optional "
                       "UTC offset, or Unix seconds or milliseconds)",
                       source, line_no, tf.column, tf.text);
    if (!c.time_ms.empty() && t <= c.time_ms.back())
      throw make_error("{}:{}:{}: time: \"{}\" is not after the previous bar's time (times must increase)", source,
                       line_no, tf.column, tf.text);
    std::array<double, kNumCols> v{};
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
    c.time_ms.push_back(t);
    c.open.push_back(v[kOpen]);
    c.high.push_back(v[kHigh]);
    c.low.push_back(v[kLow]);
    c.close.push_back(v[kClose]);
    c.volume.push_back(v[kVolume]);
  }
  if (!have_header) throw make_error("{}:1:1: empty file (expected a header and bars)", source);
  if (c.size() == 0) throw make_error("{}:{}:1: no bars after the header", source, line_no + 1);
  return c;
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
