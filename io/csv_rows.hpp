#pragma once
// A minimal CSV line scanner for trade logs and market data: comma-separated fields
// without embedded commas (surrounding double quotes and spaces are stripped), \n or
// \r\n line ends, blank lines skipped. Knows each field's 1-based line and column so
// that errors can name file:line:column.
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace tpeopt::io {

class CsvRows {
 public:
  /// `text` must outlive the scanner; `source` names it in errors.
  CsvRows(std::string_view text, std::string source);

  /// Advances to the next non-blank line; false at the end of the text.
  bool next();
  std::size_t line() const { return line_; }
  std::size_t size() const { return fields_.size(); }
  std::string_view field(std::size_t i) const { return fields_[i]; }
  /// 1-based character column where field i starts.
  std::size_t column(std::size_t i) const { return columns_[i]; }
  const std::string& source() const { return source_; }

  /// "source:line:column: what" for field i (column 1 when i is past the last field).
  [[noreturn]] void fail(std::size_t i, const std::string& what) const;

  /// On the header line: the index of each named column (exact, case-sensitive match
  /// after trimming); throws "source:line:1: missing column "X"" for the first missing one.
  std::vector<std::size_t> find_columns(std::initializer_list<const char*> names) const;

 private:
  std::string_view text_;
  std::string source_;
  std::size_t pos_ = 0;
  std::size_t line_ = 0;
  std::size_t next_line_ = 1;
  std::vector<std::string_view> fields_;
  std::vector<std::size_t> columns_;
};

/// A finite decimal number (optional sign, digits, '.', exponent); false otherwise.
bool parse_csv_double(std::string_view s, double& out);

/// "HH:MM:SS" (hour of 1 or 2 digits, 0-23; minutes and seconds 0-59) as seconds of the day.
bool parse_hms(std::string_view s, std::int64_t& seconds);

/// "MM/DD/YYYY" or "YYYY-MM-DD" (a valid calendar date) as days since 1970-01-01.
bool parse_date(std::string_view s, std::int64_t& days);

/// Days since 1970-01-01 of a civil date (proleptic Gregorian); no validation.
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d);
/// The inverse: year, month (1-12), day (1-31).
void civil_from_days(std::int64_t days, std::int64_t& y, unsigned& m, unsigned& d);
/// true when (y, m, d) is a real date.
bool valid_civil(std::int64_t y, unsigned m, unsigned d);

}  // namespace tpeopt::io
