#pragma once
// Return observations summed up: the per-observation Sharpe ratio of any union of sub-periods
// from their (count, sum, sum of squares), exactly as from the returns themselves, and the
// higher moments of one series (docs/will-it-hold-up.md, "Which Sharpe ratio").
#include <cstddef>
#include <vector>

namespace tpeopt::selection {

/// Count, sum and sum of squares of return observations: of a union of disjoint sub-periods,
/// the sums of theirs.
struct Moments {
  double n = 0.0, sum = 0.0, sumsq = 0.0;
  Moments& operator+=(const Moments& o) {
    n += o.n, sum += o.sum, sumsq += o.sumsq;
    return *this;
  }
};

/// The per-observation, non-annualized Sharpe ratio mean / s with s the sample standard
/// deviation (n - 1 in the denominator, as skfolio's and NumPy's ddof=1): NaN with fewer than
/// 2 observations, 0 for returns without spread (variance <= 1e-10 mean^2, as every Sharpe
/// ratio of tpeopt: docs/strategies.md, "The Sharpe ratio of constant returns").
double sharpe_per_observation(const Moments& m);

/// What the Deflated Sharpe Ratio needs of the selected trial's own returns.
struct HigherMoments {
  std::size_t n = 0;
  double mean = 0.0;
  double sharpe = 0.0;    ///< sharpe_per_observation of the series
  double skewness = 0.0;  ///< population standardized third moment (0 for normal returns)
  double kurtosis = 3.0;  ///< population standardized fourth moment, not excess (3 for normal returns)
};

/// The moments of one return series (two passes about the mean). Throws Error with fewer than
/// 2 observations.
HigherMoments higher_moments(const std::vector<double>& returns);

}  // namespace tpeopt::selection
