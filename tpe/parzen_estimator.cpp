#include "tpe/parzen_estimator.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <utility>

#include "common/error.hpp"
#include "tpe/truncated_normal.hpp"

namespace tpeopt::tpe::detail {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kEps = 1e-12;  // Optuna's EPS: the smallest bandwidth without magic clip
}  // namespace

std::size_t default_gamma(std::size_t n) {
  // ceil(0.1 n) computed in double like Python's math.ceil(0.1 * x).
  const auto g = static_cast<std::size_t>(std::ceil(0.1 * static_cast<double>(n)));
  return std::min<std::size_t>(g, 25);
}

std::vector<double> default_weights(std::size_t n) {
  if (n < 25) return std::vector<double>(n, 1.0);
  // numpy.linspace(1/n, 1, num = n - 25): start + i * step, the last one exactly stop.
  std::vector<double> w(n, 1.0);
  const std::size_t num = n - 25;
  const double start = 1.0 / static_cast<double>(n);
  if (num == 1) {
    w[0] = start;
  } else if (num > 1) {
    const double step = (1.0 - start) / static_cast<double>(num - 1);
    for (std::size_t i = 0; i + 1 < num; ++i) w[i] = static_cast<double>(i) * step + start;
    w[num - 1] = 1.0;
  }
  return w;
}

std::vector<char> split_below(std::span<const double> score, std::span<const double> violation, Direction direction,
                              std::size_t n_below) {
  TPEOPT_ASSERT(score.size() == violation.size(), "split_below: score and violation differ in length");
  const std::size_t n = score.size();
  std::vector<std::size_t> feasible, infeasible;
  for (std::size_t i = 0; i < n; ++i) (violation[i] > 0.0 ? infeasible : feasible).push_back(i);
  std::vector<char> is_below(n, 0);
  const bool minimize = direction == Direction::Minimize;
  auto by_score = [&](std::size_t x, std::size_t y) {
    if (score[x] != score[y]) return minimize ? score[x] < score[y] : score[x] > score[y];
    return x < y;
  };
  auto by_violation = [&](std::size_t x, std::size_t y) {
    if (violation[x] != violation[y]) return violation[x] < violation[y];
    return x < y;
  };
  auto take = [&](std::vector<std::size_t>& group, std::size_t k, auto less) {
    k = std::min(k, group.size());
    std::partial_sort(group.begin(), group.begin() + static_cast<std::ptrdiff_t>(k), group.end(), less);
    for (std::size_t i = 0; i < k; ++i) is_below[group[i]] = 1;
    return k;
  };
  const std::size_t taken = take(feasible, n_below, by_score);
  take(infeasible, n_below - taken, by_violation);
  return is_below;
}

// ---------------------------------------------------------------------------------------
// AxisModel

AxisModel AxisModel::of(const Axis& axis) {
  AxisModel m;
  if (axis.kind == Axis::Kind::Categorical) {
    m.type = Type::Categorical;
    m.n_choices = axis.n_choices();
    m.single = m.n_choices <= 1;
    return m;
  }
  m.single = axis.low == axis.high;
  double step = axis.step;
  if (axis.kind == Axis::Kind::Int && step <= 0.0) step = 1.0;
  if (axis.log) {
    // Optuna (3.x - 4.6): a stepped log axis (log int) is continuous in log space on the
    // cells' outer edges, and rounded to the grid after sampling.
    m.type = Type::Continuous;
    m.log = true;
    m.low = step > 0.0 ? std::log(axis.low - step / 2) : std::log(axis.low);
    m.high = step > 0.0 ? std::log(axis.high + step / 2) : std::log(axis.high);
    m.log_step = step;
  } else if (step > 0.0) {
    m.type = Type::Discrete;
    m.low = axis.low;
    m.high = axis.high;
    m.step = step;
  } else {
    m.type = Type::Continuous;
    m.low = axis.low;
    m.high = axis.high;
  }
  return m;
}

double AxisModel::to_internal(const Axis& axis, double external) const {
  if (type == Type::Categorical) {
    const std::size_t i = axis.choice_index(external);
    TPEOPT_ASSERT(i != Axis::npos, "to_internal: value is not one of the axis' choices");
    return static_cast<double>(i);
  }
  return log ? std::log(external) : external;
}

