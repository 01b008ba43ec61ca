#include "support/trade_filter_fixture.hpp"

#include <map>
#include <mutex>
#include <tuple>

#include <fmt/format.h>

#include "strategies/trade_filter/trade_filter_cache.hpp"
#include "strategies/trade_filter/trade_filter_generator.hpp"
#include "strategies/trade_filter/trade_filter_prepare.hpp"
#include "support/process.hpp"

namespace tpeopt::testing {

namespace fs = std::filesystem;

fs::path trade_filter_cache(int days, std::uint64_t trades, std::uint64_t seed) {
  static std::mutex mutex;
  static std::map<std::tuple<int, std::uint64_t, std::uint64_t>, fs::path> made;
  std::lock_guard lock(mutex);
  const auto key = std::make_tuple(days, trades, seed);
  if (auto it = made.find(key); it != made.end()) return it->second;
  const fs::path dir = make_process_temp_dir(fmt::format("tf_fixture_{}_{}_{}", days, trades, seed));
  io::TradeFilterGeneratorOptions o;
  o.out = dir;
  o.days = days;
  o.trades = trades;
  o.seed = seed;
  const auto g = io::generate_trade_filter_data(o);
  const auto data = io::prepare_trade_filter_data({g.market_dir, g.trades, o.tickers});
  const fs::path cache = dir / "data.tfc";
  io::write_trade_filter_cache(data, cache);
  made[key] = cache;
  return cache;
}

io::StudyConfig trade_filter_config(const fs::path& cache, const std::string& params_json,
                                    const std::string& search_json, std::int64_t min_trades) {
  const std::string text = fmt::format(
      R"({{"strategy": "trade_filter", "data": {{"cache": "{}"}}, "objective": {{"min_trades": {}}},
          "search": {}, "params": {}}})",
      cache.string(), min_trades, search_json, params_json);
  return io::parse_study_config(io::Json::parse(text), "test config", cache.parent_path());
}

std::string trade_filter_continuous_params(double target_low, double target_high) {
  return fmt::format(
      R"({{"min_volatility": {{"type": "float", "low": 0, "high": 0.8}},
          "min_ratio": {{"type": "float", "low": 0, "high": 1.1}},
          "min_adx28": {{"type": "float", "low": 0, "high": 35}},
          "min_adx14": {{"type": "float", "low": 0, "high": 35}},
          "min_adx7": {{"type": "float", "low": 0, "high": 35}},
          "target_pct": {{"type": "float", "low": {}, "high": {}}},
          "stop_pct": {{"type": "float", "low": {}, "high": {}}}}})",
      target_low, target_high, -target_high, -target_low);
}

}  // namespace tpeopt::testing
