#include "strategies/signal_register.hpp"

#include "strategies/candle_settings.hpp"

namespace tpeopt::strategies {

std::shared_ptr<const StrategySettings> parse_signal_settings(const SettingsInput& in, const std::string& strategy) {
  auto s = std::make_shared<SignalSettings>();
  const CandleSymbolsConfig c = parse_candle_symbols(in, s->options.min_trades);
  s->data = c.data;
  in.errors.check([&] { s->options.objective = parse_signal_objective(in.objective.name, strategy); });
  s->options.min_trades = c.min_trades;
  s->options.aggregate = c.aggregate;
  s->options.maximize = c.maximize;
  return s;
}

std::vector<Sample> signal_samples(const SampleData& d) {
  return {{"one series", {{"data", {{"candles", d.candles_csv.string()}}}, {"objective", {{"min_trades", 3}}}}},
          {"three symbols, mean Sharpe",
           {{"data", {{"candles_dir", d.candles_dir.string()}}},
            {"objective", {{"name", "sharpe"}, {"aggregate", "mean"}, {"min_trades", 3}}}}},
          {"three symbols, portfolio",
           {{"data", {{"candles_dir", d.candles_dir.string()}}},
            {"objective", {{"name", "compound_return"}, {"aggregate", "portfolio"}, {"min_trades", 3}}}}}};
}

}  // namespace tpeopt::strategies
