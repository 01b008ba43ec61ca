#include "selection/student_t_z.hpp"

#include <cmath>
#include <limits>

#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>

namespace tpeopt::selection {

namespace {
const boost::math::normal_distribution<double> kStandardNormal(0.0, 1.0);
}  // namespace

double z_of_t(double t, double dof) {
  if (std::isnan(t) || std::isnan(dof) || !(dof > 0.0)) return NAN;
  if (std::isinf(t)) return t;
  // Odd in t: map |t| through the upper tails, where the digits are (a lower tail near 1 loses
  // them: 1 - 1e-17 is 1).
  const double a = std::abs(t);
  const double tail = boost::math::cdf(boost::math::complement(boost::math::students_t_distribution<double>(dof), a));
  double z;
  if (tail >= std::numeric_limits<double>::min()) {
    z = boost::math::quantile(boost::math::complement(kStandardNormal, tail));
  } else {
    // The tail is below the smallest normal double (ln tail < -708). Wallace's (1959)
    // approximation, from -z^2 / 2 ~ ln tail ~ -(nu / 2) ln(1 + t^2 / nu): above the exact z by
    // less than 0.25% there (tests/selection/test_student_t_z.cpp, against 60-digit values), so
    // z stays increasing in t. ln(1 + t^2 / nu) as 2 ln(t / sqrt nu) + ln(1 + nu / t^2): t^2
    // may overflow.
    z = std::sqrt(dof * (2.0 * std::log(a / std::sqrt(dof)) + std::log1p(dof / a / a)));
  }
  return std::copysign(z, t);
}

double t_of_z(double z, double dof) {
  if (std::isnan(z) || std::isnan(dof) || !(dof > 0.0)) return NAN;
  if (std::isinf(z)) return z;
  const double tail = boost::math::cdf(boost::math::complement(kStandardNormal, std::abs(z)));
  if (!(tail >= std::numeric_limits<double>::min())) return std::copysign(INFINITY, z);
  const double t =
      boost::math::quantile(boost::math::complement(boost::math::students_t_distribution<double>(dof), tail));
  return std::copysign(t, z);
}

}  // namespace tpeopt::selection
