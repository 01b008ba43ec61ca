#pragma once
// How a candles CSV is laid out (docs/user-guide.md, "Candle CSV files"): detected from its
// first lines, so that the files people have load as they are.
//
//  - Delimiter: `,`, `;`, tab or `|`, whichever splits the first line into the most fields
//    (and the second line into as many). With a delimiter other than `,` a number may use a
//    decimal comma (`1,0712`).
//  - Header: the first line, unless it already reads as a bar (a time, then four numbers);
//    names are matched ignoring case and everything but letters and digits (`<DATE>`,
//    `Open Time` and `open_time` all work). The time is one column (time, date, datetime,
//    timestamp, open_time, gmt_time, local_time, unix, or an empty first name) or a date
//    column and a time-of-day column (`date`, `time`), else the first column when its first
//    value reads as a time; then open, high, low, close, and volume (vol, tick_volume,
//    tickvol) unless the strategy does without it.
//  - Without a header: `time,open,high,low,close[,volume,...]` (Binance klines: 12 columns,
//    open time in Unix milliseconds or microseconds) or `date,time,open,high,low,close
//    [,volume,...]` (MetaTrader exports).
//  - Times (in UTC unless they carry an offset): `YYYY-MM-DD`, `YYYY.MM.DD`, `YYYY/MM/DD`,
//    `MM/DD/YYYY` (US: the month first), `DD.MM.YYYY`, each optionally followed by
//    ` HH:MM[:SS[.fff]]` (or `T`), ISO offsets (`Z`, `+HH:MM`); integer Unix times in
//    seconds, milliseconds, microseconds or nanoseconds (told apart by magnitude), or
//    seconds with a fraction. Anything else: `data.time_format`, a strptime-like pattern
//    (parse_time_with_format).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tpeopt::io {

/// What a config's `data` may say about its CSV files.
struct CandlesCsvOptions {
  /// `data.time_format`: a pattern for the time column (with separate date and time
  /// columns: for "DATE TIME", joined by one space); "" = detect.
  std::string time_format;
  /// False for strategies that do not read volume: a file without a volume column then
  /// loads with volume 0.
  bool require_volume = true;
  /// The options that change what a file parses to, as text for cache keys ("" = defaults).
  std::string cache_key() const;
};

/// One field of a line: its text (trimmed, quotes removed) and 1-based character column.
struct CsvField {
  std::string_view text;
  std::size_t column = 1;
};

/// Splits a line (without its end) at `delimiter` outside double quotes.
void split_csv_line(std::string_view line, char delimiter, std::vector<CsvField>& out);

/// The layout of a candles CSV.
struct CandlesCsvLayout {
  char delimiter = ',';
  bool header = true;
  std::size_t header_line = 0;     ///< 1-based line of the header; 0 without one
  std::vector<std::string> names;  ///< the header's fields as written (empty without one)
  std::size_t n_columns = 0;       ///< fields of the first line
  int time = -1;                   ///< the time column (with time_of_day: the date column)
  int time_of_day = -1;            ///< a separate time-of-day column, or -1
  int open = -1, high = -1, low = -1, close = -1;
  int volume = -1;  ///< -1: none (allowed when !require_volume)
  int symbol = -1;  ///< a symbol/ticker column, or -1 (read only when asked)
  /// "delimiter ';' (decimal commas allowed), header on line 1: Date, Time, Open, High, Low,
  /// Close, Volume; time from Date + Time"
  std::string describe() const;
  /// The largest column index the rows must have.
  int max_index() const;
};

/// Detects the layout from the first lines of a file (`head` may end in the middle of a
/// line: only complete lines are read, and the first two suffice). With `read_symbol`, a
/// symbol or ticker column is found too. Throws Error "source:line:1: ..." saying what was
/// detected and what is expected when the file cannot be read as candles.
CandlesCsvLayout detect_candles_layout(std::string_view head, const std::string& source,
                                       const CandlesCsvOptions& options, bool read_symbol);

/// A number as written in a candles CSV: digits with an optional sign, point and exponent,
/// or (`decimal_comma`) a comma for the point; finite only.
bool parse_candle_number(std::string_view s, bool decimal_comma, double& out);

/// A time field in the detected formats above, as Unix milliseconds (UTC); false if none fits.
bool parse_time_ms(std::string_view field, std::int64_t& out);

/// A time field by a strptime-like pattern: %Y (4-digit year), %y (2 digits: 69-99 ->
/// 19xx, else 20xx), %m, %d, %H, %I (1-12 with %p), %M, %S (1 or 2 digits), %f (fraction of
/// a second, 1-9 digits), %p (AM/PM), %b (month name, Jan or January), %z (Z or +HH[:]MM),
/// %s (Unix seconds), %% (a percent sign); any other character matches itself.
bool parse_time_with_format(std::string_view field, std::string_view format, std::int64_t& out);

/// Throws Error naming `key` when `format` has a directive parse_time_with_format lacks.
void check_time_format(const std::string& format, const std::string& key);

/// Why a time field did not parse, when a likely cause is known (a day-first date: "set
/// data.time_format ..."); "" otherwise.
std::string time_parse_hint(std::string_view field);

}  // namespace tpeopt::io
