#include "strategies/candle_settings.hpp"

#include "strategies/symbol_strategy.hpp"

namespace tpeopt::strategies {

CandleSymbolsConfig parse_candle_symbols(const SettingsInput& in, int default_min_trades) {
  CandleSymbolsConfig c;
  if (in.data)
    in.errors.check([&] { c.data = io::parse_candle_data_config(*in.data, io::CandleSources::Many, &in.errors); });
  in.errors.check([&] { c.min_trades = min_trades_or(in.objective, default_min_trades); });
  in.errors.check(
      [&] { c.aggregate = parse_aggregate(in.objective.aggregate.empty() ? "sum" : in.objective.aggregate); });
  c.maximize = in.objective.maximize;
  return c;
}

}  // namespace tpeopt::strategies
