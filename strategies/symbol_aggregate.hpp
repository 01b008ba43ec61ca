#pragma once
// A trial's score across the symbols of a candle data set (docs/strategies.md, "Candle data sets of many symbols"),
// written ONCE as TPEOPT_HD code: the CPU reference and the CUDA aggregation kernels call this function,
// so both give the same bits. docs/strategies.md, "Scores across symbols", states the rules.
//
// Exact and order-independent (docs/design.md, "Parity: CPU == CUDA"): every sum runs over the symbols in
// their fixed order (by name), left to right, starting from the first symbol's value (so
// one symbol gives its own value, bit for bit); no atomics; each trial on its own.
#include "common/hd.hpp"

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

/// The trial's score, violation (min_trades - total trades, or 0) and metrics over S >= 1
/// symbols.
TPEOPT_HD_INLINE double aggregate_symbols(const SymbolRows& r, int S, const AggregateSpec& spec, double* metrics,
                                          double* violation) {
  const double n = static_cast<double>(S);
  // Score.
  double score = 0.0;
  if (spec.aggregate == Aggregate::Portfolio) {
    double acc = r.equity[0] - 1.0;
    for (int s = 1; s < S; ++s) acc = acc + (r.equity[s * r.equity_stride] - 1.0);
    score = acc / n;
  } else if (spec.aggregate == Aggregate::Worst) {
    double w = r.objective[0];
    for (int s = 1; s < S; ++s) {
      const double v = r.objective[s * r.objective_stride];
      if (v != v || (spec.maximize ? v < w : v > w)) w = v;
      if (w != w) break;  // NaN: the trial failed
    }
    score = w;
  } else {
    double acc = r.objective[0];
    for (int s = 1; s < S; ++s) acc = acc + r.objective[s * r.objective_stride];
    score = spec.aggregate == Aggregate::Mean ? acc / n : acc;
  }
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

}  // namespace tpeopt::strategies::symbols
