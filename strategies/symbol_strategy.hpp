#pragma once
// The host-side face of a strategy over a data set of several symbols (docs/strategies.md, "Candle data sets of many
// symbols"): per-symbol results are kept (evaluate_symbols) and the trial's score is their aggregate
// (strategies/symbol_aggregate.hpp, the same TPEOPT_HD code on the GPU).
#include <string>
#include <vector>

#include "strategies/strategy.hpp"
#include "strategies/symbol_aggregate.hpp"

namespace tpeopt::strategies {

/// Parses objective.aggregate (sum | mean | worst | portfolio); throws Error naming the key.
symbols::Aggregate parse_aggregate(const std::string& name);
const char* aggregate_name(symbols::Aggregate a);

/// How the metric columns of strategies/trade_stats.hpp aggregate over symbols: trades and
/// wins summed, total_return additive, the strategy's own column and the ratios the higher
/// the better, max_drawdown the lower.
symbols::AggregateSpec trade_metrics_aggregate_spec(symbols::Aggregate aggregate, bool maximize, int min_trades);

class SymbolStrategy : public Strategy {
 public:
  /// Symbol names, in the fixed order every sum over symbols follows (by name).
  virtual const std::vector<std::string>& symbol_names() const = 0;
  std::size_t n_symbols() const { return symbol_names().size(); }

  /// One trial's per-symbol results: objective[s] (the per-symbol objective value), equity[s]
  /// (final compounded equity, from 1) and metrics[s * M + k] (M = metric_names().size()).
  /// With folds (Strategy::with_folds), a symbol's row holds the base metrics and then the fold
  /// columns of its own trades (folds.hpp's FoldColumn; fold{k}_score the objective over its
  /// fold-k trades, for the portfolio aggregate their compound return), and objective[s] stays
  /// the whole span's.
  virtual void evaluate_symbols(const double* params, double* objective, double* equity, double* metrics) const = 0;

  /// How evaluate() aggregates (the GPU aggregates the same way).
  virtual const symbols::AggregateSpec& aggregate_spec() const = 0;

  /// The rule over the fold scores (with folds; strategies/folds.hpp).
  virtual FoldRule fold_rule() const { return {}; }

  /// evaluate_symbols, then aggregate_symbols (with folds: aggregate_symbols_folded, the
  /// same TPEOPT_HD code as the CUDA twins' aggregation).
  TrialScore evaluate(const double* params, double* metrics) const override;
};

}  // namespace tpeopt::strategies
