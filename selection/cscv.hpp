#pragma once
// The Probability of Backtest Overfitting by combinatorially symmetric cross-validation (CSCV;
// Bailey, Borwein, Lopez de Prado and Zhu, "The Probability of Backtest Overfitting", Journal
// of Computational Finance 20(4), 2017, section 2). The trials' returns are cut into S equal
// sub-periods; for every way of choosing S/2 of them as the in-sample set J (its complement the
// out-of-sample set), the trial best in sample is ranked out of sample. PBO is the share of
// splits where it ranks at or below the median out of sample. Beside it, two more of the paper's
// overfitting statistics from the same splits: the probability of loss (the in-sample best loses
// out of sample) and the performance degradation (out-of-sample on in-sample performance of
// the in-sample best, a line fitted over the splits).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "selection/return_moments.hpp"

namespace tpeopt::selection {

struct CscvOptions {
  std::size_t sub_periods = 16;  ///< S: even, 2 .. 64
  /// At most this many splits: all C(S, S/2) when there are no more (12,870 for S = 16), else
  /// this many distinct ones drawn with `seed`.
  std::size_t max_splits = 12870;
  std::uint64_t seed = 0;
  unsigned threads = 0;  ///< threads over the splits (0: all cores); the numbers do not depend on it
};

struct Cscv {
  std::size_t n_trials = 0, sub_periods = 0;
  double all_splits = 0.0;  ///< C(S, S/2)
  bool sampled = false;     ///< true when a seeded sample of the splits was used
  /// Per split, in the order evaluated (lexicographic in-sample sets, or the draw order):
  std::vector<std::uint64_t> in_sample_sets;  ///< bit s set: sub-period s is in sample
  std::vector<double> in_sample_sharpe;       ///< the in-sample best's in-sample Sharpe ratio
  std::vector<double> out_of_sample_sharpe;   ///< its out-of-sample Sharpe ratio
  std::vector<double> relative_rank;          ///< omega: its out-of-sample rank / (N + 1), in (0, 1)
  std::vector<double> logits;                 ///< lambda = ln(omega / (1 - omega)) (the paper's step 2e)
  double pbo = 0.0;                           ///< share of the splits with lambda <= 0
  /// Share of the splits whose in-sample best has an out-of-sample Sharpe ratio below 0 (a NaN
  /// one, no in-sample best or too few returns out of sample, counts as a loss: no evidence
  /// of a gain). The paper's Prob[R-bar_{n*} < 0].
  double probability_of_loss = 0.0;
  /// The least-squares line out_of_sample_sharpe = intercept + slope * in_sample_sharpe over the
  /// splits where both are numbers (the paper's performance degradation; a slope below 0: the
  /// higher in sample, the lower out of sample). NaN with fewer than 2 such splits or no spread
  /// in sample.
  double degradation_slope = NAN, degradation_intercept = NAN;
};

/// C(n, k) as a double (exact up to 2^53).
double binomial(std::size_t n, std::size_t k);

/// CSCV over `moments`, N trials x S sub-periods row by row (moments[i * S + s]: trial i's
/// returns in sub-period s). A trial's performance on a set of sub-periods is the Sharpe
/// ratio of their union (sharpe_per_observation of the summed moments, summed in increasing
/// sub-period order). The in-sample best is the first trial of the highest performance;
/// ranks are 1 (worst) to N, ties taking their average rank; a NaN performance is never
/// the in-sample best and ranks below every number. Throws Error for S odd or outside 2..64,
/// fewer than 2 trials, or a moments list of the wrong size.
///
/// `weights` (empty: 1 each) lets the trials stand for a larger search whose trials were not
/// all evaluated (study/selection_pass.hpp: a run's top trials count once, each sampled one for
/// the trials it was drawn from): a trial of weight w counts as w trials of its performance in
/// the ranks, so that integer weights give the ranks of the list with each trial repeated w
/// times, and omega = rank / (sum of weights + 1).
Cscv cscv(const std::vector<Moments>& moments, std::size_t n_trials, const CscvOptions& options,
          const std::vector<double>& weights = {});

}  // namespace tpeopt::selection