double AxisModel::to_external(const Axis& axis, double raw) const {
  if (type == Type::Categorical) return axis.choice_value(static_cast<std::size_t>(raw));
  return axis.snap(log ? std::exp(raw) : raw);
}

// ---------------------------------------------------------------------------------------
// ParzenEstimator

ParzenEstimator::ParzenEstimator(std::span<const AxisModel> axes, std::span<const std::span<const double>> columns,
                                 std::span<const std::size_t> members, const ParzenParameters& params)
    : axes_(axes), log_int_cells_(params.multivariate), num_(axes.size()), cat_(axes.size()) {
  TPEOPT_ASSERT(columns.size() == axes.size(), "ParzenEstimator: one column per axis");
  TPEOPT_ASSERT(params.prior_weight > 0.0, "ParzenEstimator: prior_weight must be positive");
  const std::size_t n = members.size();
  const std::size_t n_kernels = n + 1;

  // Mixture weights: the observations' (in trial order), then the prior's; normalized.
  if (n == 0) {
    weights_ = {1.0};
  } else {
    weights_ = default_weights(n);
    weights_.push_back(params.prior_weight);
  }
  double total = 0.0;
  for (double w : weights_) total += w;
  cumulative_.resize(n_kernels);
  log_weights_.resize(n_kernels);
  double running = 0.0;
  for (std::size_t k = 0; k < n_kernels; ++k) {
    weights_[k] /= total;
    log_weights_[k] = std::log(weights_[k]);
    running += weights_[k];
    cumulative_[k] = running;
  }
  for (double& c : cumulative_) c /= running;  // numpy's choice: cdf /= cdf[-1]

  std::vector<double> sorted_with_endpoints;
  std::vector<std::pair<double, std::size_t>> keyed;
  for (std::size_t a = 0; a < axes.size(); ++a) {
    const AxisModel& m = axes[a];
    const std::span<const double> col = columns[a];

    if (m.type == AxisModel::Type::Categorical) {
      CategoricalKernels& ck = cat_[a];
      const std::size_t n_choices = m.n_choices;
      TPEOPT_ASSERT(n_choices > 0, "ParzenEstimator: categorical axis without choices");
      const double nc = static_cast<double>(n_choices);
      ck.observed.resize(n);
      for (std::size_t i = 0; i < n; ++i) {
        const double v = col[members[i]];
        TPEOPT_ASSERT(v >= 0.0 && v < nc, "ParzenEstimator: choice index out of range");
        ck.observed[i] = static_cast<std::size_t>(v);
      }
      // Optuna: each kernel row is filled with prior_weight / n_kernels, the observed
      // choice gets +1, and the row is normalized; the prior row is uniform.
      const double p = params.prior_weight / static_cast<double>(n_kernels);
      const double row_sum = nc * p + 1.0;
      ck.lo = p / row_sum;
      ck.hi = (p + 1.0) / row_sum;
      ck.log_lo = std::log(ck.lo);
      ck.log_hi = std::log(ck.hi);
      ck.log_uniform = std::log(1.0 / nc);
      // Marginal mass of each choice: lo * W + (hi - lo) * W_c + w_prior / n_choices.
      std::vector<double> w_choice(n_choices, 0.0);
      double w_obs = 0.0;
      for (std::size_t i = 0; i < n; ++i) {
        w_choice[ck.observed[i]] += weights_[i];
        w_obs += weights_[i];
      }
      const double w_prior = weights_[n];
      ck.log_marginal.resize(n_choices);
      for (std::size_t c = 0; c < n_choices; ++c)
        ck.log_marginal[c] = std::log(ck.lo * w_obs + (ck.hi - ck.lo) * w_choice[c] + w_prior * (1.0 / nc));
      continue;
    }

    // Numeric axis: Optuna's _calculate_numerical_distributions (with step_or_0).
    const double range = m.high - m.low + m.step;
    const double lower = m.lower(), upper = m.upper();
    const double prior_mu = m.prior_mu();
    NumericKernels& nk = num_[a];
    nk.mu.resize(n_kernels);
    nk.sigma.resize(n_kernels);
    for (std::size_t i = 0; i < n; ++i) nk.mu[i] = col[members[i]];

    const double max_sigma = 1.0 * range;
    const double min_sigma =
        params.consider_magic_clip ? 1.0 * range / std::min(100.0, 1.0 + static_cast<double>(n_kernels)) : kEps;
    // Neighbour gaps with the range's edges as outer neighbours, in the stable order by
    // (value, index). Univariate (Optuna 3.x - 4.6) sorts the prior's centre among the
    // observations (ties keep trial order, prior last); multivariate follows Optuna 4.9+,
    // whose bandwidths are these gaps per axis among the observations alone.
    // (value, index) pairs sorted lexicographically: the stable order by value, without
    // the indirection of sorting indices.
    const std::size_t n_sorted = params.multivariate ? n : n + 1;
    keyed.resize(n_sorted);
    for (std::size_t i = 0; i < n; ++i) keyed[i] = {nk.mu[i], i};
    if (!params.multivariate) keyed[n] = {prior_mu, n};
    std::sort(keyed.begin(), keyed.end());
    sorted_with_endpoints.resize(n_sorted + 2);
    sorted_with_endpoints[0] = lower;
    for (std::size_t i = 0; i < n_sorted; ++i) sorted_with_endpoints[i + 1] = keyed[i].first;
    sorted_with_endpoints[n_sorted + 1] = upper;
    const auto& s = sorted_with_endpoints;
    for (std::size_t i = 0; i < n_sorted; ++i) {
      const std::size_t k = keyed[i].second;
      if (k < n)
        nk.sigma[k] = neighbour_bandwidth(s[i + 1] - s[i], s[i + 2] - s[i + 1], i == 0, i + 1 == n_sorted,
                                          params.consider_endpoints, min_sigma, max_sigma);
    }
    nk.mu[n] = prior_mu;
    nk.sigma[n] = range;

    nk.inv_sigma.resize(n_kernels);
    nk.a.resize(n_kernels);
    nk.b.resize(n_kernels);
    nk.log_mass.resize(n_kernels);
    nk.log_norm.resize(n_kernels);
    for (std::size_t k = 0; k < n_kernels; ++k) {
      const double mu = nk.mu[k], sigma = nk.sigma[k];
      nk.inv_sigma[k] = 1.0 / sigma;
      nk.a[k] = (lower - mu) / sigma;
      nk.b[k] = (upper - mu) / sigma;
      // fast_tails: a kernel whose truncation bounds lie beyond 9 sigmas has mass
      // 1 - Phi(a) - Phi(-b) with Phi(-9) = 1.1e-19, so log mass = 0 to within 2.3e-19.
      nk.log_mass[k] =
          params.fast_tails && nk.a[k] <= -9.0 && nk.b[k] >= 9.0 ? 0.0 : truncnorm::log_gauss_mass(nk.a[k], nk.b[k]);
      nk.log_norm[k] = m.type == AxisModel::Type::Discrete ? -nk.log_mass[k]
                                                           : -std::log(sigma) - nk.log_mass[k] - truncnorm::kLogSqrt2Pi;
    }
  }
}

