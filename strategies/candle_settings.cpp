#include "strategies/candle_settings.hpp"

#include "strategies/symbol_strategy.hpp"

namespace tpeopt::strategies {

CandleSymbolsConfig parse_candle_symbols(const SettingsInput& in, int default_min_trades) {
  CandleSymbolsConfig c;
  c.data = io::parse_candle_data_config(*in.data, io::CandleSources::Many);
  c.min_trades = min_trades_or(in.objective, default_min_trades);
  c.aggregate = parse_aggregate(in.objective.aggregate.empty() ? "sum" : in.objective.aggregate);
  c.maximize = in.objective.maximize;
  return c;
}

}  // namespace tpeopt::strategies
