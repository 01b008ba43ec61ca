#include "strategies/signal_register.hpp"

namespace tpeopt::strategies {

std::shared_ptr<const StrategySettings> parse_signal_settings(const SettingsInput& in, const std::string& strategy) {
  auto s = std::make_shared<SignalSettings>();
  s->data = io::parse_candle_data_config(*in.data, io::CandleSources::Many);
  s->options.objective = parse_signal_objective(in.objective.name, strategy);
  s->options.min_trades = min_trades_or(in.objective, s->options.min_trades);
  s->options.aggregate = parse_aggregate(in.objective.aggregate.empty() ? "sum" : in.objective.aggregate);
  s->options.maximize = in.objective.maximize;
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
