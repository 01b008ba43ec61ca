#include "io/csv_rows.hpp"

#include <charconv>
#include <cmath>

#include "common/error.hpp"

namespace tpeopt::io {

namespace {

std::string_view trim(std::string_view s, std::size_t& lead) {
  lead = 0;
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1), ++lead;
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  if (s.size() >= 2 && s.front() == '"' && s.back() == '"') s = s.substr(1, s.size() - 2), ++lead;
  return s;
}

bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

int to_int(std::string_view s) {
  int v = 0;
  for (char c : s) v = v * 10 + (c - '0');
  return v;
}

}  // namespace

CsvRows::CsvRows(std::string_view text, std::string source) : text_(text), source_(std::move(source)) {
  if (text_.size() >= 3 && text_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = 3;  // UTF-8 byte order mark
}

bool CsvRows::next() {
  while (pos_ < text_.size()) {
    std::size_t end = text_.find('\n', pos_);
    if (end == std::string_view::npos) end = text_.size();
    std::string_view l = text_.substr(pos_, end - pos_);
    const std::size_t start = pos_;
    pos_ = end + 1;
    line_ = next_line_++;
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    bool blank = true;
    for (char c : l)
      if (c != ' ' && c != '\t' && c != ',') blank = false;
    if (blank) continue;
    fields_.clear();
    columns_.clear();
    std::size_t f = 0;
    while (true) {
      std::size_t comma = l.find(',', f);
      if (comma == std::string_view::npos) comma = l.size();
      std::size_t lead = 0;
      fields_.push_back(trim(l.substr(f, comma - f), lead));
      columns_.push_back(f + lead + 1);
      if (comma == l.size()) break;
      f = comma + 1;
    }
    (void)start;
    return true;
  }
  return false;
}

void CsvRows::fail(std::size_t i, const std::string& what) const {
  const std::size_t col = i < columns_.size() ? columns_[i] : 1;
  throw Error(fmt::format("{}:{}:{}: {}", source_, line_, col, what));
}

std::vector<std::size_t> CsvRows::find_columns(std::initializer_list<const char*> names) const {
  std::vector<std::size_t> out;
  for (const char* name : names) {
    std::size_t found = fields_.size();
    for (std::size_t i = 0; i < fields_.size(); ++i)
      if (fields_[i] == name) {
        found = i;
        break;
      }
    if (found == fields_.size())
      throw Error(fmt::format("{}:{}:1: missing column \"{}\" in the header", source_, line_, name));
    out.push_back(found);
  }
  return out;
}

bool parse_csv_double(std::string_view s, double& out) {
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  if (s.empty()) return false;
  for (char c : s)  // digits, sign, point and exponent only: no "nan", "inf" or hex
    if (!((c >= '0' && c <= '9') || c == '-' || c == '.' || c == 'e' || c == 'E' || c == '+')) return false;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), out);
  return r.ec == std::errc() && r.ptr == s.data() + s.size() && std::isfinite(out);
}

bool parse_hms(std::string_view s, std::int64_t& seconds) {
  const std::size_t c1 = s.find(':');
  if (c1 == std::string_view::npos || c1 == 0 || c1 > 2) return false;
  const std::string_view h = s.substr(0, c1), rest = s.substr(c1 + 1);
  if (rest.size() != 5 || rest[2] != ':') return false;
  const std::string_view m = rest.substr(0, 2), sec = rest.substr(3, 2);
  if (!all_digits(h) || !all_digits(m) || !all_digits(sec)) return false;
  const int hh = to_int(h), mm = to_int(m), ss = to_int(sec);
  if (hh > 23 || mm > 59 || ss > 59) return false;
  seconds = hh * 3600 + mm * 60 + ss;
  return true;
}

std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

void civil_from_days(std::int64_t z, std::int64_t& y, unsigned& m, unsigned& d) {
  z += 719468;
  const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  d = doy - (153 * mp + 2) / 5 + 1;
  m = mp < 10 ? mp + 3 : mp - 9;
  y = static_cast<std::int64_t>(yoe) + era * 400 + (m <= 2);
}

bool valid_civil(std::int64_t y, unsigned m, unsigned d) {
  if (y < 1900 || y > 2200 || m < 1 || m > 12 || d < 1) return false;
  static const unsigned days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return d <= days[m - 1] + (m == 2 && leap ? 1u : 0u);
}

bool parse_date(std::string_view s, std::int64_t& days) {
  std::string_view y, m, d;
  if (s.size() == 10 && s[2] == '/' && s[5] == '/') {
    m = s.substr(0, 2), d = s.substr(3, 2), y = s.substr(6, 4);
  } else if (s.size() == 10 && s[4] == '-' && s[7] == '-') {
    y = s.substr(0, 4), m = s.substr(5, 2), d = s.substr(8, 2);
  } else {
    return false;
  }
  if (!all_digits(y) || !all_digits(m) || !all_digits(d)) return false;
  const int yy = to_int(y), mm = to_int(m), dd = to_int(d);
  if (!valid_civil(yy, static_cast<unsigned>(mm), static_cast<unsigned>(dd))) return false;
  days = days_from_civil(yy, static_cast<unsigned>(mm), static_cast<unsigned>(dd));
  return true;
}

}  // namespace tpeopt::io
