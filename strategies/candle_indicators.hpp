#pragma once
// Indicators of candle series that several strategies read, written ONCE as TPEOPT_HD code
// (docs/design.md, "Parity: CPU == CUDA"): the CPU references and the CUDA twins call these
// functions, in this operation order, so their bits agree. Only +, -, *, /, fabs and sqrt on
// doubles (IEEE on both sides, contraction off); sums run left to right.
#include <cmath>

#include "common/hd.hpp"

namespace tpeopt::strategies {

/// TR_0 = high_0 - low_0; TR_i = max(high_i - low_i, |high_i - close_{i-1}|, |low_i - close_{i-1}|).
TPEOPT_HD_INLINE double true_range(const double* high, const double* low, const double* close, int i) {
  const double hl = high[i] - low[i];
  if (i == 0) return hl;
  const double hc = fabs(high[i] - close[i - 1]);
  const double lc = fabs(low[i] - close[i - 1]);
  double m = hl;
  if (hc > m) m = hc;
  if (lc > m) m = lc;
  return m;
}

/// The average true range over the w bars ending at i (needs i + 1 >= w): the sum of their
/// true ranges, left to right from bar i - w + 1, divided by w.
TPEOPT_HD_INLINE double average_true_range(const double* high, const double* low, const double* close, int i, int w) {
  double s = 0.0;
  for (int k = i - w + 1; k <= i; ++k) s = s + true_range(high, low, close, k);
  return s / static_cast<double>(w);
}

/// The mean of x over the w bars ending at i (needs i + 1 >= w) and their population
/// standard deviation, in two passes: mean = (sum, left to right) / w, then
/// sd = sqrt((sum of (x - mean) * (x - mean), left to right) / w).
TPEOPT_HD_INLINE void window_mean_sd(const double* x, int i, int w, double* mean, double* sd) {
  double s = 0.0;
  for (int k = i - w + 1; k <= i; ++k) s = s + x[k];
  const double m = s / static_cast<double>(w);
  double q = 0.0;
  for (int k = i - w + 1; k <= i; ++k) {
    const double d = x[k] - m;
    q = q + d * d;
  }
  *mean = m;
  *sd = sqrt(q / static_cast<double>(w));
}

/// The highest x over the n bars before i, max(x_{i-n}, ..., x_{i-1}) (needs i >= n >= 1).
TPEOPT_HD_INLINE double highest_before(const double* x, int i, int n) {
  double m = x[i - n];
  for (int k = i - n + 1; k < i; ++k)
    if (x[k] > m) m = x[k];
  return m;
}

/// The lowest x over the n bars before i, min(x_{i-n}, ..., x_{i-1}) (needs i >= n >= 1).
TPEOPT_HD_INLINE double lowest_before(const double* x, int i, int n) {
  double m = x[i - n];
  for (int k = i - n + 1; k < i; ++k)
    if (x[k] < m) m = x[k];
  return m;
}

}  // namespace tpeopt::strategies
