#include "selection/deflated_sharpe.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include <boost/math/distributions/normal.hpp>

#include "common/error.hpp"

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

double sharpe_z(double sharpe, double n_observations, double skewness, double kurtosis) {
  const double adjustment = 1.0 - skewness * sharpe + (kurtosis - 1.0) / 4.0 * sharpe * sharpe;
  if (!(n_observations >= 2.0) || !std::isfinite(sharpe) || !(adjustment > 0.0)) return NAN;
  return sharpe * std::sqrt(n_observations - 1.0) / std::sqrt(adjustment);
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
  // E[max z] in the best trial's standard errors: the Sharpe ratio it had to beat.
  const double adjustment = 1.0 - d.skewness * d.sharpe + (d.kurtosis - 1.0) / 4.0 * d.sharpe * d.sharpe;
  d.expected_max_sharpe = std::isnan(d.z) ? NAN : d.expected_max_z * std::sqrt(adjustment / (d.n_observations - 1.0));
  d.dsr = std::isnan(d.z) ? NAN : boost::math::cdf(kStandardNormal, d.z - d.expected_max_z);
  return d;
}

}  // namespace tpeopt::selection
