#pragma once
// Reads OHLCV candles from CSV (docs/user-guide.md, "Candle CSV files"), in the layouts
// io/candles_format.hpp detects (delimiters, decimal commas, headers or none, a date and a
// time column, the usual time formats and Unix times, or `data.time_format`). Other columns
// are ignored. Fields may be wrapped in double quotes; lines may end in \r\n; blank lines
// are skipped.
//
// Errors (tpeopt::Error) name `file:line:column` (1-based; the column is the character
// position where the field starts) and the column's name, for: unparsable or non-finite
// values, non-increasing times, high < max(open, close), low > min(open, close),
// negative volume, non-positive prices, a missing column, a row with too few fields,
// and a file without bars. Errors about the layout say what was read (delimiter, columns)
// and what is expected.
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "common/candles.hpp"
#include "io/candles_format.hpp"

namespace tpeopt::io {

/// Parses CSV text; `source` names it in errors (usually the file path). A `symbol` or
/// `ticker` column is ignored here (see parse_candle_set_csv).
Candles parse_candles_csv(std::string_view text, const std::string& source, const CandlesCsvOptions& options = {});

/// Parses CSV text that may hold several symbols (docs/strategies.md, "Candle data sets of many symbols"): with a
/// `symbol` or `ticker` column (any case), each row belongs to the symbol it names (rows of symbols may
/// be interleaved or grouped; times must increase within each symbol, and an error names the
/// line of that symbol's previous bar); without one, every row belongs to `default_symbol`.
/// Symbols come out in name order (byte order). Empty symbol names are errors.
CandleSet parse_candle_set_csv(std::string_view text, const std::string& source, const std::string& default_symbol,
                               const CandlesCsvOptions& options = {});

/// A candles CSV read for parsing: its layout detected from the file's first
/// kCandlesHeadBytes before the rest is read (a file that is not candles is refused at
/// once, whatever its size), and the memory its load takes checked against what the host
/// has available, then all its bytes.
struct CandlesFile {
  std::string bytes;
  CandlesCsvLayout layout;
  std::uint64_t estimated_bars = 0;  ///< from the file's size and its first lines
};
inline constexpr std::size_t kCandlesHeadBytes = 1 << 16;
/// Host memory a load takes per bar at its peak, besides the file's bytes: the parsed bars
/// (48 bytes), the cache written from them, and the strategy's series (an estimate: a
/// 2,000,000-bar file of 207 MB peaked at 397 MB, 95 bytes per bar; docs/user-guide.md,
/// "Memory").
inline constexpr std::uint64_t kCandlesBytesPerBar = 48 * 3;
/// Throws Error naming the file when it is a directory, cannot be read, is not laid out as
/// candles (io/candles_format.hpp), or needs more memory than is available.
CandlesFile read_candles_file(const std::filesystem::path& path, const CandlesCsvOptions& options, bool read_symbol);

/// Bars in a file of `file_size` bytes whose first bytes are `head`: its lines at the mean
/// length of the head's complete lines (exact when the head is the whole file).
std::uint64_t estimate_bar_count(std::string_view head, std::uint64_t file_size);

/// Reads and parses a CSV file (no cache; see io/candles_cache.hpp for the cached load).
Candles read_candles_csv(const std::filesystem::path& path, const CandlesCsvOptions& options = {});

/// Reads a whole file into a string; throws Error naming the path when it cannot (a
/// directory says so).
std::string read_file_bytes(const std::filesystem::path& path);

}  // namespace tpeopt::io
