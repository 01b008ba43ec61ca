#pragma once
// Internal to TpeSampler (docs/tpe.md): the Parzen estimators l(x) and g(x) of TPE with
// Optuna's semantics (optuna/samplers/_tpe/parzen_estimator.py: univariate as Optuna
// 3.x-4.6, multivariate as Optuna 4.9+), the below/above split and Optuna's default gamma
// and weights. Exposed in a header so that tests can compare it with Optuna itself
// (tests/tpe/fixtures/).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "tpe/search_space.hpp"

namespace tpeopt::tpe::detail {

/// Optuna's default_gamma: min(ceil(0.1 n), 25), the size of the "below" group.
std::size_t default_gamma(std::size_t n);

/// Optuna's default_weights: n ones for n < 25, else linspace(1/n, 1, n - 25) followed by
/// 25 ones (observations in trial order; older ones weigh less). Empty for n == 0.
std::vector<double> default_weights(std::size_t n);

/// Marks the n_below best observations: feasible ones (violation <= 0) ranked by score
/// (ascending for Minimize, descending for Maximize), then infeasible ones by violation
/// ascending; ties by index (observations are stored in trial order, so by trial number).
/// Returns is_below[i] for each observation. Scores must not be NaN.
std::vector<char> split_below(std::span<const double> score, std::span<const double> violation, Direction direction,
                              std::size_t n_below);

/// The bandwidth of a univariate kernel (ParzenEstimator's, and the fast tables') from the gaps to its neighbours in the
/// sorted group (the range's edges count as the outer neighbours): the larger gap, except
/// that without consider_endpoints the group's first and last kernels take their inner gap;
/// clipped to [sigma_min, sigma_max].
inline double neighbour_bandwidth(double gap_left, double gap_right, bool first, bool last, bool consider_endpoints,
                                  double sigma_min, double sigma_max) {
  double sigma = std::max(gap_left, gap_right);
  if (!consider_endpoints && first != last) sigma = first ? gap_right : gap_left;
  return std::min(std::max(sigma, sigma_min), sigma_max);
}

/// How one axis is modelled in TPE's internal space (Optuna's transform).
///  - Continuous: a truncated normal per kernel on [low, high]; log axes in log space.
///    Log-int axes are continuous on [log(low - 1/2), log(high + 1/2)] and rounded.
///  - Discrete (stepped float, int): kernels on [low - step/2, high + step/2]; the
///    probability of a grid point is the mass of its cell [x - step/2, x + step/2].
///  - Categorical: the internal value is the choice index.
struct AxisModel {
  enum class Type { Continuous, Discrete, Categorical };
  Type type = Type::Continuous;
  bool log = false;   ///< internal = log(external)
  double low = 0.0;   ///< internal lower bound (Discrete: the first grid point)
  double high = 0.0;  ///< internal upper bound (Discrete: the last grid point)
  double step = 0.0;  ///< Discrete: grid step (internal == external); else 0
  /// Log int (Continuous, log): the external grid step. The multivariate estimator scores a
  /// value v by the mass of its cell [log(v - step/2), log(v + step/2)] (Optuna 4.7+).
  double log_step = 0.0;
  std::size_t n_choices = 0;  ///< Categorical
  bool single = false;        ///< one possible value only (not modelled, never sampled)

  static AxisModel of(const Axis& axis);
  /// The range the kernels are truncated to, [low - step/2, high + step/2] (step is 0 unless
  /// Discrete), and the prior kernel's centre.
  double lower() const { return low - step / 2; }
  double upper() const { return high + step / 2; }
  double prior_mu() const { return 0.5 * (low + high); }
  /// Discrete: the number of grid points.
  std::size_t n_grid() const { return static_cast<std::size_t>(std::llround((high - low) / step)) + 1; }
  /// Internal value of an external value of `axis` (log, choice index, or itself).
  double to_internal(const Axis& axis, double external) const;
  /// External value of a raw internal draw: exp for log axes, then axis.snap (grid,
  /// rounding of ints, clamping); the choice value for categoricals.
  double to_external(const Axis& axis, double raw) const;
};

/// Settings of the estimator (TpeConfig's).
struct ParzenParameters {
  double prior_weight = 1.0;
  bool consider_magic_clip = true;
  bool consider_endpoints = false;
  /// One joint estimator over all axes, with Optuna 4.9+'s per-axis neighbour bandwidths
  /// (Optuna 3.x to 4.8 used one Scott-like bandwidth, 0.2 n^(-1/(d+4)) of the range).
  bool multivariate = false;
  /// Fast acquisition: take the log mass of kernels truncated beyond 9 sigmas on both
  /// sides as 0 (error < 2.3e-19) instead of computing it.
  bool fast_tails = false;
};

/// One Parzen estimator (a mixture of n + 1 product kernels: one per observation, the
/// prior last) over a list of axes. Built once per ask; then read-only, so any number of
/// threads may call its const methods at once.
class ParzenEstimator {
 public:
  /// Observation i of the estimator has internal value columns[a][members[i]] on axis a;
  /// `members` lists them in trial order. `axes` must outlive the estimator.
  /// Bandwidths come from the gaps to the neighbours on each axis: among the observations and
  /// the prior's centre (univariate, Optuna 3.x - 4.6), or among the observations alone
  /// (multivariate, Optuna 4.9+).
  ParzenEstimator(std::span<const AxisModel> axes, std::span<const std::span<const double>> columns,
                  std::span<const std::size_t> members, const ParzenParameters& params);

