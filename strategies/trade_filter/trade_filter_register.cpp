// The trade_filter strategy in the registry (strategies/registry.hpp): seed 001's trade-log
// filter, with its exact grid search and its `tpeopt data` subcommands.
#include <fmt/format.h>

#include "common/error.hpp"
#include "strategies/registry.hpp"
#include "strategies/trade_filter/trade_filter_exact_grid.hpp"
#include "strategies/trade_filter/trade_filter_generator.hpp"
#include "strategies/trade_filter/trade_filter_source.hpp"
#include "strategies/trade_filter/trade_filter_strategy.hpp"

namespace tpeopt::gpu {
// strategies/trade_filter/trade_filter_device.cu (builds with CUDA).
std::unique_ptr<DeviceStrategy> make_trade_filter_twin(const strategies::Strategy& strategy, CUstream_st* stream);
}  // namespace tpeopt::gpu

namespace tpeopt::strategies {

void add_trade_filter_data_commands(CLI::App& data, int& exit_code);  // trade_filter_commands.cpp

namespace {

struct TradeFilterSettings final : StrategySettings {
  io::TradeFilterDataConfig data;
  std::int64_t min_trades = 1;
  io::Json data_json() const override { return data.to_json(); }
};

std::shared_ptr<const StrategySettings> parse(const SettingsInput& in) {
  auto s = std::make_shared<TradeFilterSettings>();
  s->data = io::parse_trade_filter_data_config(*in.data);
  if (in.objective.name != "total_return")
    throw make_error("objective.name: trade_filter scores \"total_return\" only (got \"{}\")", in.objective.name);
  if (in.objective.min_trades_set) s->min_trades = in.objective.min_trades;
  return s;
}

/// Generated inputs (20 trading days, 20,000 trades), the same for the same folder.
std::vector<Sample> samples(const SampleData& d) {
  io::TradeFilterGeneratorOptions o;
  o.out = (d.scratch / "trade_filter").string();
  o.days = 20;
  o.trades = 20000;
  o.seed = 5;
  const auto g = io::generate_trade_filter_data(o);
  return {{"generated log",
           {{"data", {{"market_dir", g.market_dir.string()}, {"trades", g.trades.string()}, {"tickers", o.tickers}}},
            {"objective", {{"min_trades", 10}}}}}};
}

}  // namespace

void register_trade_filter(Registry& registry) {
  StrategyEntry e;
  e.name = "trade_filter";
  e.summary = "seed 001's trade-log filter: entry-metric minimums, take profit and stop loss replayed on price paths";
  e.params = trade_filter_params();
  e.subsets = true;
  e.parse = parse;
  e.make = [](const StrategySettings& settings, const BuildContext& context) -> std::unique_ptr<Strategy> {
    const auto& s = settings_as<TradeFilterSettings>(settings);
    return std::make_unique<TradeFilterStrategy>(io::load_trade_filter_data(s.data, context.base_dir, context.log),
                                                 s.min_trades);
  };
  e.make_device = TPEOPT_DEVICE(gpu::make_trade_filter_twin);
  e.exact_grid.exact_words = 4;
  e.exact_grid.cpu = trade_filter_grid_cpu;
  e.exact_grid.device = TPEOPT_DEVICE(gpu::trade_filter_grid_device);
  e.exact_grid.score = trade_filter_grid_score;
  e.exact_grid.data_summary = trade_filter_grid_data;
  e.add_data_commands = add_trade_filter_data_commands;
  e.samples = samples;
  registry.add(std::move(e));
}

}  // namespace tpeopt::strategies
