#pragma once
// What every candle strategy over a data set of symbols reads from its config besides its
// own objective names: the data set, objective.min_trades, objective.aggregate and the
// direction (its registration's parser starts from this).
#include "io/candle_data_config.hpp"
#include "strategies/registry.hpp"
#include "strategies/symbol_aggregate.hpp"

namespace tpeopt::strategies {

struct CandleSymbolsConfig {
  io::CandleDataConfig data;
  int min_trades = 0;  ///< the config's, else the strategy's default
  symbols::Aggregate aggregate = symbols::Aggregate::Sum;
  bool maximize = true;
};

/// Errors name the key (data.candles[2], objective.aggregate, ...); each part's go to in.errors.
CandleSymbolsConfig parse_candle_symbols(const SettingsInput& in, int default_min_trades);

}  // namespace tpeopt::strategies
