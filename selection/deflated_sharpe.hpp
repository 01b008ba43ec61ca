#pragma once
// The Deflated Sharpe Ratio (Bailey and Lopez de Prado, "The Deflated Sharpe Ratio: Correcting
// for Selection Bias, Backtest Overfitting, and Non-Normality", Journal of Portfolio Management
// 40(5), 2014): the probability that the best of N trials has a true Sharpe ratio above what
// the best of N trials without any edge would show. Every Sharpe ratio here is per observation
// and not annualized (selection/return_moments.hpp).
#include <cstddef>
#include <vector>

#include "selection/return_moments.hpp"

namespace tpeopt::selection {

/// The Euler-Mascheroni constant.
inline constexpr double kEulerGamma = 0.57721566490153286060651209008240243;

/// The expected maximum Sharpe ratio of N independent trials whose true Sharpe ratios are 0 and
/// whose estimates vary with `sharpe_variance` (the paper's SR_0, its equation (2) with
/// E[max] from its appendix): sqrt(V) ((1 - gamma) Z^-1(1 - 1/N) + gamma Z^-1(1 - 1/(N e))).
/// 0 for N = 1 or V = 0 (no selection to correct for). Throws Error for N < 1 or V < 0.
double expected_max_sharpe(double n_trials, double sharpe_variance);

/// The Probabilistic Sharpe Ratio (Bailey and Lopez de Prado 2012; the DSR paper's equation
/// (2)): Z[(SR - SR*) sqrt(T - 1) / sqrt(1 - skew SR + (kurtosis - 1) / 4 SR^2)], with T the
/// number of observations and kurtosis not excess. NaN when T < 3 or the denominator is not
/// positive.
double probabilistic_sharpe(double sharpe, double n_observations, double skewness, double kurtosis,
                            double benchmark_sharpe);

/// The variance of trials' Sharpe ratios (NaN ones left out), each counted `weights[i]` times
/// (frequency weights, empty = 1 each): sum w (x - m)^2 / (sum w - 1), the sample variance when
/// every weight is 1. NaN when the weights add up to at most 1.
double sharpe_variance(const std::vector<double>& sharpes, const std::vector<double>& weights = {});

/// Everything the DSR of the best trial is made of.
struct DeflatedSharpe {
  double n_trials = 0.0;             ///< N
  double sharpe_variance = 0.0;      ///< V[SR] across the trials
  double expected_max_sharpe = 0.0;  ///< SR_0
  double sharpe = 0.0;               ///< the best trial's SR
  double n_observations = 0.0;       ///< its T
  double skewness = 0.0, kurtosis = 3.0;
  double dsr = 0.0;  ///< PSR(SR_0)
};

/// The DSR of the best trial, whose own returns gave `best`.
DeflatedSharpe deflated_sharpe(double n_trials, double sharpe_variance, const HigherMoments& best);

}  // namespace tpeopt::selection
