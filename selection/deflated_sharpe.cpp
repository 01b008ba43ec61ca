#include "selection/deflated_sharpe.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include <boost/math/distributions/normal.hpp>

#include "common/error.hpp"
#include "selection/student_t_z.hpp"

namespace tpeopt::selection {

namespace {
const boost::math::normal_distribution<double> kStandardNormal(0.0, 1.0);
}

double expected_max_sharpe(double n_trials, double sharpe_variance) {
  if (!(n_trials >= 1.0) || !std::isfinite(n_trials))
    throw make_error("expected maximum Sharpe ratio: the number of trials must be at least 1, got {}", n_trials);
  if (!(sharpe_variance >= 0.0) || !std::isfinite(sharpe_variance))
    throw make_error(
        "expected maximum Sharpe ratio: the variance of the trials' Sharpe ratios must be finite and "
        "non-negative, got {}",
        sharpe_variance);
  if (n_trials == 1.0 || sharpe_variance == 0.0) return 0.0;
  const double z1 = boost::math::quantile(kStandardNormal, 1.0 - 1.0 / n_trials);
  const double z2 = boost::math::quantile(kStandardNormal, 1.0 - 1.0 / (n_trials * std::numbers::e));
  return std::sqrt(sharpe_variance) * ((1.0 - kEulerGamma) * z1 + kEulerGamma * z2);
}

double probabilistic_sharpe(double sharpe, double n_observations, double skewness, double kurtosis,
                            double benchmark_sharpe) {
  const double adjustment = 1.0 - skewness * sharpe + (kurtosis - 1.0) / 4.0 * sharpe * sharpe;
  if (!(n_observations >= 3.0) || !(adjustment > 0.0) || !std::isfinite(sharpe) || !std::isfinite(benchmark_sharpe))
    return NAN;
  const double z = (sharpe - benchmark_sharpe) * std::sqrt(n_observations - 1.0) / std::sqrt(adjustment);
  return boost::math::cdf(kStandardNormal, z);
}

double sharpe_variance(const std::vector<double>& sharpes, const std::vector<double>& weights) {
  if (!weights.empty() && weights.size() != sharpes.size())
    throw make_error("Sharpe variance: {} weights for {} Sharpe ratios", weights.size(), sharpes.size());
  double w_sum = 0.0, weighted = 0.0;
  for (std::size_t i = 0; i < sharpes.size(); ++i) {
    if (std::isnan(sharpes[i])) continue;
    const double w = weights.empty() ? 1.0 : weights[i];
    w_sum += w, weighted += w * sharpes[i];
  }
  if (!(w_sum > 1.0)) return NAN;
  const double mean = weighted / w_sum;
  double squares = 0.0;
  for (std::size_t i = 0; i < sharpes.size(); ++i) {
    if (std::isnan(sharpes[i])) continue;
    const double w = weights.empty() ? 1.0 : weights[i], d = sharpes[i] - mean;
    squares += w * d * d;
  }
  return squares / (w_sum - 1.0);
}

namespace {

/// The PSR's variance factor of the estimated Sharpe ratio, 1 - skew SR + (kurtosis - 1) / 4 SR^2.
double psr_variance_factor(double sharpe, double skewness, double kurtosis) {
  return 1.0 - skewness * sharpe + (kurtosis - 1.0) / 4.0 * sharpe * sharpe;
}

/// That factor relative to normal returns' (skew 0, kurtosis 3: 1 + SR^2 / 2): how much the
/// returns' skewness and kurtosis widen the Sharpe ratio's standard error. Exactly 1 for the
/// normal values. Only this ratio divides t: the map through Student's t already holds the
/// normal part (for many returns it gives about SR sqrt(T) / sqrt(1 + SR^2 / 2)), and the whole
/// factor would count it twice. NaN when the factor is not positive.
double non_normality_ratio(double sharpe, double skewness, double kurtosis) {
  const double factor = psr_variance_factor(sharpe, skewness, kurtosis);
  if (!(factor > 0.0)) return NAN;
  return factor / psr_variance_factor(sharpe, 0.0, 3.0);
}

}  // namespace

double sharpe_t(double sharpe, double n_observations, double skewness, double kurtosis) {
  if (!(n_observations >= 2.0) || !std::isfinite(sharpe)) return NAN;
  const double ratio = non_normality_ratio(sharpe, skewness, kurtosis);
  if (std::isnan(ratio)) return NAN;
  return sharpe * std::sqrt(n_observations) / std::sqrt(ratio);
}

double sharpe_z(double sharpe, double n_observations, double skewness, double kurtosis) {
  const double t = sharpe_t(sharpe, n_observations, skewness, kurtosis);
  return std::isnan(t) ? NAN : z_of_t(t, n_observations - 1.0);
}

DeflatedSharpe deflated_sharpe(double n_trials, double variance, const HigherMoments& best) {
  DeflatedSharpe d;
  d.n_trials = n_trials;
  d.sharpe_variance = variance;
  d.expected_max_sharpe = expected_max_sharpe(n_trials, variance);
  d.sharpe = best.sharpe;
  d.n_observations = static_cast<double>(best.n);
  d.skewness = best.skewness;
  d.kurtosis = best.kurtosis;
  d.dsr = probabilistic_sharpe(d.sharpe, d.n_observations, d.skewness, d.kurtosis, d.expected_max_sharpe);
  return d;
}

DeflatedSharpe standardized_deflated_sharpe(double n_trials, double z_variance, const HigherMoments& best) {
  DeflatedSharpe d;
  d.method = Deflation::Standardized;
  d.n_trials = n_trials;
  d.sharpe_variance = z_variance;
  // Without an edge each z has variance 1: the variance across trials is 1 - V[mean z] at most.
  d.null_z_variance = std::min(z_variance, 1.0);
  d.expected_max_z = expected_max_sharpe(n_trials, d.null_z_variance);
  d.sharpe = best.sharpe;
  d.n_observations = static_cast<double>(best.n);
  d.skewness = best.skewness;
  d.kurtosis = best.kurtosis;
  d.z = sharpe_z(d.sharpe, d.n_observations, d.skewness, d.kurtosis);
  // The Sharpe ratio the best trial had to beat: the one whose z at its T, skewness and
  // kurtosis is E[max z] (its sharpe_t, with the best's non-normality ratio, at t_of_z(E[max z])).
  d.expected_max_sharpe = std::isnan(d.z)
                              ? NAN
                              : t_of_z(d.expected_max_z, d.n_observations - 1.0) *
                                    std::sqrt(non_normality_ratio(d.sharpe, d.skewness, d.kurtosis) / d.n_observations);
  d.dsr = std::isnan(d.z) ? NAN : boost::math::cdf(kStandardNormal, d.z - d.expected_max_z);
  return d;
}

}  // namespace tpeopt::selection
