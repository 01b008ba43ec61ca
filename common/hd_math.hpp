#pragma once
// Elementary functions with the same bits on the host and the device.
//
// glibc's exp/cos and CUDA's exp/cos are different implementations (CUDA's double
// cos is within 2 ulp, glibc's within 1): their results differ in the last bit for
// some inputs, which is enough to break bit-for-bit parity. These versions use only
// +, -, *, / (IEEE round-to-nearest on both sides, contraction off: docs/design.md,
// "Parity: CPU == CUDA"), rint and ldexp (exact), so both compilers produce identical results.
// Accuracy: a few ulp over the ranges the strategies use; not correctly rounded.
#include <cmath>

#include "common/hd.hpp"

namespace tpeopt::hd {

/// e^x. Range reduction x = k ln2 + r, |r| <= ln2/2, Cody-Waite split of ln2, then a
/// degree-13 Taylor polynomial of e^r (truncation error < 1e-17 relative).
TPEOPT_HD_INLINE double exp(double x) {
  if (x != x) return x;
  if (x > 709.78) return HUGE_VAL;
  if (x < -745.2) return 0.0;
  const double ln2_hi = 6.93147180369123816490e-01;  // ln 2 to 32 bits: k * ln2_hi is exact
  const double ln2_lo = 1.90821492927058770002e-10;
  const double inv_ln2 = 1.44269504088896338700e+00;
  const double k = rint(x * inv_ln2);
  const double r = (x - k * ln2_hi) - k * ln2_lo;
  double p = 1.0 / 6227020800.0;  // 1/13!
  p = p * r + 1.0 / 479001600.0;
  p = p * r + 1.0 / 39916800.0;
  p = p * r + 1.0 / 3628800.0;
  p = p * r + 1.0 / 362880.0;
  p = p * r + 1.0 / 40320.0;
  p = p * r + 1.0 / 5040.0;
  p = p * r + 1.0 / 720.0;
  p = p * r + 1.0 / 120.0;
  p = p * r + 1.0 / 24.0;
  p = p * r + 1.0 / 6.0;
  p = p * r + 0.5;
  p = p * r + 1.0;
  p = p * r + 1.0;
  return ldexp(p, static_cast<int>(k));
}

namespace detail {
// Taylor polynomials of sin and cos on |r| <= pi/4 (degree 21 and 20: truncation
// error below 1e-19).
TPEOPT_HD_INLINE double sin_poly(double r) {
  const double r2 = r * r;
  double p = -1.0 / 51090942171709440000.0;  // -1/21!
  p = p * r2 + 1.0 / 121645100408832000.0;
  p = p * r2 - 1.0 / 355687428096000.0;
  p = p * r2 + 1.0 / 1307674368000.0;
  p = p * r2 - 1.0 / 6227020800.0;
  p = p * r2 + 1.0 / 39916800.0;
  p = p * r2 - 1.0 / 362880.0;
  p = p * r2 + 1.0 / 5040.0;
  p = p * r2 - 1.0 / 120.0;
  p = p * r2 + 1.0 / 6.0;
  return r - r * r2 * p;
}
TPEOPT_HD_INLINE double cos_poly(double r) {
  const double r2 = r * r;
  double p = 1.0 / 2432902008176640000.0;  // 1/20!
  p = p * r2 - 1.0 / 6402373705728000.0;
  p = p * r2 + 1.0 / 20922789888000.0;
  p = p * r2 - 1.0 / 87178291200.0;
  p = p * r2 + 1.0 / 479001600.0;
  p = p * r2 - 1.0 / 3628800.0;
  p = p * r2 + 1.0 / 40320.0;
  p = p * r2 - 1.0 / 720.0;
  p = p * r2 + 1.0 / 24.0;
  p = p * r2 - 0.5;
  return 1.0 + r2 * p;
}
}  // namespace detail

/// cos(x) for |x| up to about 1e6 (three-part Cody-Waite reduction by pi/2).
TPEOPT_HD_INLINE double cos(double x) {
  if (x != x || x == HUGE_VAL || x == -HUGE_VAL) return x - x;
  const double two_over_pi = 6.36619772367581382433e-01;
  const double pio2_1 = 1.57079632673412561417e+00;  // first 33 bits of pi/2
  const double pio2_2 = 6.07710050630396597660e-11;  // next 33 bits
  const double pio2_3 = 2.02226624879595063154e-21;  // the rest
  const double k = rint(x * two_over_pi);
  const double r = ((x - k * pio2_1) - k * pio2_2) - k * pio2_3;
  const long long q = static_cast<long long>(k) & 3;
  switch (q) {
    case 0:
      return detail::cos_poly(r);
    case 1:
      return -detail::sin_poly(r);
    case 2:
      return -detail::cos_poly(r);
    default:
      return detail::sin_poly(r);
  }
}

}  // namespace tpeopt::hd
