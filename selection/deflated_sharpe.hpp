#pragma once
// The Deflated Sharpe Ratio (Bailey and Lopez de Prado, "The Deflated Sharpe Ratio: Correcting
// for Selection Bias, Backtest Overfitting, and Non-Normality", Journal of Portfolio Management
// 40(5), 2014): the probability that the best of N trials has a true Sharpe ratio above what
// the best of N trials without any edge would show. Every Sharpe ratio here is per observation
// and not annualized (selection/return_moments.hpp).
#include <cmath>
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

/// A trial's t statistic, adjusted for non-normal returns: SR sqrt(T) / sqrt(r) with
/// r = (1 - skew SR + (kurtosis - 1) / 4 SR^2) / (1 + SR^2 / 2), the PSR's variance factor of
/// the estimated Sharpe ratio relative to normal returns' (exactly 1 for skew 0, kurtosis 3).
/// SR is mean / s with s of T - 1 degrees of freedom (sharpe_per_observation), so for normal
/// returns SR sqrt(T) is the t statistic of the mean return, Student's t with T - 1 degrees of
/// freedom when the true mean is 0. NaN when T < 2, SR is not finite or the PSR's factor is
/// not positive.
double sharpe_t(double sharpe, double n_observations, double skewness = 0.0, double kurtosis = 3.0);

/// A trial's Sharpe ratio as a standard normal z: z_of_t(sharpe_t, T - 1), the normal z of
/// the same tail probability as its t statistic has under Student's t with T - 1 degrees of
/// freedom (docs/will-it-hold-up.md, "Trials of different lengths"). Without an edge and with
/// normal returns it is exactly N(0, 1) whatever T is; for large T it is the PSR's statistic
/// SR sqrt(T - 1) / sqrt(1 - skew SR + (kurtosis - 1) / 4 SR^2) up to terms in 1 / T and SR^4.
/// NaN where sharpe_t is.
double sharpe_z(double sharpe, double n_observations, double skewness = 0.0, double kurtosis = 3.0);

/// How the DSR's benchmark was made (docs/will-it-hold-up.md, "The Deflated Sharpe Ratio").
enum class Deflation {
  /// The paper's: SR_0 = E[max] of N trials from one variance of the trials' Sharpe ratios.
  SharpeVariance,
  /// Every trial's Sharpe ratio made a standard normal z first (sharpe_z):
  /// E[max z] of N trials from the variance of the z's (at most 1, the variance of each z
  /// without an edge), and DSR = Z[z_best - E[max z]].
  Standardized,
};

/// Everything the DSR of the best trial is made of.
struct DeflatedSharpe {
  Deflation method = Deflation::SharpeVariance;
  double n_trials = 0.0;         ///< N
  double sharpe_variance = 0.0;  ///< V[SR] across the trials (SharpeVariance); V[z] (Standardized)
  /// Standardized: min(V[z], 1), the variance E[max z] is taken from; NaN otherwise.
  double null_z_variance = NAN;
  /// SR_0: the benchmark Sharpe ratio the best is deflated by. Standardized: the Sharpe ratio
  /// whose sharpe_z at the best trial's T, skewness and kurtosis (its non-normality ratio r) is
  /// E[max z], t_of_z(E[max z], T - 1) sqrt(r / T): DSR >= 0.5 exactly when SR >= SR_0.
  double expected_max_sharpe = 0.0;
  double sharpe = 0.0;          ///< the best trial's SR
  double n_observations = 0.0;  ///< its T
  double skewness = 0.0, kurtosis = 3.0;
  double z = NAN;               ///< Standardized: the best trial's sharpe_z; NaN otherwise
  double expected_max_z = NAN;  ///< Standardized: E[max z] of N trials; NaN otherwise
  double dsr = 0.0;             ///< PSR(SR_0) (SharpeVariance); Z[z - E[max z]] (Standardized)
};

/// The DSR of the best trial, whose own returns gave `best`, as the paper defines it:
/// SR_0 = expected_max_sharpe(N, V[SR]).
DeflatedSharpe deflated_sharpe(double n_trials, double sharpe_variance, const HigherMoments& best);

/// The DSR of the best trial over trials of different lengths: `z_variance` is the variance of
/// the trials' sharpe_z across trials, E[max z] = expected_max_sharpe(N, min(V[z], 1)) and
/// DSR = Z[z_best - E[max z]] with z_best = sharpe_z of `best` (its own skewness and kurtosis).
/// Without an edge every z has mean 0 and variance 1, so the variance across trials is
/// 1 - V[mean z] <= 1 whatever their correlation; more is a spread of true Sharpe ratios that
/// the null hypothesis excludes (docs/will-it-hold-up.md). NaN DSR when z_best is NaN.
DeflatedSharpe standardized_deflated_sharpe(double n_trials, double z_variance, const HigherMoments& best);

}  // namespace tpeopt::selection
