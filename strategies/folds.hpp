#pragma once
// Time folds of a strategy's span, scored in the same walk (docs/strategies.md, "Folds"): the
// folds as a config gives them (FoldSpec), how fold scores become a trial's score
// (AcrossFolds), and the TPEOPT_HD pieces every walk shares, on the CPU and in the CUDA
// kernels: which fold a trade entered at a given bar belongs to (fold_of) and the rule over
// the K fold scores (across_folds_score). The per-fold accumulation of trade statistics is
// strategies/trade_stats.hpp's FoldSummaries.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "common/hd.hpp"

namespace tpeopt::strategies {

/// Contiguous time folds of a strategy's span, in atoms (bars for candle data, trading days for
/// a trade log). edges: K + 1 strictly increasing atom indices; fold k is [edges[k], edges[k+1]).
/// embargo: atoms after each inner boundary in which a trade that starts is not counted.
struct FoldSpec {
  std::vector<std::size_t> edges;
  std::size_t embargo = 0;
  std::size_t n_folds() const { return edges.empty() ? 0 : edges.size() - 1; }
};

/// How fold scores become the trial's score (objective.across_folds).
struct AcrossFolds {
  enum class Rule { All, Mean, Min, Quantile, MeanMinusStd } rule = Rule::All;
  double q = 0.5, lambda = 1.0;
};

/// The most folds a walk keeps (data.folds: 2 .. 64): the fold statistics live in a fixed
/// array of each trial's walk, in a CUDA thread's local memory.
constexpr int kMaxFolds = 64;

/// A walk's folds in its own bar numbering (host or device pointers): fold k is bars
/// [edge[k], edge[k + 1]), and a trade entered at a bar in [edge[k], embargo_end[k]) of an
/// inner boundary k (1 <= k < n) is counted in no fold. n = 0: no folds.
struct FoldBars {
  int n = 0;
  const int* edge = nullptr;         ///< n + 1 increasing bar indices
  const int* embargo_end = nullptr;  ///< n entries; embargo_end[0] == edge[0] (no embargo before the first fold)
};

/// The fold of a trade entered at `bar`, or -1: before the first fold, at or after the end of
/// the last, or inside an embargo. A binary search over K <= 64 edges: no state between trades.
TPEOPT_HD_INLINE int fold_of(const FoldBars& f, int bar) {
  if (f.n <= 0 || bar < f.edge[0] || bar >= f.edge[f.n]) return -1;
  int lo = 0, hi = f.n;  // edge[lo] <= bar < edge[hi]
  while (hi - lo > 1) {
    const int mid = (lo + hi) / 2;
    if (bar < f.edge[mid]) hi = mid;
    else lo = mid;
  }
  return bar < f.embargo_end[lo] ? -1 : lo;
}

/// The rule as plain numbers, for the kernels (AcrossFolds::Rule's order).
struct FoldRule {
  int rule = 0;  ///< AcrossFolds::Rule
  double q = 0.5, lambda = 1.0;
  int maximize = 1;  ///< the objective's direction: "min" is the worst fold, so the highest when minimizing
};

inline FoldRule fold_rule(const AcrossFolds& a, bool maximize) {
  return {static_cast<int>(a.rule), a.q, a.lambda, maximize ? 1 : 0};
}

/// The trial's score from its K >= 1 fold scores v (sorted in place for Quantile), for a rule
/// other than All (whose score is the whole span's, computed by the walk):
///  - Mean: (v[0] + ... + v[K-1]) / K, summed in fold order;
///  - Min: the worst fold (the lowest when maximizing, else the highest);
///  - Quantile: NumPy's default ("linear") quantile q of v after an insertion sort, h = q (K - 1),
///    v[floor h] + (h - floor h) (v[floor h + 1] - v[floor h]); when minimizing, quantile 1 - q;
///  - MeanMinusStd: mean - lambda * sd (population sd, two passes in fold order); when
///    minimizing, mean + lambda * sd.
/// NaN in any fold gives NaN (the trial failed).
TPEOPT_HD_INLINE double across_folds_score(double* v, int K, const FoldRule& r) {
  for (int k = 0; k < K; ++k)
    if (v[k] != v[k]) return v[k];
  double sum = 0.0;
  for (int k = 0; k < K; ++k) sum = sum + v[k];
  const double mean = sum / static_cast<double>(K);
  switch (static_cast<AcrossFolds::Rule>(r.rule)) {
    case AcrossFolds::Rule::Min: {
      double w = v[0];
      for (int k = 1; k < K; ++k)
        if (r.maximize ? v[k] < w : v[k] > w) w = v[k];
      return w;
    }
    case AcrossFolds::Rule::Quantile: {
      for (int i = 1; i < K; ++i) {  // insertion sort: deterministic, K <= 64
        const double x = v[i];
        int j = i - 1;
        while (j >= 0 && v[j] > x) {
          v[j + 1] = v[j];
          --j;
        }
        v[j + 1] = x;
      }
      const double q = r.maximize ? r.q : 1.0 - r.q;
      const double h = q * static_cast<double>(K - 1);
      const double fl = floor(h);
      const int lo = static_cast<int>(fl);
      if (lo >= K - 1) return v[K - 1];
      return v[lo] + (h - fl) * (v[lo + 1] - v[lo]);
    }
    case AcrossFolds::Rule::MeanMinusStd: {
      double ss = 0.0;
      for (int k = 0; k < K; ++k) ss = ss + (v[k] - mean) * (v[k] - mean);
      const double sd = sqrt(ss / static_cast<double>(K));
      return r.maximize ? mean - r.lambda * sd : mean + r.lambda * sd;
    }
    case AcrossFolds::Rule::Mean:
    case AcrossFolds::Rule::All:
      break;
  }
  return mean;
}

/// The per-fold metric columns of a folded strategy (after its base metrics): per fold k
/// "fold{k}_score", "fold{k}_n", "fold{k}_sum", "fold{k}_sumsq".
enum FoldColumn : int { kFoldScore = 0, kFoldN, kFoldSum, kFoldSumSq, kFoldColumns };

/// `base` followed by the fold columns of K folds.
std::vector<std::string> fold_metric_names(const std::vector<std::string>& base, std::size_t K);

/// The name objective.across_folds gives a rule ("all", "mean", ...).
const char* across_folds_name(AcrossFolds::Rule rule);

/// Checks a FoldSpec against a span of `n_atoms` atoms: 1 .. kMaxFolds folds, strictly
/// increasing edges inside the span, an embargo shorter than every fold. Throws Error.
void check_fold_spec(const FoldSpec& folds, std::size_t n_atoms);

/// A walk's folds in its bar numbering: `atom_to_bar(a)` is the first bar at or after atom a.
template <typename AtomToBar>
void fold_bars_of(const FoldSpec& folds, AtomToBar&& atom_to_bar, std::vector<int>& edge,
                  std::vector<int>& embargo_end) {
  const std::size_t K = folds.n_folds();
  edge.assign(K + 1, 0);
  embargo_end.assign(K, 0);
  for (std::size_t k = 0; k <= K; ++k) edge[k] = static_cast<int>(atom_to_bar(folds.edges[k]));
  for (std::size_t k = 0; k < K; ++k) {
    const std::size_t end = k == 0 ? folds.edges[0] : std::min(folds.edges[k] + folds.embargo, folds.edges[k + 1]);
    embargo_end[k] = static_cast<int>(atom_to_bar(end));
  }
}

}  // namespace tpeopt::strategies
