#pragma once
// One parameter set of a study's strategy (`tpeopt backtest`): its score, metrics,
// per-symbol results and trades, from the CPU reference or the GPU. Strategy-independent:
// what a strategy can show comes from its registry entry (strategies/registry.hpp).
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "config/study_config.hpp"
#include "strategies/registry.hpp"

namespace tpeopt::engine {

struct Backtest {
  strategies::TrialScore score;
  std::vector<double> metrics;                       ///< metric_names() order
  std::optional<strategies::SymbolResults> symbols;  ///< set for a strategy over several symbols
  std::optional<strategies::ExportedTrades> trades;  ///< set when asked for
};

/// The strategy's full parameter vector (one value per slot) from a parameter set {"name":
/// value} as P.json or a top.json entry writes it: names it leaves out take the config's fixed
/// value, else the strategy's default; a categorical parameter's label (as top.json writes
/// it) becomes its index among the config's choices, the value the run passed. Throws Error
/// naming `where` for an unknown name, a missing value or one outside the domain.
std::vector<double> slots_from_params(const io::Json& params, const strategies::Strategy& strategy,
                                      const io::StudyConfig& config, const std::string& where);

/// Backtests one full parameter vector (one value per slot) on "cpu" (the reference) or
/// "cuda" (the strategy's device twin through the CUDA executor, and its registry entry's
/// device functions for symbols and trades). Throws Error when the strategy cannot do what
/// is asked on that executor.
Backtest backtest_params(const strategies::Strategy& strategy, const std::vector<double>& params,
                         const std::string& executor, bool with_trades, int block_size);

}  // namespace tpeopt::engine
