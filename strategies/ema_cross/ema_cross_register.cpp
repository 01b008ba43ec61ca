// The ema_cross strategy in the registry (strategies/registry.hpp): a long-only EMA crossover
// whose fills are vectorbt's (docs/strategies.md, "ema_cross").
#include "io/candle_data_config.hpp"
#include "strategies/ema_cross/ema_cross_export.hpp"
#include "strategies/ema_cross/ema_cross_strategy.hpp"
#include "strategies/registry.hpp"

namespace tpeopt::gpu {
// strategies/ema_cross/ema_cross_device.cu (builds with CUDA).
std::unique_ptr<DeviceStrategy> make_ema_cross_twin(const strategies::Strategy& strategy, CUstream_st* stream);
}  // namespace tpeopt::gpu

namespace tpeopt::strategies {

namespace {

struct EmaCrossSettings final : StrategySettings {
  io::CandleDataConfig data;
  EmaCrossOptions options;
  io::Json data_json() const override { return data.to_json(); }
};

std::shared_ptr<const StrategySettings> parse(const SettingsInput& in) {
  auto s = std::make_shared<EmaCrossSettings>();
  if (in.data)
    in.errors.check(
        [&] { s->data = io::parse_candle_data_config(*in.data, io::CandleSources::OneSeries, &in.errors); });
  in.errors.check([&] { s->options.objective = parse_ema_cross_objective(in.objective.name); });
  in.errors.check([&] { s->options.min_trades = min_trades_or(in.objective, s->options.min_trades); });
  s->options.maximize = in.objective.maximize;
  return s;
}

std::vector<Sample> samples(const SampleData& d) {
  return {{"one series", {{"data", {{"candles", d.candles_csv.string()}}}, {"objective", {{"min_trades", 3}}}}},
          {"one series, compound return",
           {{"data", {{"candles", d.candles_csv.string()}}},
            {"objective", {{"name", "compound_return"}, {"min_trades", 3}}}}}};
}

}  // namespace

void register_ema_cross(Registry& registry) {
  StrategyEntry e;
  e.name = "ema_cross";
  e.summary = "long-only EMA crossover with stop-loss and take-profit, fills equal to vectorbt's from_signals";
  e.params = ema_cross_params();
  e.subsets = true;
  e.parse = parse;
  e.make = [](const StrategySettings& settings, const BuildContext& context) -> std::unique_ptr<Strategy> {
    const auto& s = settings_as<EmaCrossSettings>(settings);
    return std::make_unique<EmaCrossStrategy>(io::load_one_series(s.data, context.base_dir), s.options);
  };
  e.make_device = TPEOPT_DEVICE(gpu::make_ema_cross_twin);
  e.trades.columns = ema_cross_trade_columns();
  e.trades.cpu = ema_cross_trades_cpu;
  e.trades.device = TPEOPT_DEVICE(gpu::ema_cross_trades_device);
  e.samples = samples;
  registry.add(std::move(e));
}

}  // namespace tpeopt::strategies
