#include "support/future_data.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/atomic_file.hpp"
#include "common/candles.hpp"
#include "io/candle_set.hpp"
#include "io/candles_csv.hpp"
#include "io/csv_rows.hpp"
#include "support/test_rng.hpp"

namespace tpeopt::testing {

namespace fs = std::filesystem;

namespace {

// The `data` keys of each kind of source, and the keys that name no source.
const std::vector<std::string> kCandleSources = {"candles", "candles_dir"};
const std::vector<std::string> kTradeLogSources = {"trades", "market_dir"};
const std::vector<std::string> kOtherKeys = {"symbols",  "cache_dir", "time_format", "tickers",
                                             "generate", "holdout",   "walk_forward"};

bool has_any(const io::Json& data, const std::vector<std::string>& keys) {
  return std::any_of(keys.begin(), keys.end(), [&](const std::string& k) { return data.contains(k); });
}

bool listed(const std::vector<std::string>& keys, const std::string& key) {
  return std::find(keys.begin(), keys.end(), key) != keys.end();
}

fs::path resolve(const std::string& path, const fs::path& base_dir) {
  const fs::path p(path);
  return p.is_absolute() ? p : base_dir / p;
}

/// A standard normal draw (Box-Muller over the test generator: the same on every platform).
double normal(Rng& rng) {
  const double u = 1.0 - rng.u01();  // (0, 1]: log(u) is finite
  return std::sqrt(-2.0 * std::log(u)) * std::cos(2.0 * std::numbers::pi * rng.u01());
}

/// One symbol's bars after t replaced (future_data.hpp says how); bars before t untouched.
void change_bars_after(Candles& c, std::int64_t t_ms, Rng& rng) {
  double typical = 0.0;  // mean |log return| of the close: the data's own scale of a move
  for (std::size_t i = 1; i < c.size(); ++i) typical += std::abs(std::log(c.close[i] / c.close[i - 1]));
  typical = c.size() > 1 ? typical / static_cast<double>(c.size() - 1) : 0.0;
  if (!(typical > 0.0)) typical = 1e-3;
  const double sigma = 3.0 * typical;
  const std::vector<double> volumes = c.volume;
  bool first = true;  // the first bar changed: its close jumps (future_data.hpp)
  for (std::size_t i = 0; i < c.size(); ++i) {
    if (c.time_ms[i] < t_ms) continue;
    double open = c.open[i];  // the bar stamped t opens at t: its open is not after t
    if (c.time_ms[i] > t_ms) {
      const double before = i > 0 ? c.close[i - 1] : c.open[i];
      open = before * std::exp((i > 0 ? 0.5 : 3.0) * sigma * normal(rng));
    }
    const double move = first ? (rng.u01() < 0.5 ? -0.5 : 0.5) : sigma * normal(rng);
    const double close = open * std::exp(move);
    first = false;
    // exp of a non-negative number is >= 1, so high >= max(open, close) and low <= min(...)
    // hold after rounding too: the bars stay valid.
    c.open[i] = open;
    c.close[i] = close;
    c.high[i] = std::max(open, close) * std::exp(0.5 * sigma * std::abs(normal(rng)));
    c.low[i] = std::min(open, close) * std::exp(-0.5 * sigma * std::abs(normal(rng)));
    c.volume[i] = volumes[rng.below(volumes.size())] * std::exp(4.0 * rng.u01() - 2.0);
  }
}

io::Json candles_changed_after(const io::Json& data, const fs::path& base_dir, std::int64_t t_ms, std::uint64_t seed,
                               const fs::path& dir) {
  io::Json read = io::Json::object();  // the data object io/candle_set.hpp reads
  for (const char* k : {"candles", "candles_dir", "symbols", "cache_dir", "time_format"})
    if (data.contains(k)) read[k] = data[k];
  const CandleSet set = io::load_candle_set_data(read, base_dir, /*require_volume=*/false);
  CandleSet changed;
  changed.source = dir.string();
  for (std::size_t s = 0; s < set.n_symbols(); ++s) {
    Candles c = set.symbol(s);
    Rng rng(seed * 1000003 + s);
    change_bars_after(c, t_ms, rng);
    changed.append(set.symbols[s], c.source, c);
  }
  io::write_candle_set_dir(changed, dir);  // shortest round-trip numbers: bars before t read back bit for bit
  io::Json out = data;
  for (const char* k : {"candles", "candles_dir", "time_format"}) out.erase(k);
  // One file stays one file: a strategy that reads one series only takes `candles`.
  if (data.contains("candles") && data["candles"].is_string() && changed.n_symbols() == 1)
    out["candles"] = (dir / (changed.symbols[0] + ".csv")).string();
  else out["candles_dir"] = dir.string();
  out["cache_dir"] = (dir / "cache").string();  // beside the copy: removed with it
  return out;
}

io::Json trade_log_changed_after(const io::Json& data, const fs::path& base_dir, std::int64_t t_ms, std::uint64_t seed,
                                 const fs::path& dir) {
  if (!data.contains("trades")) throw std::runtime_error("data: a trade log's data without \"trades\"");
  const fs::path log = resolve(data["trades"].get<std::string>(), base_dir);
  const std::string text = io::read_file_bytes(log);
  io::CsvRows rows(text, log.string());
  if (!rows.next()) throw std::runtime_error(log.string() + ": empty trade log");
  std::vector<std::string> header;
  for (std::size_t i = 0; i < rows.size(); ++i) header.emplace_back(rows.field(i));
  const auto cols =
      rows.find_columns({"Date", "Entry Time", "Entry Price", "Entry Volatility Percent", "Entry Volatility Ratio",
                         "Entry Adx28", "Entry Adx14", "Entry Adx7", "Trade Percent Change"});
  const std::size_t date = cols[0], entry_time = cols[1], entry_price = cols[2];
  const std::vector<std::size_t> drawn(cols.begin() + 3, cols.end());  // metrics and the logged outcome
  std::vector<std::vector<std::string>> lines;
  std::vector<std::size_t> after;  // lines entered after t
  while (rows.next()) {
    std::vector<std::string> f;
    for (std::size_t i = 0; i < rows.size(); ++i) f.emplace_back(rows.field(i));
    std::int64_t day = 0, seconds = 0;
    if (f.size() <= std::max({date, entry_time, entry_price}) || !io::parse_date(f[date], day) ||
        !io::parse_hms(f[entry_time], seconds))
      rows.fail(0, "a row the future-invariance check cannot read");
    if ((day * 86400 + seconds) * 1000 > t_ms) after.push_back(lines.size());
    lines.push_back(std::move(f));
  }
  const std::vector<std::vector<std::string>> original = lines;
  Rng rng(seed);
  for (const std::size_t i : after) {
    for (const std::size_t col : drawn) lines[i][col] = original[after[rng.below(after.size())]][col];
    double price = 0.0;
    if (!io::parse_csv_double(lines[i][entry_price], price)) rows.fail(entry_price, "an unreadable Entry Price");
    lines[i][entry_price] = fmt::format("{:.4f}", price * std::exp(0.1 * rng.u01() - 0.05));
  }
  std::string out = fmt::format("{}\n", fmt::join(header, ","));
  for (const auto& f : lines) out += fmt::format("{}\n", fmt::join(f, ","));
  fs::create_directories(dir);
  const fs::path changed = dir / log.filename();
  write_file_atomically(changed, out, /*durable=*/false);
  io::Json result = data;
  result["trades"] = changed.string();
  result.erase("generate");                        // the log is there: nothing to generate
  result["cache_dir"] = (dir / "cache").string();  // beside the copy: removed with it
  if (data.contains("market_dir"))
    result["market_dir"] = resolve(data["market_dir"].get<std::string>(), base_dir).string();
  return result;
}

}  // namespace

io::Json data_changed_after(const io::Json& data, const fs::path& base_dir, std::int64_t t_ms, std::uint64_t seed,
                            const fs::path& dir) {
  for (const auto& [key, value] : data.items()) {
    (void)value;
    if (!listed(kCandleSources, key) && !listed(kTradeLogSources, key) && !listed(kOtherKeys, key))
      throw std::runtime_error("data." + key +
                               ": the future-invariance check cannot change this source after a time (teach "
                               "tests/support/future_data.cpp)");
  }
  if (has_any(data, kCandleSources) && has_any(data, kTradeLogSources))
    throw std::runtime_error("data: both candles and a trade log; the future-invariance check changes one kind");
  if (has_any(data, kCandleSources)) return candles_changed_after(data, base_dir, t_ms, seed, dir);
  if (has_any(data, kTradeLogSources)) return trade_log_changed_after(data, base_dir, t_ms, seed, dir);
  throw std::runtime_error("data: no source the future-invariance check knows (" + data.dump() + ")");
}

}  // namespace tpeopt::testing
