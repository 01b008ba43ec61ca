#pragma once
// The registry entry of a long/short signal strategy (strategies/signal_strategy.hpp): a new
// signal strategy registers its name, parameters and device side, and gets the rest, the
// same for every one: candle data of one or more symbols, its objectives, per-symbol
// results, data subsets, trades and the conformance samples (docs/writing-a-strategy.md).
#include <memory>
#include <string>

#include "io/candle_data_config.hpp"
#include "strategies/long_short_export.hpp"
#include "strategies/registry.hpp"
#include "strategies/signal_strategy.hpp"

namespace tpeopt::strategies {

/// A signal strategy's device side, as its <name>_device.cu defines it (each named with
/// TPEOPT_DEVICE: null in a build without CUDA).
struct SignalDeviceSide {
  DeviceFactory make = nullptr;
  ExportedTrades (*trades)(const Strategy&, const double* params, int block_size) = nullptr;
  SymbolResults (*symbols)(const Strategy&, const double* params, int block_size) = nullptr;
};

/// What a signal strategy reads from a config: a candle data set and its objective.
struct SignalSettings final : StrategySettings {
  io::CandleDataConfig data;
  SignalOptions options;
  io::Json data_json() const override { return data.to_json(); }
};

/// Parses a signal strategy's part of a config (errors name the key and the strategy).
std::shared_ptr<const StrategySettings> parse_signal_settings(const SettingsInput& in, const std::string& strategy);
/// The bundled EURUSD series, three symbols (mean Sharpe), three symbols (portfolio).
std::vector<Sample> signal_samples(const SampleData& data);

template <typename Logic>
StrategyEntry signal_strategy_entry(std::string name, std::string summary, const ParamList& params,
                                    SignalDeviceSide device) {
  StrategyEntry e;
  e.name = name;
  e.summary = std::move(summary);
  e.params = params;
  e.symbols = true;
  e.subsets = true;
  e.parse = [name](const SettingsInput& in) { return parse_signal_settings(in, name); };
  e.make = [name, &params](const StrategySettings& settings, const BuildContext& context) -> std::unique_ptr<Strategy> {
    const auto& s = settings_as<SignalSettings>(settings);
    return std::make_unique<SignalStrategy<Logic>>(io::load_candle_set(s.data, context.base_dir,
                                                                       /*require_volume=*/false),
                                                   s.options, name, params);
  };
  e.make_device = device.make;
  e.trades.columns = long_short_trade_columns();
  e.trades.cpu = [](const Strategy& strategy, const double* p) {
    const auto& s = dynamic_cast<const SignalStrategy<Logic>&>(strategy);
    ExportedTrades out(s.symbol_names().size());
    for (std::size_t k = 0; k < out.size(); ++k) {
      const CandleSet& set = s.data();
      const std::int64_t* time_ms = set.bars.time_ms.data() + set.offset[s.data_symbol(k)];
      for (const auto& t : s.trades(p, k)) out[k].push_back(export_long_short_trade(t, time_ms));
    }
    return out;
  };
  e.trades.device = device.trades;
  e.symbol_results.device = device.symbols;
  e.samples = signal_samples;
  return e;
}

}  // namespace tpeopt::strategies
