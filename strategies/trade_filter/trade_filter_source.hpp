#pragma once
// The `data` object of a trade_filter config, resolved to prepared data:
//   {"market_dir": DIR, "trades": FILE, "tickers": [..]}  prepared on first use and cached
//       (optional "cache_dir": where the cache goes; default $TPEOPT_CACHE_DIR, else
//       $XDG_CACHE_HOME/tpeopt, else ~/.cache/tpeopt — never next to the inputs; optional
//       "generate": {"days", "trades", "seed"}: the files are OUT/market and OUT/trades.csv
//       written by `tpeopt data generate`, and when both are missing the error is the exact
//       command that writes them)
//   {"cache": FILE}                                        a cache written by `tpeopt data prepare`
// Relative paths are resolved against the config's folder. Errors name `data.<key>`.
#include <filesystem>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "io/json_fields.hpp"
#include "strategies/trade_filter/trade_filter_data.hpp"
#include "strategies/trade_filter/trade_filter_prepare.hpp"

namespace tpeopt::io {

/// The default folder for prepared caches (see above); created on first write.
std::filesystem::path default_cache_dir();

/// The cache file for these inputs in `cache_dir`: named by a checksum of the cache
/// format version, the tickers and every source file's checksum (so any change to an
/// input gives a new cache; stale ones are never read).
std::filesystem::path trade_filter_cache_path(const TradeFilterInputs& inputs, const std::filesystem::path& cache_dir);

/// Loads the cache for `inputs` from `cache_dir`, preparing and writing it first when
/// absent or unreadable. Messages about what happens (preparing, warnings about empty
/// windows) go to `log` when not null.
std::shared_ptr<const strategies::TradeFilterData> load_or_prepare_trade_filter(const TradeFilterInputs& inputs,
                                                                                const std::filesystem::path& cache_dir,
                                                                                std::ostream* log);

/// Resolves a config's `data` object (see above) and records the load (io/data_log.hpp).
std::shared_ptr<const strategies::TradeFilterData> load_trade_filter_data(const Json& data,
                                                                          const std::filesystem::path& base_dir,
                                                                          std::ostream* log);

/// `data.generate`: how `tpeopt data generate` wrote the files, so that when they are
/// missing the error gives the exact command.
struct GenerateRecipe {
  std::uint64_t days = 0, trades = 0, seed = 1;
};

/// The `data` object as a typed struct, checked when the config is loaded (keys, types,
/// the tickers, data.generate's paths); the folders and files are checked when the data is
/// loaded.
struct TradeFilterDataConfig {
  std::string cache;  ///< {"cache": FILE} (set: the other fields are unused)
  std::string market_dir, trades;
  std::vector<std::string> tickers;
  std::optional<std::string> cache_dir;
  std::optional<GenerateRecipe> generate;
  /// The object in the resolved config (keys: cache, or market_dir, trades, tickers, cache_dir,
  /// generate).
  Json to_json() const;
};
TradeFilterDataConfig parse_trade_filter_data_config(const Json& data, ConfigErrors* errors = nullptr);
/// load_trade_filter_data of the config's object.
std::shared_ptr<const strategies::TradeFilterData> load_trade_filter_data(const TradeFilterDataConfig& config,
                                                                          const std::filesystem::path& base_dir,
                                                                          std::ostream* log);

}  // namespace tpeopt::io