  std::size_t n_axes() const { return axes_.size(); }
  std::size_t n_kernels() const { return weights_.size(); }
  /// Normalized mixture weights (the prior's last).
  const std::vector<double>& weights() const { return weights_; }
  /// Kernel centres and bandwidths of numeric axis a (the prior's last).
  const std::vector<double>& mus(std::size_t a) const { return num_[a].mu; }
  const std::vector<double>& sigmas(std::size_t a) const { return num_[a].sigma; }
  /// log of the mixture weights (the prior's last).
  const std::vector<double>& log_weights() const { return log_weights_; }
  /// Numeric axis a, per kernel: the standardized truncation bounds a_k = (lower - mu) / sigma,
  /// b_k = (upper - mu) / sigma, and the log normalization of the kernel's density
  /// (continuous: -log sigma - log mass - log sqrt(2 pi); discrete: -log mass).
  const std::vector<double>& lower_z(std::size_t a) const { return num_[a].a; }
  const std::vector<double>& upper_z(std::size_t a) const { return num_[a].b; }
  const std::vector<double>& log_norms(std::size_t a) const { return num_[a].log_norm; }

  /// The component drawn by a uniform u in [0, 1) (numpy's choice: searchsorted right).
  std::size_t pick_component(double u) const;
  /// The cumulative weights pick_component searches (the last is 1).
  const std::vector<double>& cumulative() const { return cumulative_; }
  /// A raw internal draw of axis a from kernel k given a uniform u in [0, 1): the
  /// truncated-normal quantile (continuous, discrete before snapping) or the choice
  /// index (categorical). Map it with AxisModel::to_external.
  double sample(std::size_t a, std::size_t k, double u) const;

  /// log of the mixture density (or mass) of axis a alone at internal value x.
  /// scratch is resized to n_kernels() as needed.
  double log_pdf(std::size_t a, double x, std::vector<double>& scratch) const;
  /// log of the joint mixture density at internal point x[0 .. n_axes()) (multivariate).
  double log_pdf_joint(const double* x, std::vector<double>& scratch) const;

 private:
  struct NumericKernels {
    std::vector<double> mu, sigma, inv_sigma;
    std::vector<double> a, b;      // standardized truncation bounds per kernel
    std::vector<double> log_mass;  // log of each kernel's mass inside [a, b]
    std::vector<double> log_norm;  // continuous: -log sigma - log_mass - log sqrt(2 pi); discrete: -log_mass
  };
  struct CategoricalKernels {
    std::vector<std::size_t> observed;  // choice index of each observation kernel
    double lo = 0.0, hi = 0.0;          // row value off / on the observed choice
    double log_lo = 0.0, log_hi = 0.0, log_uniform = 0.0;
    std::vector<double> log_marginal;  // log of the mixture mass of each choice
  };

  // Per-kernel log density (without the mixture weight) of axis a at x.
  double kernel_log_pdf(std::size_t a, std::size_t k, double x) const;
  double logsumexp(std::vector<double>& v) const;

  std::span<const AxisModel> axes_;
  bool log_int_cells_ = false;  // multivariate: log-int axes scored by their cells' masses
  std::vector<double> weights_, log_weights_, cumulative_;
  std::vector<NumericKernels> num_;      // per axis (empty for categoricals)
  std::vector<CategoricalKernels> cat_;  // per axis (empty for numerics)
};

}  // namespace tpeopt::tpe::detail
