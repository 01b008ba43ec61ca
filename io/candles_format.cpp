#include "io/candles_format.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include "common/error.hpp"
#include "io/csv_rows.hpp"

namespace tpeopt::io {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  if (s.size() >= 2 && s.front() == '"' && s.back() == '"') s = s.substr(1, s.size() - 2);
  return s;
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

char lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

/// A header name reduced to lower-case letters and digits: "<DATE>", "Open Time", "open_time".
std::string normalized(std::string_view s) {
  std::string r;
  for (char c : s)
    if (std::isalnum(static_cast<unsigned char>(c))) r += lower(c);
  return r;
}

bool is_leap(std::int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

bool valid_date(std::int64_t y, int m, int d) {
  static constexpr std::array<int, 12> kDays = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m >= 1 && m <= 12 && d >= 1 && d <= kDays[m - 1] + (m == 2 && is_leap(y) ? 1 : 0);
}

/// Reads 1..max_n digits at s[p..] (at least min_n) into v.
bool read_digits(std::string_view s, std::size_t& p, std::size_t min_n, std::size_t max_n, int& v) {
  std::size_t n = 0;
  v = 0;
  while (p + n < s.size() && n < max_n && is_digit(s[p + n])) v = v * 10 + (s[p + n++] - '0');
  if (n < min_n) return false;
  p += n;
  return true;
}

bool expect(std::string_view s, std::size_t& p, char c) {
  if (p >= s.size() || s[p] != c) return false;
  ++p;
  return true;
}

/// A date at s[p..]: YYYY-MM-DD, YYYY.MM.DD, YYYY/MM/DD, MM/DD/YYYY or DD.MM.YYYY.
bool read_date(std::string_view s, std::size_t& p, std::int64_t& days) {
  int a = 0, b = 0, c = 0;
  const std::size_t start = p;
  if (!read_digits(s, p, 1, 4, a)) return false;
  int y, m, d;
  if (p - start == 4) {  // year first
    if (p >= s.size() || (s[p] != '-' && s[p] != '.' && s[p] != '/')) return false;
    const char sep = s[p++];
    if (!read_digits(s, p, 1, 2, b) || !expect(s, p, sep) || !read_digits(s, p, 1, 2, c)) return false;
    y = a, m = b, d = c;
  } else {
    if (p >= s.size() || (s[p] != '/' && s[p] != '.')) return false;
    const char sep = s[p++];
    if (!read_digits(s, p, 1, 2, b) || !expect(s, p, sep)) return false;
    const std::size_t y0 = p;
    if (!read_digits(s, p, 4, 4, c) || p - y0 != 4) return false;
    y = c;
    if (sep == '/') m = a, d = b;  // US: the month first
    else d = a, m = b;             // DD.MM.YYYY
  }
  if (!valid_date(y, m, d)) return false;
  days = days_from_civil(y, static_cast<unsigned>(m), static_cast<unsigned>(d));
  return true;
}

/// HH:MM[:SS[.fff...]] at s[p..], as milliseconds of the day.
bool read_time_of_day(std::string_view s, std::size_t& p, std::int64_t& ms) {
  int h, mi, sec = 0, frac = 0;
  if (!read_digits(s, p, 1, 2, h) || !expect(s, p, ':') || !read_digits(s, p, 2, 2, mi)) return false;
  if (p < s.size() && s[p] == ':') {
    ++p;
    if (!read_digits(s, p, 2, 2, sec)) return false;
    if (p < s.size() && (s[p] == '.' || s[p] == ',')) {
      ++p;
      int scale = 100, n = 0;
      while (p < s.size() && is_digit(s[p])) {
        frac += (s[p] - '0') * scale;  // sub-millisecond digits are truncated
        scale /= 10;
        ++p;
        ++n;
      }
      if (n == 0) return false;
    }
  }
  if (h > 23 || mi > 59 || sec > 60) return false;
  ms = (static_cast<std::int64_t>(h) * 3600 + mi * 60 + sec) * 1000 + frac;
  return true;
}

/// Z, +HH:MM, -HH:MM, +HHMM or +HH at s[p..], in minutes.
bool read_offset(std::string_view s, std::size_t& p, int& minutes) {
  if (p < s.size() && s[p] == 'Z') {
    ++p;
    minutes = 0;
    return true;
  }
  if (p >= s.size() || (s[p] != '+' && s[p] != '-')) return false;
  const int sign = s[p++] == '-' ? -1 : 1;
  int oh = 0, om = 0;
  if (!read_digits(s, p, 2, 2, oh)) return false;
  if (p < s.size() && s[p] == ':') ++p;
  if (p < s.size() && !read_digits(s, p, 2, 2, om)) return false;
  if (oh > 23 || om > 59) return false;
  minutes = sign * (oh * 60 + om);
  return true;
}

bool parse_epoch(std::string_view s, std::int64_t& out) {
  const bool negative = !s.empty() && s.front() == '-';
  const std::string_view digits = negative ? s.substr(1) : s;
  const std::size_t point = digits.find('.');
  const std::string_view whole = digits.substr(0, point);
  if (whole.empty() || !std::all_of(whole.begin(), whole.end(), is_digit)) return false;
  std::int64_t v = 0;
  const auto [ptr, ec] = std::from_chars(whole.data(), whole.data() + whole.size(), v);
  if (ec != std::errc() || ptr != whole.data() + whole.size()) return false;
  if (point != std::string_view::npos) {  // seconds with a fraction
    const std::string_view frac = digits.substr(point + 1);
    if (frac.empty() || !std::all_of(frac.begin(), frac.end(), is_digit) || v >= 100'000'000'000) return false;
    int ms = 0, scale = 100;
    for (char c : frac) {
      ms += (c - '0') * scale;
      scale /= 10;
    }
    out = (negative ? -1 : 1) * (v * 1000 + ms);
    return true;
  }
  // Told apart by magnitude: seconds below 1e11 (the year 5138), then milliseconds,
  // microseconds (Binance's klines since 2025) and nanoseconds.
  if (v < 100'000'000'000) out = v * 1000;
  else if (v < 100'000'000'000'000) out = v;
  else if (v < 100'000'000'000'000'000) out = v / 1000;
  else out = v / 1'000'000;
  if (negative) out = -out;
  return true;
}

constexpr std::array<const char*, 12> kMonths = {"jan", "feb", "mar", "apr", "may", "jun",
                                                 "jul", "aug", "sep", "oct", "nov", "dec"};
constexpr std::array<const char*, 12> kMonthNames = {"january",   "february", "march",    "april",
                                                     "may",       "june",     "july",     "august",
                                                     "september", "october",  "november", "december"};

bool starts_with_ci(std::string_view s, std::size_t p, std::string_view word) {
  if (p + word.size() > s.size()) return false;
  for (std::size_t k = 0; k < word.size(); ++k)
    if (lower(s[p + k]) != word[k]) return false;
  return true;
}

bool is_time_of_day(std::string_view s) {
  std::size_t p = 0;
  std::int64_t ms = 0;
  return read_time_of_day(s, p, ms) && p == s.size();
}

bool is_number_like(std::string_view s, bool decimal_comma) {
  double v;
  return parse_candle_number(s, decimal_comma, v);
}

/// The time of a row's fields under a layout's time columns and the options.
bool row_time(const std::vector<CsvField>& fields, int time, int time_of_day, const CandlesCsvOptions& o,
              std::int64_t& out) {
  if (time < 0 || static_cast<std::size_t>(time) >= fields.size()) return false;
  std::string joined;
  std::string_view text = fields[static_cast<std::size_t>(time)].text;
  if (time_of_day >= 0) {
    if (static_cast<std::size_t>(time_of_day) >= fields.size()) return false;
    joined = std::string(text) + " " + std::string(fields[static_cast<std::size_t>(time_of_day)].text);
    text = joined;
  }
  return o.time_format.empty() ? parse_time_ms(text, out) : parse_time_with_format(text, o.time_format, out);
}

/// True when a line's fields read as a bar: a time (in one column, or a date and a time of
/// day), then at least four numbers.
bool reads_as_bar(const std::vector<CsvField>& fields, bool decimal_comma, const CandlesCsvOptions& o,
                  bool& date_and_time) {
  std::int64_t t = 0;
  date_and_time = fields.size() >= 6 && is_time_of_day(fields[1].text) && row_time(fields, 0, 1, o, t);
  const std::size_t first_number = date_and_time ? 2 : 1;
  if (!date_and_time && !row_time(fields, 0, -1, o, t)) return false;
  if (fields.size() < first_number + 4) return false;
  for (std::size_t k = first_number; k < first_number + 4; ++k)
    if (!is_number_like(fields[k].text, decimal_comma)) return false;
  return true;
}

/// Complete lines of `head` that are not blank, with their 1-based numbers (at most `max`).
std::vector<std::pair<std::size_t, std::string_view>> first_lines(std::string_view head, std::size_t max) {
  std::vector<std::pair<std::size_t, std::string_view>> out;
  if (head.size() >= 3 && head.substr(0, 3) == "\xEF\xBB\xBF") head.remove_prefix(3);  // UTF-8 byte-order mark
  std::size_t pos = 0, line_no = 0;
  while (pos < head.size() && out.size() < max) {
    std::size_t end = head.find('\n', pos);
    const bool complete = end != std::string_view::npos;
    if (!complete) end = head.size();
    std::string_view line = head.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (trim(line).empty()) continue;
    // A last line cut off by the end of `head` is only used when it is all there is.
    if (!complete && !out.empty()) break;
    out.emplace_back(line_no, line);
  }
  return out;
}

std::size_t count_outside_quotes(std::string_view line, char c) {
  std::size_t n = 0;
  bool quoted = false;
  for (char x : line) {
    if (x == '"') quoted = !quoted;
    else if (x == c && !quoted) ++n;
  }
  return n;
}

std::string delimiter_name(char d) {
  switch (d) {
    case '\t':
      return "tab";
    case ';':
      return "';'";
    case '|':
      return "'|'";
    default:
      return "','";
  }
}

constexpr const char* kExpected =
    "expected: a header naming a time column (time, date, datetime, timestamp, open_time, ...; or a date and a time "
    "column) and open, high, low, close and volume (any case; volume optional for strategies that do not read it), or "
    "no header "
    "and the columns time, open, high, low, close[, volume, ...] (e.g. Binance klines) or date, time, open, high, "
    "low, close[, volume, ...] (e.g. MetaTrader); times as docs/user-guide.md \"Candle CSV files\" lists them, or "
    "data.time_format";

}  // namespace

std::string CandlesCsvOptions::cache_key() const {
  // require_volume is not part of it: it changes what is accepted, not what a file parses to
  // (a file without volume is refused before its cache is looked up when volume is required).
  return time_format.empty() ? std::string() : "time_format=" + time_format + ";";
}

void split_csv_line(std::string_view line, char delimiter, std::vector<CsvField>& out) {
  out.clear();
  std::size_t start = 0;
  bool quoted = false;
  for (std::size_t k = 0; k <= line.size(); ++k) {
    if (k < line.size() && line[k] == '"') quoted = !quoted;
    if (k == line.size() || (line[k] == delimiter && !quoted)) {
      out.push_back({trim(line.substr(start, k - start)), start + 1});
      start = k + 1;
    }
  }
}

std::string CandlesCsvLayout::describe() const {
  std::string out = "delimiter " + delimiter_name(delimiter);
  if (delimiter != ',') out += " (decimal commas allowed)";
  auto name = [&](int i) {
    if (i < 0) return std::string("none");
    if (header)
      return names[static_cast<std::size_t>(i)].empty() ? fmt::format("column {} (no name)", i + 1)
                                                        : names[static_cast<std::size_t>(i)];
    return fmt::format("column {}", i + 1);
  };
  if (header) {
    out += fmt::format(", header on line {}: ", header_line);
    for (std::size_t k = 0; k < names.size(); ++k) out += (k ? ", " : "") + (names[k].empty() ? "(empty)" : names[k]);
  } else {
    out += fmt::format(", no header, {} columns", n_columns);
  }
  if (time >= 0) {
    out += "; time from " + name(time) + (time_of_day >= 0 ? " + " + name(time_of_day) : "");
    if (open >= 0)
      out += fmt::format("; open {}, high {}, low {}, close {}, volume {}", name(open), name(high), name(low),
                         name(close), name(volume));
  }
  return out;
}

int CandlesCsvLayout::max_index() const {
  return std::max({time, time_of_day, open, high, low, close, volume, symbol});
}

bool parse_candle_number(std::string_view s, bool decimal_comma, double& out) {
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  if (s.empty()) return false;
  std::string buffer;
  if (decimal_comma) {
    const std::size_t comma = s.find(',');
    if (comma != std::string_view::npos) {
      if (s.find(',', comma + 1) != std::string_view::npos || s.find('.') != std::string_view::npos) return false;
      buffer.assign(s);
      buffer[comma] = '.';
      s = buffer;
    }
  }
  for (char c : s)  // digits, sign, point and exponent only: no "nan", "inf" or hex
    if (!(is_digit(c) || c == '-' || c == '.' || c == 'e' || c == 'E' || c == '+')) return false;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && ptr == s.data() + s.size() && std::isfinite(out);
}

bool parse_time_ms(std::string_view s, std::int64_t& out) {
  if (s.empty()) return false;
  // Digits with an optional sign and at most one point: a Unix time (a dotted date has two).
  if (std::all_of(s.begin(), s.end(), [](char c) { return is_digit(c) || c == '-' || c == '.'; }) &&
      s.find('-', 1) == std::string_view::npos && s.find('.') == s.rfind('.'))
    return parse_epoch(s, out);
  std::size_t p = 0;
  std::int64_t days = 0, ms = 0;
  if (!read_date(s, p, days)) return false;
  int offset_min = 0;
  if (p < s.size()) {
    if (s[p] != ' ' && s[p] != 'T') return false;
    ++p;
    if (!read_time_of_day(s, p, ms)) return false;
    if (p < s.size() && !read_offset(s, p, offset_min)) return false;
  }
  if (p != s.size()) return false;
  out = days * 86'400'000 + ms - static_cast<std::int64_t>(offset_min) * 60'000;
  return true;
}

bool parse_time_with_format(std::string_view s, std::string_view f, std::int64_t& out) {
  int y = 1970, m = 1, d = 1, h = 0, mi = 0, sec = 0, ms = 0, offset_min = 0;
  int pm = -1;  // -1: no %p, 0: AM, 1: PM
  bool twelve_hour = false, have_epoch = false;
  std::int64_t epoch = 0;
  std::size_t p = 0;
  for (std::size_t k = 0; k < f.size(); ++k) {
    if (f[k] != '%') {
      if (p >= s.size() || s[p] != f[k]) return false;
      ++p;
      continue;
    }
    if (++k >= f.size()) return false;
    int v = 0;
    switch (f[k]) {
      case 'Y':
        if (!read_digits(s, p, 4, 4, y)) return false;
        break;
      case 'y':
        if (!read_digits(s, p, 2, 2, v)) return false;
        y = v < 69 ? 2000 + v : 1900 + v;
        break;
      case 'm':
        if (!read_digits(s, p, 1, 2, m)) return false;
        break;
      case 'd':
        if (!read_digits(s, p, 1, 2, d)) return false;
        break;
      case 'H':
        if (!read_digits(s, p, 1, 2, h) || h > 23) return false;
        break;
      case 'I':
        if (!read_digits(s, p, 1, 2, h) || h < 1 || h > 12) return false;
        twelve_hour = true;
        break;
      case 'M':
        if (!read_digits(s, p, 1, 2, mi) || mi > 59) return false;
        break;
      case 'S':
        if (!read_digits(s, p, 1, 2, sec) || sec > 60) return false;
        break;
      case 'f': {
        int scale = 100, n = 0;
        ms = 0;
        while (p < s.size() && is_digit(s[p]) && n < 9) {
          ms += (s[p] - '0') * scale;
          scale /= 10;
          ++p;
          ++n;
        }
        if (n == 0) return false;
        break;
      }
      case 'p':
        if (starts_with_ci(s, p, "am")) pm = 0;
        else if (starts_with_ci(s, p, "pm")) pm = 1;
        else return false;
        p += 2;
        break;
      case 'b': {
        int found = -1;
        for (int i = 0; i < 12 && found < 0; ++i)
          if (starts_with_ci(s, p, kMonthNames[static_cast<std::size_t>(i)])) {
            found = i;
            p += std::string_view(kMonthNames[static_cast<std::size_t>(i)]).size();
          }
        for (int i = 0; i < 12 && found < 0; ++i)
          if (starts_with_ci(s, p, kMonths[static_cast<std::size_t>(i)])) {
            found = i;
            p += 3;
          }
        if (found < 0) return false;
        m = found + 1;
        break;
      }
      case 'z':
        if (!read_offset(s, p, offset_min)) return false;
        break;
      case 's': {
        const std::size_t b = p;
        if (p < s.size() && s[p] == '-') ++p;
        while (p < s.size() && is_digit(s[p])) ++p;
        const auto [ptr, ec] = std::from_chars(s.data() + b, s.data() + p, epoch);
        if (ec != std::errc() || ptr != s.data() + p) return false;
        have_epoch = true;
        break;
      }
      case '%':
        if (!expect(s, p, '%')) return false;
        break;
      default:
        return false;
    }
  }
  if (p != s.size()) return false;
  if (have_epoch) {
    out = epoch * 1000 + ms;
    return true;
  }
  if (twelve_hour) {
    if (pm < 0) return false;
    h = h % 12 + (pm == 1 ? 12 : 0);
  }
  if (!valid_date(y, m, d)) return false;
  out = (days_from_civil(y, static_cast<unsigned>(m), static_cast<unsigned>(d)) * 86400 +
         static_cast<std::int64_t>(h) * 3600 + mi * 60 + sec - static_cast<std::int64_t>(offset_min) * 60) *
            1000 +
        ms;
  return true;
}

void check_time_format(const std::string& format, const std::string& key) {
  if (format.empty()) throw make_error("{}: expected a pattern such as \"%d/%m/%Y %H:%M\", got an empty string", key);
  bool directive = false;
  for (std::size_t k = 0; k < format.size(); ++k) {
    if (format[k] != '%') continue;
    if (k + 1 >= format.size()) throw make_error("{}: \"{}\" ends with a lone %", key, format);
    const char c = format[++k];
    if (std::string_view("YymdHIMSfpbzs%").find(c) == std::string_view::npos)
      throw make_error("{}: unknown directive %{} in \"{}\" (supported: %Y %y %m %d %H %I %M %S %f %p %b %z %s %%)",
                       key, c, format);
    directive = directive || c != '%';
  }
  if (!directive) throw make_error("{}: \"{}\" has no directive such as %Y or %s", key, format);
}

std::string time_parse_hint(std::string_view s) {
  // A slash date whose first number cannot be a month but whose second can: day first.
  std::size_t p = 0;
  int a = 0, b = 0;
  if (read_digits(s, p, 1, 2, a) && expect(s, p, '/') && read_digits(s, p, 1, 2, b) && a > 12 && b <= 12)
    return "; slash dates are read month first (MM/DD/YYYY): for day-first dates set data.time_format, e.g. "
           "\"%d/%m/%Y\" or \"%d/%m/%Y %H:%M\"";
  return {};
}

CandlesCsvLayout detect_candles_layout(std::string_view head, const std::string& source,
                                       const CandlesCsvOptions& options, bool read_symbol) {
  const auto lines = first_lines(head, 2);
  if (lines.empty()) throw make_error("{}:1:1: empty file (expected a header and bars)", source);
  CandlesCsvLayout L;
  // The delimiter: the candidate that splits the first line into the most fields, the
  // second line (when there is one) into as many.
  std::size_t best = 0;
  for (const char d : {';', '\t', '|', ','}) {  // a tie goes to the first: "1,5;2,5" is decimal commas
    const std::size_t n = count_outside_quotes(lines[0].second, d);
    if (n == 0 || n <= best) continue;
    if (lines.size() > 1 && count_outside_quotes(lines[1].second, d) != n) continue;
    best = n;
    L.delimiter = d;
  }
  const bool decimal_comma = L.delimiter != ',';
  std::vector<CsvField> first, second;
  split_csv_line(lines[0].second, L.delimiter, first);
  if (lines.size() > 1) split_csv_line(lines[1].second, L.delimiter, second);
  L.n_columns = first.size();
  auto fail = [&](std::size_t line, const std::string& what, std::size_t column = 1) -> Error {
    return make_error("{}:{}:{}: {}; read: {}; {}", source, line, column, what, L.describe(), kExpected);
  };

  bool date_and_time = false;
  if (reads_as_bar(first, decimal_comma, options, date_and_time)) {
    L.header = false;
    const int base = date_and_time ? 2 : 1;
    L.time = 0;
    L.time_of_day = date_and_time ? 1 : -1;
    L.open = base, L.high = base + 1, L.low = base + 2, L.close = base + 3;
    if (static_cast<int>(first.size()) > base + 4) L.volume = base + 4;
    if (options.require_volume && L.volume < 0)
      throw fail(lines[0].first, "no volume column (a headerless file has time, open, high, low, close, volume)");
    return L;
  }

  L.header_line = lines[0].first;
  for (const auto& f : first) L.names.emplace_back(f.text);
  int date_col = -1, tod_col = -1, stamp_col = -1, vol = -1, vol_weak = -1;
  for (std::size_t k = 0; k < first.size(); ++k) {
    const std::string n = normalized(first[k].text);
    const int i = static_cast<int>(k);
    auto once = [&](int& slot, const char* what) {
      if (slot >= 0)
        throw fail(L.header_line,
                   fmt::format("column {} appears twice in the header (columns {} and {})", what, slot + 1, i + 1),
                   first[k].column);
      slot = i;
    };
    if (read_symbol && (n == "symbol" || n == "ticker")) {
      if (L.symbol >= 0)
        throw fail(L.header_line, fmt::format("a second symbol column ({}); keep one of symbol, ticker", first[k].text),
                   first[k].column);
      L.symbol = i;
    } else if (n == "date" || n == "day") {
      once(date_col, "date");
    } else if (n == "time") {
      once(tod_col, "time");
    } else if (n == "datetime" || n == "timestamp" || n == "opentime" || n == "gmttime" || n == "localtime" ||
               n == "unix" || n == "unixtime" || n == "epoch" || (k == 0 && n.empty())) {
      if (stamp_col < 0) stamp_col = i;
    } else if (n == "open" || n == "openprice") {
      once(L.open, "open");
    } else if (n == "high" || n == "highprice") {
      once(L.high, "high");
    } else if (n == "low" || n == "lowprice") {
      once(L.low, "low");
    } else if (n == "close" || n == "closeprice") {
      once(L.close, "close");
    } else if (n == "volume" || n == "vol") {
      if (vol < 0) vol = i;
    } else if (n == "tickvol" || n == "tickvolume") {
      if (vol_weak < 0) vol_weak = i;
    }
  }
  L.volume = vol >= 0 ? vol : vol_weak;
  // The time: a timestamp column; else a date and a time-of-day column; else either alone.
  if (stamp_col >= 0) {
    L.time = stamp_col;
  } else if (date_col >= 0 && tod_col >= 0) {
    const bool split = second.size() > static_cast<std::size_t>(std::max(date_col, tod_col)) &&
                       is_time_of_day(second[static_cast<std::size_t>(tod_col)].text);
    if (split || second.empty()) {
      L.time = date_col;
      L.time_of_day = tod_col;
    } else {
      L.time = tod_col;  // a full time in the "time" column: the date column is redundant
    }
  } else {
    L.time = date_col >= 0 ? date_col : tod_col;
  }
  // No column named as a time: the first one, when its first value reads as a time (under
  // data.time_format when given) and its name is no price's.
  std::int64_t t0 = 0;
  if (L.time < 0 && !second.empty() && L.open != 0 && L.high != 0 && L.low != 0 && L.close != 0 && L.volume != 0 &&
      L.symbol != 0 && row_time(second, 0, -1, options, t0))
    L.time = 0;
  if (L.time < 0) throw fail(L.header_line, "the header has no time column");
  for (const auto& [slot, what] : {std::pair{L.open, "open"}, {L.high, "high"}, {L.low, "low"}, {L.close, "close"}})
    if (slot < 0) throw fail(L.header_line, fmt::format("the header has no {} column", what));
  if (options.require_volume && L.volume < 0)
    throw fail(L.header_line, "the header has no volume column (this strategy reads volume)");
  // The first bar must read under this layout: a misread delimiter or time shows here.
  if (!second.empty()) {
    std::int64_t t = 0;
    if (static_cast<int>(second.size()) > L.max_index() && !row_time(second, L.time, L.time_of_day, options, t)) {
      const CsvField& f = second[static_cast<std::size_t>(L.time)];
      throw make_error("{}:{}:{}: time: cannot parse \"{}{}\" ({}){}; read: {}", source, lines[1].first, f.column,
                       f.text,
                       L.time_of_day >= 0 ? " " + std::string(second[static_cast<std::size_t>(L.time_of_day)].text)
                                          : std::string(),
                       options.time_format.empty() ? "expected a date or date-time as listed in docs/user-guide.md "
                                                     "\"Candle CSV files\", or set data.time_format"
                                                   : "data.time_format is \"" + options.time_format + "\"",
                       time_parse_hint(f.text), L.describe());
    }
  }
  return L;
}

}  // namespace tpeopt::io
