#pragma once
// What `tpeopt backtest` shows of one trial beyond its score: its trades and its per-symbol
// results, as a strategy's registry entry exports them (strategies/registry.hpp). Plain data
// and free of fmt and JSON, so that the CUDA twins' .cu files can build them.
#include <cstdint>
#include <string>
#include <vector>

namespace tpeopt::strategies {

/// One exported trade: its entry and exit bar times (Unix ms) and the strategy's columns.
struct ExportedTrade {
  std::int64_t entry_time_ms = 0, exit_time_ms = 0;
  std::vector<std::string> fields;
};
/// Trades per symbol (one list for a one-series strategy), each in trade order.
using ExportedTrades = std::vector<std::vector<ExportedTrade>>;

/// One trial's per-symbol results ([symbol], [symbol * M + metric]).
struct SymbolResults {
  std::vector<double> objective, equity, metrics;
};

}  // namespace tpeopt::strategies
