#include "strategies/trade_filter/trade_filter_source.hpp"

#include <cstdlib>
#include <ostream>

#include <fmt/format.h>

#include "common/digest.hpp"
#include "common/error.hpp"
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
  if (log) *log << fmt::format("tpeopt: preparing {} and {} (cache {})\n", in.trades.string(), in.market_dir.string(),
                               cache.string());
  auto data = std::make_shared<TradeFilterData>(prepare_trade_filter_data(in));
  if (log && data->empty_windows > 0)
    *log << fmt::format("tpeopt: warning: {} of {} trades have no market row in their window (they keep their logged "
                        "outcome)\n",
                        data->empty_windows, data->n_trades());
  write_trade_filter_cache(*data, cache);
  return data;
}

std::shared_ptr<const TradeFilterData> load_trade_filter_data(const Json& json, const fs::path& base_dir,
                                                              std::ostream* log) {
  return load_trade_filter_data(parse_trade_filter_data_config(json), base_dir, log);
}

TradeFilterDataConfig parse_trade_filter_data_config(const Json& json) {
  JsonFields data(json, "data");
  TradeFilterDataConfig c;
  if (data.has("cache")) {
    data.reject_unknown({"cache"});
    c.cache = data.get_string("cache");
    if (c.cache.empty()) throw make_error("data.cache: expected a file path, got an empty string");
    return c;
  }
  data.reject_unknown({"market_dir", "trades", "tickers", "cache_dir"});
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
  return c;
}

Json TradeFilterDataConfig::to_json() const {
  if (!cache.empty()) return {{"cache", cache}};
  Json j = {{"market_dir", market_dir}, {"trades", trades}, {"tickers", tickers}};
  if (cache_dir) j["cache_dir"] = *cache_dir;
  return j;
}

std::shared_ptr<const TradeFilterData> load_trade_filter_data(const TradeFilterDataConfig& config,
                                                              const fs::path& base_dir, std::ostream* log) {
  auto resolve = [&](const std::string& value) {
    const fs::path p(value);
    return p.is_absolute() ? p : base_dir / p;
  };
  if (!config.cache.empty()) {
    const fs::path p = resolve(config.cache);
    if (!fs::exists(p)) throw make_error("data.cache: {} does not exist (write it with `tpeopt data prepare`)", p.string());
    return std::make_shared<const TradeFilterData>(read_trade_filter_cache(p));
  }
  TradeFilterInputs in;
  in.market_dir = resolve(config.market_dir);
  in.trades = resolve(config.trades);
  in.tickers = config.tickers;
  if (!fs::is_directory(in.market_dir)) throw make_error("data.market_dir: {} is not a directory", in.market_dir.string());
  if (!fs::is_regular_file(in.trades)) throw make_error("data.trades: {} is not a file", in.trades.string());
  const fs::path cache_dir = config.cache_dir ? resolve(*config.cache_dir) : default_cache_dir();
  return load_or_prepare_trade_filter(in, cache_dir, log);
}

}  // namespace tpeopt::io
