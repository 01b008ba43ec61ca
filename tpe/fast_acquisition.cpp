#include "tpe/fast_acquisition.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tpeopt::tpe::detail {

namespace {
// Smallest number of Taylor terms p with tau^p / p! * exp(2 tau) <= 1e-15 (the remainder of
// exp(t s) for |t s| <= tau, relative to exp(t s) >= exp(-tau)).
std::size_t taylor_terms(double tau) {
  double term = 1.0;
  const double bound = 1e-15 * std::exp(-2.0 * tau);
  for (std::size_t p = 1; p < 64; ++p) {
    term *= tau / static_cast<double>(p);
    if (term <= bound) return p;
  }
  return 64;
}
}  // namespace

bool log_density_grid(const ParzenEstimator& est, std::size_t a, const AxisModel& model, std::size_t cells,
                      GridTable& out) {
  out = GridTable{};
  if (model.type != AxisModel::Type::Continuous || cells < 4 || !(model.high > model.low)) return false;
  const double low = model.low, high = model.high;
  const double h = (high - low) / static_cast<double>(cells);
  const std::vector<double>& mu = est.mus(a);
  const std::vector<double>& sigma = est.sigmas(a);
  const std::vector<double>& log_norm = est.log_norms(a);
  const std::vector<double>& log_w = est.log_weights();
  const std::size_t K = mu.size();
  double sigma_min = std::numeric_limits<double>::infinity();
  for (double s : sigma) sigma_min = std::min(sigma_min, s);
  if (!(sigma_min >= kMinSigmaCells * h)) return false;

  std::vector<double> sum(cells + 1, 0.0);
  const double last = static_cast<double>(cells);
  auto nearest_node = [&](double x) { return std::clamp(std::round((x - low) / h), 0.0, last); };

  // Binned group: the kernels with the smallest bandwidth, when there are enough of them.
  std::size_t n_min = 0;
  for (double s : sigma) n_min += s == sigma_min ? 1 : 0;
  const bool binned = n_min >= 32;
  if (binned) {
    const double sg = sigma_min;
    const auto W = static_cast<std::size_t>(std::ceil(kWindowSigmas * sg / h)) + 1;
    // Bin width r cells: pick the r of least work (bins x window x terms) with tau <= 2.
    std::size_t best_r = 1, best_p = taylor_terms(static_cast<double>(W + 1) * h / sg * (h / (2.0 * sg)));
    double best_cost = static_cast<double>(std::min(n_min, cells + 1)) * static_cast<double>(best_p);
    for (std::size_t r = 2; r <= 16; r *= 2) {
      const double tau = static_cast<double>(W + r) * h / sg * (static_cast<double>(r) * h / (2.0 * sg));
      if (tau > 2.0) break;
      const std::size_t p = taylor_terms(tau);
      const double cost = static_cast<double>(std::min(n_min, cells / r + 1)) * static_cast<double>(p);
      if (cost < best_cost) best_r = r, best_p = p, best_cost = cost;
    }
    const std::size_t r = best_r, p = best_p;
    const std::size_t n_bins = cells / r + 1;  // bin b is centred on node b * r
    const double H = static_cast<double>(r) * h;
    std::vector<double> moment(p * n_bins, 0.0);  // [m * n_bins + b]
    std::vector<char> used(n_bins, 0);
    for (std::size_t k = 0; k < K; ++k) {
      if (sigma[k] != sg) continue;
      const double b = std::clamp(std::round((mu[k] - low) / H), 0.0, static_cast<double>(n_bins - 1));
      const auto bi = static_cast<std::size_t>(b);
      const double s = (mu[k] - (low + b * H)) / sg;
      double term = std::exp(log_w[k] + log_norm[k] - 0.5 * s * s);
      for (std::size_t m = 0; m < p; ++m) {
        moment[m * n_bins + bi] += term;
        term *= s / static_cast<double>(m + 1);
      }
      used[bi] = 1;
    }
    // filter[m][d + Wn], d in [-Wn, Wn] nodes: exp(-t^2 / 2) t^m, t = d h / sigma.
    const std::size_t Wn = W + r;
    const std::size_t width = 2 * Wn + 1;
    std::vector<double> filter(p * width);
    for (std::size_t d = 0; d < width; ++d) {
      const double t = (static_cast<double>(d) - static_cast<double>(Wn)) * h / sg;
      double v = std::exp(-0.5 * t * t);
      for (std::size_t m = 0; m < p; ++m) {
        filter[m * width + d] = v;
        v *= t;
      }
    }
    for (std::size_t bi = 0; bi < n_bins; ++bi) {
      if (!used[bi]) continue;
      const std::size_t centre = bi * r;
      const std::size_t i0 = centre >= Wn ? centre - Wn : 0;
      const std::size_t i1 = std::min(cells, centre + Wn);
      for (std::size_t m = 0; m < p; ++m) {
        const double c = moment[m * n_bins + bi];
        const double* f = filter.data() + m * width + (i0 + Wn - centre);
        double* o = sum.data() + i0;
        const std::size_t len = i1 - i0 + 1;
        for (std::size_t i = 0; i < len; ++i) o[i] += c * f[i];
      }
    }
  }

  // Direct group: every other kernel over the nodes of its window.
  for (std::size_t k = 0; k < K; ++k) {
    if (binned && sigma[k] == sigma_min) continue;
    const double sg = sigma[k];
    const double c = std::exp(log_w[k] + log_norm[k]);
    const double inv = 1.0 / sg;
    const double centre = nearest_node(mu[k]);
    const double reach = std::ceil(kWindowSigmas * sg / h) + 1.0;
    const auto i0 = static_cast<std::size_t>(std::max(0.0, centre - reach));
    const auto i1 = static_cast<std::size_t>(std::min(last, centre + reach));
    for (std::size_t i = i0; i <= i1; ++i) {
      const double z = (low + static_cast<double>(i) * h - mu[k]) * inv;
      sum[i] += c * std::exp(-0.5 * z * z);
    }
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

}  // namespace tpeopt::tpe::detail
