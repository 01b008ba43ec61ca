#include "selection/return_moments.hpp"

#include <cmath>

#include "common/error.hpp"

namespace tpeopt::selection {

double sharpe_per_observation(const Moments& m) {
  if (!(m.n >= 2.0)) return NAN;
  const double mean = m.sum / m.n;
  const double variance = (m.sumsq - m.sum * mean) / (m.n - 1.0);
  if (!(variance > 1e-10 * (mean * mean))) return 0.0;
  return mean / std::sqrt(variance);
}

HigherMoments higher_moments(const std::vector<double>& returns) {
  if (returns.size() < 2) throw make_error("higher moments of {} return(s): at least 2 are needed", returns.size());
  HigherMoments h;
  h.n = returns.size();
  const double n = static_cast<double>(h.n);
  double sum = 0.0;
  for (double r : returns) sum += r;
  h.mean = sum / n;
  double m2 = 0.0, m3 = 0.0, m4 = 0.0;
  for (double r : returns) {
    const double d = r - h.mean, d2 = d * d;
    m2 += d2, m3 += d2 * d, m4 += d2 * d2;
  }
  m2 /= n, m3 /= n, m4 /= n;
  const double sample_variance = m2 * n / (n - 1.0);
  if (!(sample_variance > 1e-10 * (h.mean * h.mean))) {
    h.sharpe = 0.0;  // no spread: no Sharpe ratio, and the moments of a normal series
    return h;
  }
  h.sharpe = h.mean / std::sqrt(sample_variance);
  h.skewness = m3 / std::pow(m2, 1.5);
  h.kurtosis = m4 / (m2 * m2);
  return h;
}

}  // namespace tpeopt::selection
