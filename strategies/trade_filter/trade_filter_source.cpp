#include "strategies/trade_filter/trade_filter_source.hpp"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <optional>
#include <ostream>

#include <fmt/format.h>

#include "common/digest.hpp"
#include "common/error.hpp"
#include "io/data_log.hpp"
#include "io/file_checksum.hpp"
#include "io/market_data_csv.hpp"
#include "strategies/trade_filter/trade_filter_cache.hpp"

namespace tpeopt::io {

namespace fs = std::filesystem;
using strategies::TradeFilterData;

fs::path default_cache_dir() {
  if (const char* d = std::getenv("TPEOPT_CACHE_DIR"); d && *d) return fs::path(d);
  if (const char* d = std::getenv("XDG_CACHE_HOME"); d && *d) return fs::path(d) / "tpeopt";
  if (const char* h = std::getenv("HOME"); h && *h) return fs::path(h) / ".cache" / "tpeopt";
  return fs::temp_directory_path() / "tpeopt-cache";
}

fs::path trade_filter_cache_path(const TradeFilterInputs& in, const fs::path& cache_dir) {
  Digest key;
  key.add(std::uint64_t{kTradeFilterCacheVersion});
  std::vector<std::string> tickers = in.tickers;
  std::sort(tickers.begin(), tickers.end());
  tickers.erase(std::unique(tickers.begin(), tickers.end()), tickers.end());
  for (const auto& t : tickers) key.add(t);
  key.add(file_checksum_hex(in.trades));
  for (const fs::path& f : list_market_files(in.market_dir)) {
    key.add(f.filename().string());
    key.add(file_checksum_hex(f));
  }
  return cache_dir / ("trade_filter-" + key.hex() + ".tfc");
}

std::shared_ptr<const TradeFilterData> load_or_prepare_trade_filter(const TradeFilterInputs& in,
                                                                    const fs::path& cache_dir, std::ostream* log) {
  const fs::path cache = trade_filter_cache_path(in, cache_dir);
  std::error_code ec;
  if (fs::exists(cache, ec)) {
    try {
      return std::make_shared<const TradeFilterData>(read_trade_filter_cache(cache));
    } catch (const Error& e) {
      if (log) *log << "tpeopt: " << e.what() << "; preparing again\n";
    }
  }
  if (log)
    *log << fmt::format("tpeopt: preparing {} and {} (cache {})\n", in.trades.string(), in.market_dir.string(),
                        cache.string());
  auto data = std::make_shared<TradeFilterData>(prepare_trade_filter_data(in));
  if (log && data->empty_windows > 0)
    *log << fmt::format(
        "tpeopt: warning: {} of {} trades have no market row in their window (they keep their logged "
        "outcome)\n",
        data->empty_windows, data->n_trades());
  write_trade_filter_cache(*data, cache);
  return data;
}

namespace {

/// Records what was loaded (io/data_log.hpp): the trades, their first and last entry.
std::shared_ptr<const TradeFilterData> recorded(std::shared_ptr<const TradeFilterData> d, const std::string& source) {
  DataLoad load;
  load.source = source;
  load.rows = d->n_trades();
  load.unit = "trades";
  if (!d->entry_time.empty()) {
    const auto [lo, hi] = std::minmax_element(d->entry_time.begin(), d->entry_time.end());
    load.first_ms = *lo * 1000;
    load.last_ms = *hi * 1000;
  }
  load.detail = fmt::format("{} tickers, {} market rows", d->tickers.size(), d->prices.size());
  load.bytes = d->prices.size() * sizeof(float) + d->path.size() * sizeof(float) +
               d->n_trades() * (8 * sizeof(double) + 4 * sizeof(std::uint64_t));
  record_data_load(std::move(load));
  return d;
}

GenerateRecipe parse_generate(const JsonFields& data) {
  JsonFields g(data.at("generate"), "data.generate");
  g.reject_unknown({"days", "trades", "seed"});
  GenerateRecipe r;
  r.days = static_cast<std::uint64_t>(g.get_int("days", std::nullopt, 1, 400));
  r.trades = static_cast<std::uint64_t>(g.get_int("trades", std::nullopt, 0, 10000000));
  r.seed = static_cast<std::uint64_t>(g.get_int("seed", 1, 0, std::numeric_limits<std::int64_t>::max()));
  return r;
}

/// A path as the user may type it from the current directory.
std::string as_typed(const fs::path& p) {
  std::error_code ec;
  const fs::path abs = fs::weakly_canonical(p, ec);
  const fs::path cwd = fs::current_path(ec);
  if (abs.empty() || cwd.empty()) return p.string();
  const fs::path rel = abs.lexically_relative(cwd);
  return rel.empty() ? abs.string() : rel.string();
}

}  // namespace

std::shared_ptr<const TradeFilterData> load_trade_filter_data(const Json& json, const fs::path& base_dir,
                                                              std::ostream* log) {
  return load_trade_filter_data(parse_trade_filter_data_config(json), base_dir, log);
}

TradeFilterDataConfig parse_trade_filter_data_config(const Json& json, ConfigErrors* errors) {
  JsonFields data(json, "data");
  TradeFilterDataConfig c;
  if (data.has("cache")) {
    data.reject_unknown({"cache"}, errors);
    c.cache = data.get_string("cache");
    if (c.cache.empty()) throw make_error("data.cache: expected a file path, got an empty string");
    return c;
  }
  data.reject_unknown({"market_dir", "trades", "tickers", "cache_dir", "generate"}, errors);
  c.market_dir = data.get_string("market_dir");
  c.trades = data.get_string("trades");
  if (!data.has("tickers")) throw make_error("data.tickers: missing (the tickers to keep, e.g. [\"SOXL\", \"IONQ\"])");
  const Json& t = data.at("tickers");
  if (!t.is_array() || t.empty()) throw make_error("data.tickers: expected a non-empty list of ticker names");
  for (const auto& v : t) {
    if (!v.is_string() || v.get<std::string>().empty())
      throw make_error("data.tickers: expected ticker names (strings), got {}", v.dump());
    c.tickers.push_back(v.get<std::string>());
  }
  if (data.has("cache_dir")) c.cache_dir = data.get_string("cache_dir");
  if (data.has("generate")) {
    c.generate = parse_generate(data);
    const fs::path market = fs::path(c.market_dir).lexically_normal(), trades = fs::path(c.trades).lexically_normal();
    if (market != (market.parent_path() / "market").lexically_normal() ||
        trades != (market.parent_path() / "trades.csv").lexically_normal())
      throw make_error(
          "data.generate: `tpeopt data generate --out DIR` writes DIR/market and DIR/trades.csv; "
          "market_dir and trades must name them (got {} and {})",
          c.market_dir, c.trades);
  }
  return c;
}

Json TradeFilterDataConfig::to_json() const {
  if (!cache.empty()) return {{"cache", cache}};
  Json j = {{"market_dir", market_dir}, {"trades", trades}, {"tickers", tickers}};
  if (cache_dir) j["cache_dir"] = *cache_dir;
  if (generate) j["generate"] = {{"days", generate->days}, {"trades", generate->trades}, {"seed", generate->seed}};
  return j;
}

std::shared_ptr<const TradeFilterData> load_trade_filter_data(const TradeFilterDataConfig& config,
                                                              const fs::path& base_dir, std::ostream* log) {
  auto resolve = [&](const std::string& value) {
    const fs::path p(value);
    return p.is_absolute() ? p : (base_dir / p).lexically_normal();
  };
  if (!config.cache.empty()) {
    const fs::path p = resolve(config.cache);
    if (!fs::exists(p))
      throw make_error("data.cache: {} does not exist (write it with `tpeopt data prepare`)", p.string());
    if (fs::is_directory(p)) throw make_error("data.cache: {} is a folder, not a cache file", p.string());
    return recorded(std::make_shared<const TradeFilterData>(read_trade_filter_cache(p)), p.string());
  }
  TradeFilterInputs in;
  in.market_dir = resolve(config.market_dir);
  in.trades = resolve(config.trades);
  in.tickers = config.tickers;
  const bool have_market = fs::is_directory(in.market_dir), have_trades = fs::is_regular_file(in.trades);
  if (config.generate && !fs::exists(in.market_dir) && !fs::exists(in.trades)) {
    std::string tickers;
    for (const auto& t : in.tickers) tickers += (tickers.empty() ? "" : ",") + t;
    throw make_error(
        "data.market_dir: {} does not exist: this config's data is generated (data.generate); write it "
        "with\ntpeopt data generate --out {} --days {} --trades {} --seed {} --tickers {}",
        in.market_dir.string(), as_typed(in.market_dir.parent_path()), config.generate->days, config.generate->trades,
        config.generate->seed, tickers);
  }
  if (!have_market)
    throw make_error("data.market_dir: {} {}", in.market_dir.string(),
                     fs::exists(in.market_dir) ? "is a file, not a folder" : "does not exist");
  if (!have_trades)
    throw make_error("data.trades: {} {}", in.trades.string(),
                     fs::is_directory(in.trades)
                         ? "is a folder, not a file"
                         : (fs::exists(in.trades) ? "is not a regular file" : "does not exist"));
  const fs::path cache_dir = config.cache_dir ? resolve(*config.cache_dir) : default_cache_dir();
  return recorded(load_or_prepare_trade_filter(in, cache_dir, log), in.trades.string());
}

}  // namespace tpeopt::io
