// The exhaustion strategy in the registry (strategies/registry.hpp): the seller-exhaustion
// candle strategy over one series or a data set of several symbols.
#include "strategies/candle_settings.hpp"
#include "strategies/exhaustion/exhaustion_export.hpp"
#include "strategies/exhaustion/exhaustion_strategy.hpp"
#include "strategies/exhaustion/exhaustion_symbols_strategy.hpp"
#include "strategies/registry.hpp"

namespace tpeopt::gpu {
// strategies/exhaustion/exhaustion_device.cu (builds with CUDA).
std::unique_ptr<DeviceStrategy> make_exhaustion_twin(const strategies::Strategy& strategy, CUstream_st* stream);
}  // namespace tpeopt::gpu

namespace tpeopt::strategies {

namespace {

struct ExhaustionSettings final : StrategySettings {
  CandleSymbolsConfig candles;
  ExhaustionOptions options;
  io::Json data_json() const override { return candles.data.to_json(); }
};

std::shared_ptr<const StrategySettings> parse(const SettingsInput& in) {
  auto s = std::make_shared<ExhaustionSettings>();
  s->candles = parse_candle_symbols(in, s->options.min_trades);
  in.errors.check([&] { s->options.objective = parse_exhaustion_objective(in.objective.name); });
  s->options.min_trades = s->candles.min_trades;
  s->options.maximize = in.objective.maximize;
  return s;
}

std::unique_ptr<Strategy> make(const StrategySettings& settings, const BuildContext& context) {
  const auto& s = settings_as<ExhaustionSettings>(settings);
  const CandleSet set = io::load_candle_set(s.candles.data, context.base_dir);
  // One symbol is the one-series strategy (bit for bit); several: each symbol as one
  // series, the score aggregated over them (docs/strategies.md, "Candle data sets of many symbols").
  if (set.n_symbols() == 1 && s.candles.aggregate != symbols::Aggregate::Portfolio)
    return std::make_unique<ExhaustionStrategy>(set.symbol(0), s.options);
  return std::make_unique<ExhaustionSymbolsStrategy>(set, s.options, s.candles.aggregate, s.candles.maximize);
}

std::vector<Sample> samples(const SampleData& d) {
  return {{"one series", {{"data", {{"candles", d.candles_csv.string()}}}, {"objective", {{"min_trades", 3}}}}},
          {"three symbols, mean Sharpe",
           {{"data", {{"candles_dir", d.candles_dir.string()}}},
            {"objective", {{"name", "sharpe"}, {"aggregate", "mean"}, {"min_trades", 3}}}}},
          {"three symbols, portfolio",
           {{"data", {{"candles_dir", d.candles_dir.string()}}},
            {"objective", {{"aggregate", "portfolio"}, {"min_trades", 3}}}}}};
}

}  // namespace

void register_exhaustion(Registry& registry) {
  StrategyEntry e;
  e.name = "exhaustion";
  e.summary =
      "seller-exhaustion longs in a downtrend: EMA trend filter, volume and true-range z-scores, ATR stop, target, time exit";
  e.params = exhaustion_params();
  e.symbols = true;
  e.subsets = true;
  e.parse = parse;
  e.make = make;
  e.make_device = TPEOPT_DEVICE(gpu::make_exhaustion_twin);
  e.trades.columns = exhaustion_trade_columns();
  e.trades.cpu = exhaustion_trades_cpu;
  e.trades.device = TPEOPT_DEVICE(gpu::exhaustion_trades_device);
  e.symbol_results.device = TPEOPT_DEVICE(gpu::exhaustion_symbols_device);
  e.samples = samples;
  registry.add(std::move(e));
}

}  // namespace tpeopt::strategies