std::size_t ParzenEstimator::pick_component(double u) const {
  const auto it = std::upper_bound(cumulative_.begin(), cumulative_.end(), u);
  return std::min(static_cast<std::size_t>(it - cumulative_.begin()), cumulative_.size() - 1);
}

double ParzenEstimator::sample(std::size_t a, std::size_t k, double u) const {
  const AxisModel& m = axes_[a];
  if (m.type == AxisModel::Type::Categorical) {
    const CategoricalKernels& ck = cat_[a];
    const std::size_t nc = m.n_choices;
    // Cumulative row probabilities; the last is 1. The choice is the number of entries < u
    // (Optuna's sum(cum_probs < u)).
    const bool is_prior = k >= ck.observed.size();
    const std::size_t obs = is_prior ? nc : ck.observed[k];
    auto cum = [&](std::size_t c) {
      if (c + 1 == nc) return 1.0;
      if (is_prior) return static_cast<double>(c + 1) / static_cast<double>(nc);
      return static_cast<double>(c + 1) * ck.lo + (c >= obs ? ck.hi - ck.lo : 0.0);
    };
    std::size_t lo = 0, hi = nc - 1;  // first c with cum(c) >= u, in [0, nc - 1]
    while (lo < hi) {
      const std::size_t mid = lo + (hi - lo) / 2;
      if (cum(mid) < u) lo = mid + 1;
      else hi = mid;
    }
    return static_cast<double>(lo);
  }
  const NumericKernels& nk = num_[a];
  const double z = truncnorm::ppf(u, nk.a[k], nk.b[k], nk.log_mass[k]);
  return std::clamp(z * nk.sigma[k] + nk.mu[k], m.lower(), m.upper());
}

