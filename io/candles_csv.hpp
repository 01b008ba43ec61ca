#pragma once
// Reads OHLCV candles from CSV (DESIGN.md section 7).
//
// Header: one time column named `time`, `date`, `datetime`, `timestamp` or `open_time`
// (any case), or an empty first header (as in the backtesting.py files); and `open`,
// `high`, `low`, `close`, `volume` in any case and order. Other columns are ignored.
// Fields may be wrapped in double quotes; lines may end in \r\n; blank lines are skipped.
//
// Times: ISO dates `YYYY-MM-DD` (midnight UTC), date-times `YYYY-MM-DD[ T]HH:MM[:SS[.fff]]`
// with an optional UTC offset (`Z`, `+HH:MM`, `-HH:MM`, `+HHMM`), all converted to UTC;
// or an integer Unix time: seconds when |value| < 1e11, else milliseconds.
//
// Errors (tpeopt::Error) name `file:line:column` (1-based; the column is the character
// position where the field starts) and the column's name, for: unparsable or non-finite
// values, non-increasing times, high < max(open, close), low > min(open, close),
// negative volume, non-positive prices, a missing column, a row with too few fields,
// and a file without bars.
#include <filesystem>
#include <string>
#include <string_view>

#include "common/candles.hpp"

namespace tpeopt::io {

/// Parses CSV text; `source` names it in errors (usually the file path). A `symbol` or
/// `ticker` column is ignored here (see parse_candle_set_csv).
Candles parse_candles_csv(std::string_view text, const std::string& source);

/// Parses CSV text that may hold several symbols (issue [multi-asset]): with a `symbol` or
/// `ticker` column (any case), each row belongs to the symbol it names (rows of symbols may
/// be interleaved or grouped; times must increase within each symbol, and an error names the
/// line of that symbol's previous bar); without one, every row belongs to `default_symbol`.
/// Symbols come out in name order (byte order). Empty symbol names are errors.
CandleSet parse_candle_set_csv(std::string_view text, const std::string& source, const std::string& default_symbol);

/// True when the header (first non-blank line) has a `symbol` or `ticker` column.
bool csv_has_symbol_column(std::string_view text);

/// Reads and parses a CSV file (no cache; see io/candles_cache.hpp for the cached load).
Candles read_candles_csv(const std::filesystem::path& path);

/// Reads a whole file into a string; throws Error naming the path when it cannot.
std::string read_file_bytes(const std::filesystem::path& path);

/// Parses one time field as described above into Unix milliseconds; false if unparsable.
bool parse_time_ms(std::string_view field, std::int64_t& out);

}  // namespace tpeopt::io
