#pragma once
// A trial's score across the symbols of a candle data set (docs/strategies.md, "Candle data sets of many symbols"),
// written ONCE as TPEOPT_HD code: the CPU reference and the CUDA aggregation kernels call this function,
// so both give the same bits. docs/strategies.md, "Scores across symbols", states the rules.
//
// Exact and order-independent (docs/design.md, "Parity: CPU == CUDA"): every sum runs over the symbols in
// their fixed order (by name), left to right, starting from the first symbol's value (so
// one symbol gives its own value, bit for bit); no atomics; each trial on its own.
#include "common/hd.hpp"
#include "strategies/folds.hpp"

namespace tpeopt::strategies::symbols {

/// objective.aggregate.
enum class Aggregate : int {
  Sum = 0,        ///< sum over symbols of the per-symbol objective
  Mean = 1,       ///< that sum / S
  Worst = 2,      ///< the worst symbol's objective (the lowest when maximizing, else the highest)
  Portfolio = 3,  ///< equal-weight portfolio: mean over symbols of (final compounded equity - 1)
};

/// How a per-symbol metric becomes the trial's metric (the aggregate in parentheses).
enum MetricKind : int {
  kCount = 0,         ///< summed, always (trades, wins)
  kAverage = 1,       ///< mean over symbols, always
  kHigherBetter = 2,  ///< the lowest (worst); else the mean (sum, mean, portfolio)
  kLowerBetter = 3,   ///< the highest (worst); else the mean, e.g. max_drawdown
  kAdditive = 4,      ///< summed (sum), the lowest (worst), else the mean: total_return
};

constexpr int kMaxMetrics = 16;

/// Per-symbol results of one trial, read through strides (in doubles) so that the CPU's
/// per-trial arrays and the GPU's symbol-major arrays are read by the same code:
/// objective of symbol s = objective[s * objective_stride], likewise equity, and metric k
/// of symbol s = metrics[s * metrics_stride + k].
struct SymbolRows {
  const double* objective;
  const double* equity;  ///< final compounded equity (starts at 1)
  const double* metrics;
  long long objective_stride, equity_stride, metrics_stride;
};

struct AggregateSpec {
  Aggregate aggregate;
  int maximize;      ///< 1 when the objective is maximized (what "worst" means for the score)
  int n_metrics;     ///< <= kMaxMetrics
  int count_metric;  ///< the metric holding a symbol's trade count (for min_trades)
  int min_trades;    ///< a trial with fewer trades in total is infeasible
  int kinds[kMaxMetrics];
};

/// One value per symbol, value(s) for s = 0 .. S-1, made one: summed (Sum), summed / S (Mean;
/// Portfolio's values are the symbols' returns, so Mean too), or the worst (Worst: the lowest
/// when maximizing, else the highest; NaN wins). Sums start from symbol 0's value and run in
/// symbol order, so one symbol gives its own value, bit for bit. The score part of
/// aggregate_symbols and of every fold's score (aggregate_symbols_folded).
template <typename Value>
TPEOPT_HD_INLINE double combine_symbols(int S, Aggregate a, int maximize, Value&& value) {
  if (a == Aggregate::Worst) {
    double w = value(0);
    for (int s = 1; s < S; ++s) {
      const double v = value(s);
      if (v != v || (maximize ? v < w : v > w)) w = v;
      if (w != w) break;  // NaN: the trial failed
    }
    return w;
  }
  double acc = value(0);
  for (int s = 1; s < S; ++s) acc = acc + value(s);
  return a == Aggregate::Sum ? acc : acc / static_cast<double>(S);
}

/// The trial's score, violation (min_trades - total trades, or 0) and metrics over S >= 1
/// symbols.
TPEOPT_HD_INLINE double aggregate_symbols(const SymbolRows& r, int S, const AggregateSpec& spec, double* metrics,
                                          double* violation) {
  const double n = static_cast<double>(S);
  // Score.
  const double score = spec.aggregate == Aggregate::Portfolio
                           ? combine_symbols(S, Aggregate::Mean, spec.maximize,
                                             [&](int s) { return r.equity[s * r.equity_stride] - 1.0; })
                           : combine_symbols(S, spec.aggregate, spec.maximize,
                                             [&](int s) { return r.objective[s * r.objective_stride]; });
  // Metrics.
  for (int k = 0; k < spec.n_metrics; ++k) {
    const int kind = spec.kinds[k];
    const bool worst = spec.aggregate == Aggregate::Worst && kind != kCount && kind != kAverage;
    const bool lower = kind == kLowerBetter;  // worst = the highest
    double acc = r.metrics[k];
    for (int s = 1; s < S; ++s) {
      const double v = r.metrics[s * r.metrics_stride + k];
      if (!worst) acc = acc + v;
      else if (acc == acc && (v != v || (lower ? v > acc : v < acc))) acc = v;
    }
    const bool summed = kind == kCount || (kind == kAdditive && spec.aggregate == Aggregate::Sum);
    metrics[k] = worst || summed ? acc : acc / n;
  }
  const double trades = metrics[spec.count_metric];
  *violation = trades < static_cast<double>(spec.min_trades) ? static_cast<double>(spec.min_trades) - trades : 0.0;
  return score;
}

/// aggregate_symbols for a folded strategy (strategies/folds.hpp; docs/strategies.md, "Folds"):
/// each symbol's row holds spec.n_metrics base columns, then K folds' columns (FoldColumn),
/// so r.metrics_stride >= spec.n_metrics + 4 K. Writes the base metrics as aggregate_symbols
/// does, then per fold k: fold{k}_score, the symbols' fold scores combined by the aggregate
/// (combine_symbols; for Portfolio the symbols' fold scores are their fold compound returns,
/// so their mean), and fold{k}_n, _sum, _sumsq summed over the symbols in order (the pooled
/// moments). Returns the score: rule All = aggregate_symbols' score, bit for bit; else
/// across_folds_score over the K combined fold scores. One symbol gives its own columns
/// and score, bit for bit (a sum of one value is that value, a division by 1 exact).
TPEOPT_HD_INLINE double aggregate_symbols_folded(const SymbolRows& r, int S, const AggregateSpec& spec, int K,
                                                 const FoldRule& rule, double* metrics, double* violation) {
  const double whole = aggregate_symbols(r, S, spec, metrics, violation);
  const Aggregate fold_aggregate = spec.aggregate == Aggregate::Portfolio ? Aggregate::Mean : spec.aggregate;
  double v[kMaxFolds];
  for (int k = 0; k < K; ++k) {
    const int base = spec.n_metrics + k * kFoldColumns;
    v[k] = combine_symbols(S, fold_aggregate, spec.maximize,
                           [&](int s) { return r.metrics[s * r.metrics_stride + base + kFoldScore]; });
    metrics[base + kFoldScore] = v[k];
    for (int c = kFoldN; c < kFoldColumns; ++c) {
      double acc = r.metrics[base + c];
      for (int s = 1; s < S; ++s) acc = acc + r.metrics[s * r.metrics_stride + base + c];
      metrics[base + c] = acc;
    }
  }
  if (rule.rule == static_cast<int>(AcrossFolds::Rule::All)) return whole;
  return across_folds_score(v, K, rule);
}

}  // namespace tpeopt::strategies::symbols
