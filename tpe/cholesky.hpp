#pragma once
// The two dense steps batch TPE's Gaussian draws need: the lower Cholesky factor of a
// symmetric positive definite matrix (the joint kernel's bandwidth matrix, the evolve
// operator's covariance) and a solve with it. Row-major n x n; n is the number of numeric
// axes (at most a few hundred), so a textbook O(n^3) factorization is a fraction of an ask.
#include <cmath>
#include <cstddef>
#include <vector>

namespace tpeopt::tpe {

/// Lower Cholesky factor of the symmetric n x n matrix a, in place (the upper triangle set to
/// 0); false when a is not positive definite.
inline bool cholesky(std::vector<double>& a, std::size_t n) {
  for (std::size_t j = 0; j < n; ++j) {
    double d = a[j * n + j];
    for (std::size_t k = 0; k < j; ++k) d -= a[j * n + k] * a[j * n + k];
    if (!(d > 0.0)) return false;
    const double l = std::sqrt(d);
    a[j * n + j] = l;
    for (std::size_t i = j + 1; i < n; ++i) {
      double s = a[i * n + j];
      for (std::size_t k = 0; k < j; ++k) s -= a[i * n + k] * a[j * n + k];
      a[i * n + j] = s / l;
    }
    for (std::size_t k = j + 1; k < n; ++k) a[j * n + k] = 0.0;
  }
  return true;
}

/// Solves L x = b in place (b becomes x) for a lower triangular L with a positive diagonal.
inline void solve_lower(const std::vector<double>& lower, std::size_t n, double* b) {
  for (std::size_t i = 0; i < n; ++i) {
    double s = b[i];
    for (std::size_t k = 0; k < i; ++k) s -= lower[i * n + k] * b[k];
    b[i] = s / lower[i * n + i];
  }
}

/// y = L z for a lower triangular L.
inline void multiply_lower(const std::vector<double>& lower, std::size_t n, const double* z, double* y) {
  for (std::size_t i = 0; i < n; ++i) {
    double s = 0.0;
    for (std::size_t k = 0; k <= i; ++k) s += lower[i * n + k] * z[k];
    y[i] = s;
  }
}

}  // namespace tpeopt::tpe