double ParzenEstimator::kernel_log_pdf(std::size_t a, std::size_t k, double x) const {
  const AxisModel& m = axes_[a];
  if (m.type == AxisModel::Type::Categorical) {
    const CategoricalKernels& ck = cat_[a];
    if (k >= ck.observed.size()) return ck.log_uniform;
    return ck.observed[k] == static_cast<std::size_t>(x) ? ck.log_hi : ck.log_lo;
  }
  const NumericKernels& nk = num_[a];
  if (log_int_cells_ && m.log_step > 0.0) {
    // x = log(v) of a grid value v: the cell's mass in log space. v is recovered exactly
    // (the grid's values are integers or multiples of the step).
    const double half = m.log_step / 2;
    const double v = std::round(std::exp(x) / m.log_step) * m.log_step;
    const double left = std::log(v - half), right = std::log(v + half);
    return truncnorm::log_gauss_mass((left - nk.mu[k]) * nk.inv_sigma[k], (right - nk.mu[k]) * nk.inv_sigma[k]) -
           nk.log_mass[k];
  }
  if (m.type == AxisModel::Type::Discrete) {
    const double half = m.step / 2;
    const double x_lower = std::max(x - half, m.low - half);
    const double x_upper = std::min(x + half, m.high + half);
    return truncnorm::log_gauss_mass((x_lower - nk.mu[k]) * nk.inv_sigma[k], (x_upper - nk.mu[k]) * nk.inv_sigma[k]) +
           nk.log_norm[k];
  }
  const double z = (x - nk.mu[k]) * nk.inv_sigma[k];
  return nk.log_norm[k] - 0.5 * z * z;
}

double ParzenEstimator::logsumexp(std::vector<double>& v) const {
  double max = -kInf;
  for (double x : v) max = std::max(max, x);
  if (max == -kInf) return -kInf;
  double sum = 0.0;
  for (double x : v) sum += std::exp(x - max);
  return std::log(sum) + max;
}

double ParzenEstimator::log_pdf(std::size_t a, double x, std::vector<double>& scratch) const {
  const AxisModel& m = axes_[a];
  if (m.type == AxisModel::Type::Categorical) {
    const CategoricalKernels& ck = cat_[a];
    if (!(x >= 0.0 && x < static_cast<double>(m.n_choices))) return -kInf;
    return ck.log_marginal[static_cast<std::size_t>(x)];
  }
  if (!(x >= m.lower() && x <= m.upper())) return -kInf;
  const NumericKernels& nk = num_[a];
  const std::size_t K = n_kernels();
  scratch.resize(K);
  if (m.type == AxisModel::Type::Discrete) {
    for (std::size_t k = 0; k < K; ++k) scratch[k] = log_weights_[k] + kernel_log_pdf(a, k, x);
  } else {
    const double* mu = nk.mu.data();
    const double* inv = nk.inv_sigma.data();
    const double* norm = nk.log_norm.data();
    const double* lw = log_weights_.data();
    for (std::size_t k = 0; k < K; ++k) {
      const double z = (x - mu[k]) * inv[k];
      scratch[k] = lw[k] + (norm[k] - 0.5 * z * z);
    }
  }
  return logsumexp(scratch);
}

double ParzenEstimator::log_pdf_joint(const double* x, std::vector<double>& scratch) const {
  const std::size_t K = n_kernels();
  scratch.assign(K, 0.0);
  for (std::size_t a = 0; a < axes_.size(); ++a) {
    const AxisModel& m = axes_[a];
    if (m.type == AxisModel::Type::Categorical) {
      if (!(x[a] >= 0.0 && x[a] < static_cast<double>(m.n_choices))) return -kInf;
    } else {
      if (!(x[a] >= m.lower() && x[a] <= m.upper())) return -kInf;
    }
    for (std::size_t k = 0; k < K; ++k) scratch[k] += kernel_log_pdf(a, k, x[a]);
  }
  for (std::size_t k = 0; k < K; ++k) scratch[k] += log_weights_[k];
  return logsumexp(scratch);
}

}  // namespace tpeopt::tpe::detail
