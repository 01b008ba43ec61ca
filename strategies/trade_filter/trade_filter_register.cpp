// The trade_filter strategy in the registry (strategies/registry.hpp): the trade-log
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
  bool maximize = true;  ///< objective.direction: the folds' rule "min" takes the worst fold
  io::Json data_json() const override { return data.to_json(); }
};

std::shared_ptr<const StrategySettings> parse(const SettingsInput& in) {
  auto s = std::make_shared<TradeFilterSettings>();
  if (in.data) in.errors.check([&] { s->data = io::parse_trade_filter_data_config(*in.data, &in.errors); });
  if (in.objective.name != "total_return")
    in.errors.add(
        fmt::format("objective.name: trade_filter scores \"total_return\" only (got \"{}\")", in.objective.name));
  if (in.objective.min_trades_set) s->min_trades = in.objective.min_trades;
  s->maximize = in.objective.maximize;
  return s;
}

/// The kept trades of one trial (tpeopt backtest --trades-out), in the log's order, each
/// with the exit the trial gives it (first_exit_linear, as evaluate) and its outcome as
/// scored: `percent` (the fixed-point outcome back in percent) and `return` (a fraction).
/// Times are the log's entry and exit times (a target or stop exit is met on the way).
ExportedTrades trade_filter_trades(const Strategy& strategy, const double* slots) {
  namespace tf = trade_filter;
  const auto& s = dynamic_cast<const TradeFilterStrategy&>(strategy);
  const TradeFilterData& d = s.data();
  const tf::Params p = tf::params_from_slots(slots);
  ExportedTrades out(1);
  for (std::size_t i = 0; i < d.n_trades(); ++i) {
    if (!tf::keeps(p, d.volatility[i], d.ratio[i], d.adx28[i], d.adx14[i], d.adx7[i])) continue;
    const std::uint64_t begin = d.path_offset[i];
    const int exit = tf::first_exit_linear(d.path.data() + begin, d.path_offset[i + 1] - begin, p.target, p.stop);
    const double percent = tf::from_fixed_point(tf::outcome_q(exit, p.target, p.stop, d.logged_q[i]));
    ExportedTrade t;
    t.entry_time_ms = d.entry_time[i] * 1000;
    t.exit_time_ms = d.exit_time[i] * 1000;
    t.fields = {fmt::format("{}", i),
                d.tickers.at(d.ticker[i]),
                fmt::format("{}", d.entry_price[i]),
                exit == tf::kExitTarget ? "target" : (exit == tf::kExitStop ? "stop" : "logged"),
                fmt::format("{}", percent),
                fmt::format("{}", percent / 100.0)};
    out[0].push_back(std::move(t));
  }
  return out;
}

/// Generated inputs (24 trading days, 20,000 trades), the same for the same folder: enough days
/// for the conformance harness's 4 folds with an embargo of 5.
std::vector<Sample> samples(const SampleData& d) {
  io::TradeFilterGeneratorOptions o;
  o.out = (d.scratch / "trade_filter").string();
  o.days = 24;
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
  e.summary = "trade-log filter: entry-metric minimums, take profit and stop loss replayed on price paths";
  e.params = trade_filter_params();
  e.subsets = true;
  e.parse = parse;
  e.make = [](const StrategySettings& settings, const BuildContext& context) -> std::unique_ptr<Strategy> {
    const auto& s = settings_as<TradeFilterSettings>(settings);
    return std::make_unique<TradeFilterStrategy>(io::load_trade_filter_data(s.data, context.base_dir, context.log),
                                                 s.min_trades, s.maximize);
  };
  e.make_device = TPEOPT_DEVICE(gpu::make_trade_filter_twin);
  e.exact_grid.exact_words = 4;
  e.exact_grid.cpu = trade_filter_grid_cpu;
  e.exact_grid.device = TPEOPT_DEVICE(gpu::trade_filter_grid_device);
  e.exact_grid.score = trade_filter_grid_score;
  e.exact_grid.data_summary = trade_filter_grid_data;
  e.add_data_commands = add_trade_filter_data_commands;
  e.trades.columns = {"trade", "ticker", "entry_price", "exit", "percent", "return"};
  e.trades.count_metric = "kept";
  e.trades.cpu = trade_filter_trades;  // no GPU export: --executor cuda says so
  e.samples = samples;
  registry.add(std::move(e));
}

}  // namespace tpeopt::strategies
