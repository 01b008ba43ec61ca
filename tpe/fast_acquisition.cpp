#include "tpe/fast_acquisition.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "tpe/truncated_normal.hpp"

namespace tpeopt::tpe::detail {

namespace {
constexpr double kSqrt2Pi = 2.5066282746310002;  // sqrt(2 pi)
constexpr double kCramer = 1.0865;               // |He_m(t)| exp(-t^2 / 4) <= kCramer sqrt(m!)
constexpr double kBinnedError = 1e-16;           // remainder of the Hermite series, relative to the peak

// Smallest number of Hermite terms p whose remainder kCramer sum_{m >= p} s^m / sqrt(m!) is
// under kBinnedError for |s| <= s_max (geometric tail: ratio s / sqrt(p + 1) < 1).
std::size_t hermite_terms(double s_max) {
  double term = 1.0;  // s^m / sqrt(m!)
  for (std::size_t p = 1; p < 96; ++p) {
    term *= s_max / std::sqrt(static_cast<double>(p));
    const double ratio = s_max / std::sqrt(static_cast<double>(p + 1));
    if (ratio < 1.0 && kCramer * term / (1.0 - ratio) <= kBinnedError) return p;
  }
  return 96;
}

// c exp(-((x_i - mu) / sigma)^2 / 2) added to sum[i] for nodes i0 .. i1 (x_i = low + i h):
// the ratio of successive values is a geometric sequence, re-anchored by exp every 32 nodes
// (relative error under 1e-14).
void add_direct(double* sum, double c, double mu, double sg, double low, double h, std::size_t i0,
                std::size_t i1) {
  const double d = h / sg;
  const double kappa = std::exp(-d * d);
  for (std::size_t i = i0; i <= i1;) {
    const std::size_t end = std::min(i1 + 1, i + 32);
    const double z = (low + static_cast<double>(i) * h - mu) / sg;
    double e = c * std::exp(-0.5 * z * z);
    double rho = std::exp(-z * d - 0.5 * d * d);
    for (; i < end; ++i) {
      sum[i] += e;
      e *= rho;
      rho *= kappa;
    }
  }
}
}  // namespace

bool log_density_grid(const double* mu, const double* sigma, const double* coef, std::size_t K, double low,
                      double high, std::size_t cells, GridTable& out, GridScratch& scratch) {
  out.node.clear();
  out.cells = 0;
  if (cells < 4 || !(high > low) || K == 0) return false;
  const double h = (high - low) / static_cast<double>(cells);
  double sigma_min = std::numeric_limits<double>::infinity();
  for (std::size_t k = 0; k < K; ++k) sigma_min = std::min(sigma_min, sigma[k]);
  if (!(sigma_min >= kMinSigmaCells * h)) return false;

  std::vector<double>& sum = scratch.sum;
  sum.assign(cells + 1, 0.0);
  const double last = static_cast<double>(cells);

  // Binned group: the kernels with the smallest bandwidth, when there are enough of them.
  std::size_t n_min = 0;
  for (std::size_t k = 0; k < K; ++k) n_min += sigma[k] == sigma_min ? 1 : 0;
  const bool binned = n_min >= 32;
  if (binned) {
    const double sg = sigma_min;
    const auto W = static_cast<std::size_t>(std::ceil(kWindowSigmas * sg / h)) + 1;
    // Bin width r cells: the r of least work (moments + bins x window x terms).
    std::size_t r = 1, p = 0;
    double best_cost = std::numeric_limits<double>::infinity();
    for (std::size_t rr = 1; rr <= 64; rr *= 2) {
      const std::size_t pp = hermite_terms(static_cast<double>(rr) * h / (2.0 * sg));
      const double bins = static_cast<double>(std::min(n_min, cells / rr + 1));
      const double cost =
          (bins * static_cast<double>(2 * (W + rr) + 1) + static_cast<double>(n_min)) * static_cast<double>(pp);
      if (cost < best_cost) r = rr, p = pp, best_cost = cost;
    }
    const std::size_t n_bins = cells / r + 1;  // bin b is centred on node b * r
    const double H = static_cast<double>(r) * h;
    std::vector<double>& moment = scratch.moment;  // [b * p + m]
    moment.assign(p * n_bins, 0.0);
    const double inv_sg = 1.0 / sg;
    // 1 / (m + 1), so that the moments' recurrence multiplies instead of dividing.
    double inv_next[96];
    for (std::size_t m = 0; m < p; ++m) inv_next[m] = 1.0 / static_cast<double>(m + 1);
    // Moments accumulate in registers over runs of kernels in the same bin (kernels come
    // sorted by centre from the sorted builder), in kernel order.
    double acc[96];
    std::size_t run_bin = n_bins;  // none yet
    auto flush = [&] {
      if (run_bin == n_bins) return;
      double* mo = moment.data() + run_bin * p;
      for (std::size_t m = 0; m < p; ++m) mo[m] += acc[m];
    };
    // Kernels of a run are taken four at a time (four independent recurrences).
    double s4[4], t4[4];
    std::size_t q = 0;
    auto drain = [&] {
      if (q == 4) {
        for (std::size_t m = 0; m < p; ++m) {
          acc[m] += (t4[0] + t4[1]) + (t4[2] + t4[3]);
          t4[0] *= s4[0] * inv_next[m];
          t4[1] *= s4[1] * inv_next[m];
          t4[2] *= s4[2] * inv_next[m];
          t4[3] *= s4[3] * inv_next[m];
        }
      } else {
        for (std::size_t e = 0; e < q; ++e)
          for (std::size_t m = 0; m < p; ++m) {
            acc[m] += t4[e];
            t4[e] *= s4[e] * inv_next[m];
          }
      }
      q = 0;
    };
    for (std::size_t k = 0; k < K; ++k) {
      if (sigma[k] != sg) continue;
      const double b = std::clamp(std::round((mu[k] - low) / H), 0.0, static_cast<double>(n_bins - 1));
      const auto bi = static_cast<std::size_t>(b);
      if (bi != run_bin) {
        drain();
        flush();
        run_bin = bi;
        for (std::size_t m = 0; m < p; ++m) acc[m] = 0.0;
      }
      s4[q] = (mu[k] - (low + b * H)) * inv_sg;
      t4[q] = coef[k];
      if (++q == 4) drain();
    }
    drain();
    flush();
    // filter[m][d + Wn], d in [-Wn, Wn] nodes: exp(-t^2 / 2) He_m(t), t = d h / sigma.
    const std::size_t Wn = W + r;
    const std::size_t width = 2 * Wn + 1;
    std::vector<double>& filter = scratch.filter;
    filter.resize(p * width);
    for (std::size_t d = 0; d < width; ++d) {
      const double t = (static_cast<double>(d) - static_cast<double>(Wn)) * h / sg;
      double he_prev = 0.0, he = std::exp(-0.5 * t * t);  // exp(-t^2/2) He_{m-1}, He_m
      for (std::size_t m = 0; m < p; ++m) {
        filter[m * width + d] = he;
        const double next = t * he - static_cast<double>(m) * he_prev;
        he_prev = he;
        he = next;
      }
    }
    for (std::size_t bi = 0; bi < n_bins; ++bi) {
      const double* mo = moment.data() + bi * p;
      bool used = false;
      for (std::size_t m = 0; m < p && !used; ++m) used = mo[m] != 0.0;
      if (!used) continue;
      const std::size_t centre = bi * r;
      const std::size_t i0 = centre >= Wn ? centre - Wn : 0;
      const std::size_t i1 = std::min(cells, centre + Wn);
      const std::size_t len = i1 - i0 + 1;
      double* o = sum.data() + i0;
      for (std::size_t m = 0; m < p; ++m) {
        const double c = mo[m];
        const double* f = filter.data() + m * width + (i0 + Wn - centre);
        for (std::size_t i = 0; i < len; ++i) o[i] += c * f[i];
      }
    }
  }

  // Direct group: every other kernel over the nodes of its window.
  for (std::size_t k = 0; k < K; ++k) {
    if (binned && sigma[k] == sigma_min) continue;
    const double sg = sigma[k];
    const double centre = std::clamp(std::round((mu[k] - low) / h), 0.0, last);
    const double reach = std::ceil(kWindowSigmas * sg / h) + 1.0;
    const auto i0 = static_cast<std::size_t>(std::max(0.0, centre - reach));
    const auto i1 = static_cast<std::size_t>(std::min(last, centre + reach));
    add_direct(sum.data(), coef[k], mu[k], sg, low, h, i0, i1);
  }

  out.low = low;
  out.high = high;
  out.cells = cells;
  out.inv_h = 1.0 / h;
  out.node.resize(cells + 1);
  for (std::size_t i = 0; i <= cells; ++i)
    out.node[i] = sum[i] > 0.0 ? std::log(sum[i]) : -std::numeric_limits<double>::infinity();
  return true;
}

bool log_density_grid(const ParzenEstimator& est, std::size_t a, const AxisModel& model, std::size_t cells,
                      GridTable& out) {
  out = GridTable{};
  if (model.type != AxisModel::Type::Continuous) return false;
  const std::vector<double>& log_norm = est.log_norms(a);
  const std::vector<double>& log_w = est.log_weights();
  std::vector<double> coef(log_w.size());
  for (std::size_t k = 0; k < coef.size(); ++k) coef[k] = std::exp(log_w[k] + log_norm[k]);
  GridScratch scratch;
  return log_density_grid(est.mus(a).data(), est.sigmas(a).data(), coef.data(), coef.size(), model.low, model.high,
                          cells, out, scratch);
}

bool log_density_grid_sorted(const std::uint32_t* sorted_index, std::size_t n_obs, const double* value,
                             const char* in_group, const double* member_weight, std::size_t n_group,
                             double prior_weight, const AxisModel& model, const ParzenParameters& params,
                             std::size_t cells, GridTable& out, GridScratch& scratch) {
  out.node.clear();
  out.cells = 0;
  if (model.type != AxisModel::Type::Continuous || !(model.high > model.low)) return false;
  const double low = model.low, high = model.high;
  const double range = high - low;  // continuous: step 0, so lower = low and upper = high
  const double prior_mu = 0.5 * (low + high);
  const std::size_t n = n_group;
  constexpr std::uint32_t kPrior = std::numeric_limits<std::uint32_t>::max();

  // The group's centres in (value, trial) order with the prior's inserted after its equals
  // (ParzenEstimator's stable order: the prior is last among ties).
  std::vector<double>& mu = scratch.mu;
  std::vector<std::uint32_t>& id = scratch.id;
  mu.resize(n + 1);
  id.resize(n + 1);
  std::size_t j = 0;
  bool prior_done = false;
  for (std::size_t q = 0; q < n_obs; ++q) {
    const std::uint32_t i = sorted_index[q];
    if (!in_group[i]) continue;
    const double v = value[i];
    if (!prior_done && v > prior_mu) {
      mu[j] = prior_mu;
      id[j++] = kPrior;
      prior_done = true;
    }
    mu[j] = v;
    id[j++] = i;
  }
  if (!prior_done) {
    mu[j] = prior_mu;
    id[j++] = kPrior;
  }
  if (j != n + 1) return false;  // inconsistent group size (not expected)

  // Bandwidths: the larger neighbour gap with the range's edges as outer neighbours.
  std::vector<double>& sigma = scratch.sigma;
  sigma.resize(n + 1);
  auto at = [&](std::size_t e) { return e == 0 ? low : (e == n + 2 ? high : mu[e - 1]); };  // sorted_with_endpoints
  for (std::size_t e = 0; e <= n; ++e) sigma[e] = std::max(at(e + 1) - at(e), at(e + 2) - at(e + 1));
  if (!params.consider_endpoints && n >= 1) {
    sigma[0] = at(2) - at(1);
    sigma[n] = at(n + 1) - at(n);
  }
  const double max_sigma = range;
  const double min_sigma =
      params.consider_magic_clip ? range / std::min(100.0, 1.0 + static_cast<double>(n + 1)) : 1e-12;
  std::vector<double>& coef = scratch.coef;
  coef.resize(n + 1);
  const double inv_norm_min = 1.0 / (min_sigma * kSqrt2Pi);
  for (std::size_t e = 0; e <= n; ++e) {
    double sg;
    double w;
    if (id[e] == kPrior) {
      sg = range;
      w = prior_weight;
    } else {
      sg = std::min(std::max(sigma[e], min_sigma), max_sigma);
      w = member_weight[id[e]];
    }
    sigma[e] = sg;
    const double a = (low - mu[e]) / sg, b = (high - mu[e]) / sg;
    double c = w * (sg == min_sigma ? inv_norm_min : 1.0 / (sg * kSqrt2Pi));
    // A kernel truncated beyond 9 sigmas on both sides has mass 1 (error < 2.3e-19).
    if (!(a <= -9.0 && b >= 9.0)) c *= std::exp(-truncnorm::log_gauss_mass(a, b));
    coef[e] = c;
  }
  return log_density_grid(mu.data(), sigma.data(), coef.data(), n + 1, low, high, cells, out, scratch);
}

}  // namespace tpeopt::tpe::detail
