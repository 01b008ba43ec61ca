#pragma once
// Analytic test functions, for testing the optimizer and the pipeline itself.
// Shared by the CPU executor and the CUDA kernel (TPEOPT_HD): same bits on both,
// since they use only +, -, *, / and the functions of common/hd_math.hpp.
#include "common/hd.hpp"
#include "common/hd_math.hpp"

namespace tpeopt::strategies {

enum class TestFunction : int {
  Sphere = 0,          ///< sum x_i^2; minimum 0 at 0
  Rastrigin = 1,       ///< 10 d + sum (x_i^2 - 10 cos(2 pi x_i)); minimum 0 at 0, domain [-5.12, 5.12]
  StyblinskiTang = 2,  ///< sum (x_i^4 - 16 x_i^2 + 5 x_i) / 2; minimum -39.16617 d at x_i = -2.903534
  Hartmann6 = 3,       ///< the 6-dimensional Hartmann function on [0, 1]^6; minimum -3.32237
};

/// Value of `f` at x[0..d). Hartmann6 needs d == 6 (checked by the host strategy).
TPEOPT_HD_INLINE double evaluate_test_function(TestFunction f, const double* x, int d) {
  double s = 0.0;
  switch (f) {
    case TestFunction::Sphere:
      for (int i = 0; i < d; ++i) s = s + x[i] * x[i];
      return s;
    case TestFunction::Rastrigin: {
      const double two_pi = 6.283185307179586476925;
      s = 10.0 * d;
      for (int i = 0; i < d; ++i) s = s + (x[i] * x[i] - 10.0 * hd::cos(two_pi * x[i]));
      return s;
    }
    case TestFunction::StyblinskiTang:
      for (int i = 0; i < d; ++i) {
        const double x2 = x[i] * x[i];
        s = s + (x2 * x2 - 16.0 * x2 + 5.0 * x[i]);
      }
      return 0.5 * s;
    case TestFunction::Hartmann6: {
      const double alpha[4] = {1.0, 1.2, 3.0, 3.2};
      const double a[4][6] = {{10, 3, 17, 3.5, 1.7, 8},
                              {0.05, 10, 17, 0.1, 8, 14},
                              {3, 3.5, 1.7, 10, 17, 8},
                              {17, 8, 0.05, 10, 0.1, 14}};
      const double p[4][6] = {{0.1312, 0.1696, 0.5569, 0.0124, 0.8283, 0.5886},
                              {0.2329, 0.4135, 0.8307, 0.3736, 0.1004, 0.9991},
                              {0.2348, 0.1451, 0.3522, 0.2883, 0.3047, 0.6650},
                              {0.4047, 0.8828, 0.8732, 0.5743, 0.1091, 0.0381}};
      for (int k = 0; k < 4; ++k) {
        double inner = 0.0;
        for (int i = 0; i < 6; ++i) {
          const double diff = x[i] - p[k][i];
          inner = inner + a[k][i] * diff * diff;
        }
        s = s + alpha[k] * hd::exp(-inner);
      }
      return -s;
    }
  }
  return s;
}

}  // namespace tpeopt::strategies
