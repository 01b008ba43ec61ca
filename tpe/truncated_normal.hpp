#pragma once
// The standard normal distribution and its truncation to [a, b], in double, stable in
// the tails. The numerics follow Optuna's optuna/samplers/_tpe/_truncnorm.py (itself
// from SciPy): log-CDF from erfc with an asymptotic series below -20, the log of the
// mass of an interval computed on the left tail (flipping right-tail intervals), and
// the inverse CDF taken on log probabilities. The inverse uses Wichura's AS241
// rational approximation (about 1e-16 relative) instead of Optuna's Newton iteration.
//
// All functions here are deterministic given the platform's std::erf/erfc/log/exp.
#include <algorithm>
#include <cmath>
#include <limits>

namespace tpeopt::tpe::truncnorm {

/// log(sqrt(2 pi)).
inline constexpr double kLogSqrt2Pi = 0.91893853320467274178032973640562;

/// log(exp(x) + exp(y)) without overflow; -inf when both are -inf.
inline double log_add_exp(double x, double y) {
  const double m = std::max(x, y);
  if (m == -std::numeric_limits<double>::infinity()) return m;
  return m + std::log1p(std::exp(-std::fabs(x - y)));
}

/// Phi(a), the standard normal CDF (Optuna's _ndtr_single: erfc in both tails).
inline double ndtr(double a) {
  const double x = a / 1.4142135623730951;  // a / sqrt(2), as Python's a / 2**0.5
  if (x < -0.7071067811865475) return 0.5 * std::erfc(-x);
  if (x < 0.7071067811865475) return 0.5 + 0.5 * std::erf(x);
  return 1.0 - 0.5 * std::erfc(x);
}

/// log Phi(a), accurate for every a (asymptotic series below -20; log1p(-Phi(-a)) for
/// a > 0, where Optuna takes log Phi(a) up to 6 and loses digits; it never uses that
/// range for densities).
inline double log_ndtr(double a) {
  if (a > 0.0) return std::log1p(-ndtr(-a));
  if (a > -20.0) return std::log(ndtr(a));
  if (a == -std::numeric_limits<double>::infinity()) return a;
  // log Phi(a) = log(phi(a) / -a) + log(1 - 1/a^2 + 3/a^4 - 15/a^6 + ...)
  const double log_lhs = -0.5 * a * a - std::log(-a) - kLogSqrt2Pi;
  const double denom_cons = 1.0 / (a * a);
  double last_total = 0.0, rhs = 1.0, numerator = 1.0, denom_factor = 1.0, sign = 1.0;
  for (int i = 1; i < 200 && std::fabs(last_total - rhs) > std::numeric_limits<double>::epsilon(); ++i) {
    last_total = rhs;
    sign = -sign;
    denom_factor *= denom_cons;
    numerator *= 2.0 * i - 1.0;
    rhs += sign * numerator * denom_factor;
  }
  return log_lhs + std::log(rhs);
}

/// log(Phi(b) - Phi(a)) for a <= b: the log of the standard normal mass of [a, b].
/// -inf when a == b.
inline double log_gauss_mass(double a, double b) {
  // log(exp(lp) - exp(lq)) for lq <= lp.
  auto log_diff = [](double lp, double lq) { return lp + std::log1p(-std::exp(lq - lp)); };
  if (b <= 0.0) return log_diff(log_ndtr(b), log_ndtr(a));
  if (a > 0.0) return log_diff(log_ndtr(-a), log_ndtr(-b));
  // The interval holds 0: 1 - (mass left of a) - (mass right of b), without cancellation.
  return std::log1p(-ndtr(a) - ndtr(-b));
}

namespace detail {
// AS241 (Wichura 1988), the central region |p - 0.5| <= 0.425, q = p - 0.5.
inline double as241_central(double q) {
  const double r = 0.180625 - q * q;
  const double num =
      (((((((2.5090809287301226727e+3 * r + 3.3430575583588128105e+4) * r + 6.7265770927008700853e+4) * r +
           4.5921953931549871457e+4) *
              r +
          1.3731693765509461125e+4) *
             r +
         1.9715909503065514427e+3) *
            r +
        1.3314166789178437745e+2) *
           r +
       3.3871328727963666080e+0) *
      q;
  const double den =
      ((((((5.2264952788528545610e+3 * r + 2.8729085735721942674e+4) * r + 3.9307895800092710610e+4) * r +
          2.1213794301586595867e+4) *
             r +
         5.3941960214247511077e+3) *
            r +
        6.8718700749205790830e+2) *
           r +
       4.2313330701600911252e+1) *
          r +
      1.0;
  return num / den;
}
// AS241 tails: r = sqrt(-log(min(p, 1 - p))); returns |x|.
inline double as241_tail(double r) {
  double num, den;
  if (r <= 5.0) {
    r -= 1.6;
    num = ((((((7.74545014278341407640e-4 * r + 2.27238449892691845833e-2) * r + 2.41780725177450611770e-1) * r +
              1.27045825245236838258e+0) *
                 r +
             3.64784832476320460504e+0) *
                r +
            5.76949722146069140550e+0) *
               r +
           4.63033784615654529590e+0) *
              r +
          1.42343711074968357734e+0;
    den = ((((((1.05075007164441684324e-9 * r + 5.47593808499534494600e-4) * r + 1.51986665636164571966e-2) * r +
              1.48103976427480074590e-1) *
                 r +
             6.89767334985100004550e-1) *
                r +
            1.67638483018380384940e+0) *
               r +
           2.05319162663775882187e+0) *
              r +
          1.0;
  } else {
    r -= 5.0;
    num = ((((((2.01033439929228813265e-7 * r + 2.71155556874348757815e-5) * r + 1.24266094738807843860e-3) * r +
              2.65321895265761230930e-2) *
                 r +
             2.96560571828504891230e-1) *
                r +
            1.78482653991729133580e+0) *
               r +
           5.46378491116411436990e+0) *
              r +
          6.65790464350110377720e+0;
    den = ((((((2.04426310338993978564e-15 * r + 1.42151175831644588870e-7) * r + 1.84631831751005468180e-5) * r +
              7.86869131145613259100e-4) *
                 r +
             1.48753612908506148525e-2) *
                r +
            1.36929880922735805310e-1) *
               r +
           5.99832206555887937690e-1) *
              r +
          1.0;
  }
  return num / den;
}
}  // namespace detail

/// The x with log Phi(x) = y (y <= 0): the normal quantile of a log probability.
/// Accurate in both tails, down to y = -1e300.
inline double ndtri_exp(double y) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  if (y >= 0.0) return inf;
  if (y == -inf) return -inf;
  const double p = std::exp(y);
  const double q = p - 0.5;
  if (std::fabs(q) <= 0.425) return detail::as241_central(q);
  if (q < 0.0) return -detail::as241_tail(std::sqrt(-y));
  return detail::as241_tail(std::sqrt(-std::log(-std::expm1(y))));
}

/// Quantile u in [0, 1) of the standard normal truncated to [a, b] (a < b), given
/// log_mass = log_gauss_mass(a, b). Works on the left tail (flipping when a >= 0)
/// like Optuna's ppf; the result is clamped to [a, b].
inline double ppf(double u, double a, double b, double log_mass) {
  if (!(a < b)) return a;
  if (u <= 0.0) return a;
  if (u >= 1.0) return b;
  double x;
  if (a < 0.0) {
    x = ndtri_exp(log_add_exp(log_ndtr(a), std::log(u) + log_mass));
  } else {
    x = -ndtri_exp(log_add_exp(log_ndtr(-b), std::log1p(-u) + log_mass));
  }
  return std::clamp(x, a, b);
}

inline double ppf(double u, double a, double b) { return ppf(u, a, b, log_gauss_mass(a, b)); }

/// log density at z of the standard normal truncated to [a, b] (a < b): -inf outside.
inline double log_pdf(double z, double a, double b) {
  if (z < a || z > b) return -std::numeric_limits<double>::infinity();
  return -0.5 * z * z - kLogSqrt2Pi - log_gauss_mass(a, b);
}

}  // namespace tpeopt::tpe::truncnorm
