#pragma once
// One parameter set of a study's strategy (`tpeopt backtest`): its score, metrics,
// per-symbol results and trades, from the CPU reference or the GPU. Strategy-independent:
// what a strategy can show comes from its registry entry (strategies/registry.hpp).
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "io/study_config.hpp"
#include "strategies/registry.hpp"

namespace tpeopt::engine {

struct Backtest {
  strategies::TrialScore score;
  std::vector<double> metrics;                        ///< metric_names() order
  std::optional<strategies::SymbolResults> symbols;   ///< set for a strategy over several symbols
  std::optional<strategies::ExportedTrades> trades;   ///< set when asked for
};

/// One trial's full parameter vector (one value per slot) from `given` name/value pairs
/// (`tpeopt backtest --params P.json`, tpeopt.backtest): names left out take the config's
/// fixed value, else the strategy's default. Errors (an unknown name, a value that is not a
/// finite number or outside its slot's domain, a slot left without a value) start with `source`.
std::vector<double> full_params(const strategies::Strategy& strategy, const io::StudyConfig& config,
                                const std::vector<std::pair<std::string, double>>& given, const std::string& source);

/// Backtests one full parameter vector (one value per slot) on "cpu" (the reference) or
/// "cuda" (the strategy's device twin through the CUDA executor, and its registry entry's
/// device functions for symbols and trades). Throws Error when the strategy cannot do what
/// is asked on that executor.
Backtest backtest_params(const strategies::Strategy& strategy, const std::vector<double>& params,
                         const std::string& executor, bool with_trades, int block_size);

}  // namespace tpeopt::engine
