// The atc strategy in the registry (strategies/registry.hpp): the adaptive trend
// classification over a data set of one or more symbols.
#include "strategies/atc/atc_export.hpp"
#include "strategies/atc/atc_strategy.hpp"
#include "strategies/candle_settings.hpp"
#include "strategies/registry.hpp"

namespace tpeopt::gpu {
// strategies/atc/atc_device.cu and atc_export_device.cpp (builds with CUDA).
std::unique_ptr<DeviceStrategy> make_atc_twin(const strategies::Strategy& strategy, CUstream_st* stream);
strategies::SymbolResults atc_symbols_device(const strategies::Strategy& strategy, const double* params,
                                             int block_size);
}  // namespace tpeopt::gpu

namespace tpeopt::strategies {

namespace {

struct AtcSettings final : StrategySettings {
  io::CandleDataConfig data;
  AtcOptions options;
  io::Json data_json() const override { return data.to_json(); }
};

std::shared_ptr<const StrategySettings> parse(const SettingsInput& in) {
  auto s = std::make_shared<AtcSettings>();
  const CandleSymbolsConfig c = parse_candle_symbols(in, s->options.min_trades);
  s->data = c.data;
  in.errors.check([&] { s->options.objective = parse_atc_objective(in.objective.name); });
  s->options.min_trades = c.min_trades;
  s->options.aggregate = c.aggregate;
  s->options.maximize = c.maximize;
  return s;
}

std::vector<Sample> samples(const SampleData& d) {
  return {{"one series", {{"data", {{"candles", d.candles_csv.string()}}}}},
          {"three symbols, worst Sharpe",
           {{"data", {{"candles_dir", d.candles_dir.string()}}},
            {"objective", {{"name", "sharpe"}, {"aggregate", "worst"}, {"min_trades", 3}}}}}};
}

}  // namespace

void register_atc(Registry& registry) {
  StrategyEntry e;
  e.name = "atc";
  e.summary = "adaptive trend classification (ATC): 54 moving-average crossovers weighted in two layers";
  e.params = atc_params();
  e.symbols = true;
  e.subsets = true;
  e.parse = parse;
  e.make = [](const StrategySettings& settings, const BuildContext& context) -> std::unique_ptr<Strategy> {
    const auto& s = settings_as<AtcSettings>(settings);
    return std::make_unique<AtcStrategy>(io::load_candle_set(s.data, context.base_dir, /*require_volume=*/false),
                                         s.options);
  };
  e.make_device = TPEOPT_DEVICE(gpu::make_atc_twin);
  e.symbol_results.device = TPEOPT_DEVICE(gpu::atc_symbols_device);
  e.trades.columns = atc_trade_columns();
  e.trades.cpu = atc_trades_cpu;  // no GPU export: --executor cuda says so
  e.samples = samples;
  registry.add(std::move(e));
}

}  // namespace tpeopt::strategies
