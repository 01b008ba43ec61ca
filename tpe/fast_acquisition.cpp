#include "tpe/fast_acquisition.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "tpe/truncated_normal.hpp"

namespace tpeopt::tpe::detail {

namespace {
constexpr double kCramer = 1.0865;      // |He_m(t)| exp(-t^2 / 4) <= kCramer sqrt(m!)
constexpr double kBinnedError = 1e-12;  // remainder of the Hermite series, relative to the peak

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
void add_direct(double* sum, double c, double mu, double sg, double low, double h, std::size_t i0, std::size_t i1) {
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

void HermiteBins::plan(double low_, double high, std::size_t cells_, double sigma, std::size_t n_kernels) {
  low = low_;
  cells = cells_;
  h = (high - low) / static_cast<double>(cells);
  sg = sigma;
  inv_sg = 1.0 / sg;
  const auto W = static_cast<std::size_t>(std::ceil(kWindowSigmas * sg / h)) + 1;
  // Bin width r cells: the r of least work (moments + bins x window x terms).
  r = 1;
  p = 0;
  double best_cost = std::numeric_limits<double>::infinity();
  for (std::size_t rr = 1; rr <= 64; rr *= 2) {
    const std::size_t pp = hermite_terms(static_cast<double>(rr) * h / (2.0 * sg));
    const double bins = static_cast<double>(std::min(n_kernels, cells / rr + 1));
    const double cost =
        (bins * static_cast<double>(2 * (W + rr) + 1) + static_cast<double>(n_kernels)) * static_cast<double>(pp);
    if (cost < best_cost) r = rr, p = pp, best_cost = cost;
  }
  n_bins = cells / r + 1;  // bin b is centred on node b * r
  H = static_cast<double>(r) * h;
  // 1 / (m + 1), so that the moments' recurrence multiplies instead of dividing.
  for (std::size_t m = 0; m < p; ++m) inv_next[m] = 1.0 / static_cast<double>(m + 1);
  // filter[m][d + Wn], d in [-Wn, Wn] nodes: exp(-t^2 / 2) He_m(t), t = d h / sigma.
  Wn = W + r;
  width = 2 * Wn + 1;
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
}

namespace {
// HermiteBins::accumulate for one or two coefficient sets of the same kernels (kPair: coef1
// into moment1 as well), skipping kernels whose sigma is not bins.sg when sigma is given.
template <bool kPair>
void accumulate_moments(const HermiteBins& bins, const double* mu, const double* sigma, const double* coef0,
                        const double* coef1, std::size_t K, double* moment0, double* moment1) {
  const std::size_t p = bins.p;
  const double* inv_next = bins.inv_next;
  // Moments accumulate in registers over runs of kernels in the same bin (kernels come
  // sorted by centre from the sorted builders), in kernel order.
  double acc0[HermiteBins::kMaxTerms], acc1[HermiteBins::kMaxTerms];
  std::size_t run_bin = bins.n_bins;  // none yet
  auto flush = [&] {
    if (run_bin == bins.n_bins) return;
    double* mo = moment0 + run_bin * p;
    for (std::size_t m = 0; m < p; ++m) mo[m] += acc0[m];
    if constexpr (kPair) {
      double* m1 = moment1 + run_bin * p;
      for (std::size_t m = 0; m < p; ++m) m1[m] += acc1[m];
    }
  };
  // Kernels of a run are taken four at a time (four independent recurrences).
  double s4[4], t4[4], u4[4];
  std::size_t q = 0;
  auto drain = [&] {
    if (q == 4) {
      for (std::size_t m = 0; m < p; ++m) {
        acc0[m] += (t4[0] + t4[1]) + (t4[2] + t4[3]);
        const double f0 = s4[0] * inv_next[m], f1 = s4[1] * inv_next[m], f2 = s4[2] * inv_next[m],
                     f3 = s4[3] * inv_next[m];
        t4[0] *= f0;
        t4[1] *= f1;
        t4[2] *= f2;
        t4[3] *= f3;
        if constexpr (kPair) {
          acc1[m] += (u4[0] + u4[1]) + (u4[2] + u4[3]);
          u4[0] *= f0;
          u4[1] *= f1;
          u4[2] *= f2;
          u4[3] *= f3;
        }
      }
    } else {
      for (std::size_t e = 0; e < q; ++e)
        for (std::size_t m = 0; m < p; ++m) {
          acc0[m] += t4[e];
          const double f = s4[e] * inv_next[m];
          t4[e] *= f;
          if constexpr (kPair) {
            acc1[m] += u4[e];
            u4[e] *= f;
          }
        }
    }
    q = 0;
  };
  for (std::size_t k = 0; k < K; ++k) {
    if (sigma != nullptr && sigma[k] != bins.sg) continue;
    const double b = bins.bin_of(mu[k]);
    const auto bi = static_cast<std::size_t>(b);
    if (bi != run_bin) {
      drain();
      flush();
      run_bin = bi;
      for (std::size_t m = 0; m < p; ++m) acc0[m] = 0.0;
      if constexpr (kPair)
        for (std::size_t m = 0; m < p; ++m) acc1[m] = 0.0;
    }
    s4[q] = (mu[k] - (bins.low + b * bins.H)) * bins.inv_sg;
    t4[q] = coef0[k];
    if constexpr (kPair) u4[q] = coef1[k];
    if (++q == 4) drain();
  }
  drain();
  flush();
}
}  // namespace

void HermiteBins::accumulate(const double* mu, const double* sigma, const double* coef, std::size_t K,
                             double* moment) const {
  accumulate_moments<false>(*this, mu, sigma, coef, nullptr, K, moment, nullptr);
}

void HermiteBins::accumulate_pair(const double* mu, const double* coef0, const double* coef1, std::size_t K,
                                  double* moment0, double* moment1) const {
  accumulate_moments<true>(*this, mu, nullptr, coef0, coef1, K, moment0, moment1);
}

void HermiteBins::spread(const double* moment, double* sum) const {
  for (std::size_t bi = 0; bi < n_bins; ++bi) {
    const double* mo = moment + bi * p;
    bool used = false;
    for (std::size_t m = 0; m < p && !used; ++m) used = mo[m] != 0.0;
    if (!used) continue;
    const std::size_t centre = bi * r;
    const std::size_t i0 = centre >= Wn ? centre - Wn : 0;
    const std::size_t i1 = std::min(cells, centre + Wn);
    const std::size_t len = i1 - i0 + 1;
    // Each node takes the bin's terms in m order (the same additions, in the same order,
    // as a pass per m), kBlock nodes at a time held in registers.
    double* o = sum + i0;
    const double* f0 = filter.data() + (i0 + Wn - centre);
    constexpr std::size_t kBlock = 8;
    std::size_t i = 0;
    for (; i + kBlock <= len; i += kBlock) {
      double acc[kBlock];
      for (std::size_t e = 0; e < kBlock; ++e) acc[e] = o[i + e];
      for (std::size_t m = 0; m < p; ++m) {
        const double c = mo[m];
        const double* f = f0 + m * width + i;
        for (std::size_t e = 0; e < kBlock; ++e) acc[e] += c * f[e];
      }
      for (std::size_t e = 0; e < kBlock; ++e) o[i + e] = acc[e];
    }
    for (; i < len; ++i) {
      double acc = o[i];
      for (std::size_t m = 0; m < p; ++m) acc += mo[m] * f0[m * width + i];
      o[i] = acc;
    }
  }
}

void add_kernel_direct(double* sum, double c, double mu, double sg, double low, double h, std::size_t cells) {
  const double last = static_cast<double>(cells);
  const double centre = std::clamp(round_half_away((mu - low) / h), 0.0, last);
  const double reach = std::ceil(kWindowSigmas * sg / h) + 1.0;
  const auto i0 = static_cast<std::size_t>(std::max(0.0, centre - reach));
  const auto i1 = static_cast<std::size_t>(std::min(last, centre + reach));
  add_direct(sum, c, mu, sg, low, h, i0, i1);
}

void log_of_sums(const std::vector<double>& sum, double low, double high, std::size_t cells, GridTable& out) {
  out.low = low;
  out.high = high;
  out.cells = cells;
  out.inv_h = 1.0 / ((high - low) / static_cast<double>(cells));
  out.node.resize(cells + 1);
  for (std::size_t i = 0; i <= cells; ++i)
    out.node[i] = sum[i] > 0.0 ? std::log(sum[i]) : -std::numeric_limits<double>::infinity();
}

bool log_density_grid(const double* mu, const double* sigma, const double* coef, std::size_t K, double low, double high,
                      std::size_t cells, GridTable& out, GridScratch& scratch) {
  out.node.clear();
  out.cells = 0;
  if (cells < 4 || !(high > low) || K == 0) return false;
  const double h = (high - low) / static_cast<double>(cells);
  double sigma_min = std::numeric_limits<double>::infinity();
  for (std::size_t k = 0; k < K; ++k) sigma_min = std::min(sigma_min, sigma[k]);
  if (!(sigma_min >= kMinSigmaCells * h)) return false;

  std::vector<double>& sum = scratch.sum;
  sum.assign(cells + 1, 0.0);

  // Binned group: the kernels with the smallest bandwidth, when there are enough of them.
  std::size_t n_min = 0;
  for (std::size_t k = 0; k < K; ++k) n_min += sigma[k] == sigma_min ? 1 : 0;
  const bool binned = n_min >= 32;
  if (binned) {
    HermiteBins& bins = scratch.bins;
    bins.plan(low, high, cells, sigma_min, n_min);
    std::vector<double>& moment = scratch.moment;  // [b * p + m]
    moment.assign(bins.p * bins.n_bins, 0.0);
    bins.accumulate(mu, sigma, coef, K, moment.data());
    bins.spread(moment.data(), sum.data());
  }

  // Direct group: every other kernel over the nodes of its window.
  for (std::size_t k = 0; k < K; ++k) {
    if (binned && sigma[k] == sigma_min) continue;
    add_kernel_direct(sum.data(), coef[k], mu[k], sigma[k], low, h, cells);
  }
  log_of_sums(sum, low, high, cells, out);
  return true;
}

double kernel_scale(double mu, double sigma, double low, double high, double sigma_min, double inv_norm_min) {
  double c = sigma == sigma_min ? inv_norm_min : 1.0 / (sigma * kSqrt2Pi);
  // The kernel's mass 1 - Phi(a) - Phi(-b), a = (low - mu) / sigma <= 0 <= b = (high - mu) /
  // sigma; the centre is in the range and sigma <= range, so b - a >= 1 and the mass is at
  // least Phi(1) - 1/2 = 0.341 (a centre on an edge): no cancellation;
  // a tail beyond 9 sigmas counts as 0 (Phi(-9) = 1.1e-19), so most kernels need no division.
  const double dl = mu - low, dh = high - mu;
  double tail = 0.0;
  if (dl < 9.0 * sigma) tail += truncnorm::ndtr(-dl / sigma);
  if (dh < 9.0 * sigma) tail += truncnorm::ndtr(-dh / sigma);
  return tail != 0.0 ? c / (1.0 - tail) : c;
}

void kernel_coefficients(const ParzenEstimator& est, std::size_t a, std::vector<double>& out) {
  const std::vector<double>& log_norm = est.log_norms(a);
  const std::vector<double>& log_w = est.log_weights();
  out.resize(log_w.size());
  for (std::size_t k = 0; k < out.size(); ++k) out[k] = std::exp(log_w[k] + log_norm[k]);
}

bool log_density_grid(const ParzenEstimator& est, std::size_t a, const AxisModel& model, std::size_t cells,
                      GridTable& out) {
  out = GridTable{};
  if (model.type != AxisModel::Type::Continuous) return false;
  std::vector<double> coef;
  kernel_coefficients(est, a, coef);
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
  const double prior_mu = model.prior_mu();
  const std::size_t n = n_group;

  // The group's centres in (value, trial) order with the prior's inserted after its equals
  // (ParzenEstimator's stable order: the prior is last among ties).
  // Gathered with each centre: its weight (in coef, turned into the coefficient below).
  std::vector<double>& mu = scratch.mu;
  std::vector<double>& coef = scratch.coef;
  mu.resize(n + 1);
  coef.resize(n + 1);
  std::size_t j = 0, prior_at = n + 1;
  // The observations are visited in value order, so their columns are read at random:
  // fetch a few dozen ahead (the hardware does not prefetch through an index).
  constexpr std::size_t kAhead = 32;
  for (std::size_t q = 0; q < n_obs; ++q) {
    if (q + kAhead < n_obs) {
      const std::uint32_t ahead = sorted_index[q + kAhead];
      __builtin_prefetch(value + ahead);
      __builtin_prefetch(member_weight + ahead);
      __builtin_prefetch(in_group + ahead);
    }
    const std::uint32_t i = sorted_index[q];
    if (!in_group[i]) continue;
    if (j > n) return false;  // inconsistent group size (not expected)
    const double v = value[i];
    if (prior_at > n && v > prior_mu) {
      mu[j] = prior_mu;
      coef[j] = prior_weight;
      prior_at = j++;
      if (j > n) return false;
    }
    mu[j] = v;
    coef[j++] = member_weight[i];
  }
  if (prior_at > n) {
    if (j > n) return false;
    mu[j] = prior_mu;
    coef[j] = prior_weight;
    prior_at = j++;
  }
  if (j != n + 1) return false;  // inconsistent group size (not expected)

  // Bandwidths from the neighbour gaps, the range's edges as outer neighbours.
  std::vector<double>& sigma = scratch.sigma;
  sigma.resize(n + 1);
  const double min_sigma =
      params.consider_magic_clip ? range / std::min(100.0, 1.0 + static_cast<double>(n + 1)) : 1e-12;
  const double inv_norm_min = 1.0 / (min_sigma * kSqrt2Pi);
  for (std::size_t e = 0; e <= n; ++e) {
    const double gap_left = mu[e] - (e == 0 ? low : mu[e - 1]), gap_right = (e == n ? high : mu[e + 1]) - mu[e];
    const double sg = e == prior_at ? range
                                    : neighbour_bandwidth(gap_left, gap_right, e == 0, e == n,
                                                          params.consider_endpoints, min_sigma, range);
    sigma[e] = sg;
    coef[e] *= kernel_scale(mu[e], sg, low, high, min_sigma, inv_norm_min);
  }
  return log_density_grid(mu.data(), sigma.data(), coef.data(), n + 1, low, high, cells, out, scratch);
}

bool CubicTable::build(const GridTable& t) {
  c.clear();
  cells = t.cells;
  if (cells < 4 || t.node.size() != cells + 1) return false;
  for (double v : t.node)
    if (!std::isfinite(v)) return false;
  low = t.low;
  inv_h = t.inv_h;
  c.resize(4 * cells);
  for (std::size_t cell = 0; cell < cells; ++cell) {
    // GridTable::at's stencil: nodes i - 1 .. i + 2 with i clamped to [1, cells - 2].
    const std::size_t i = std::clamp<std::size_t>(cell, 1, cells - 2);
    const double* p = t.node.data() + i - 1;
    const double c1 = (-2.0 * p[0] - 3.0 * p[1] + 6.0 * p[2] - p[3]) / 6.0;
    const double c2 = (p[0] - 2.0 * p[1] + p[2]) / 2.0;
    const double c3 = (-p[0] + 3.0 * p[1] - 3.0 * p[2] + p[3]) / 6.0;
    const double s = static_cast<double>(cell) - static_cast<double>(i);  // -1, 0 or 1
    double* q = c.data() + 4 * cell;
    q[0] = p[1] + s * (c1 + s * (c2 + s * c3));
    q[1] = c1 + s * (2.0 * c2 + 3.0 * s * c3);
    q[2] = c2 + 3.0 * s * c3;
    q[3] = c3;
  }
  return true;
}

bool CandidateTable::build(const GridTable& log_l) {
  cells = log_l.cells;
  dens.clear();
  cdf.clear();
  q.clear();
  if (cells < 2 || log_l.node.size() != cells + 1) return false;
  low = log_l.low;
  high = log_l.high;
  h = (high - low) / static_cast<double>(cells);
  double top = -std::numeric_limits<double>::infinity();
  for (double v : log_l.node) {
    if (!std::isfinite(v)) return false;
    top = std::max(top, v);
  }
  dens.resize(cells + 1);
  cdf.resize(cells + 1);
  for (std::size_t i = 0; i <= cells; ++i) dens[i] = std::exp(log_l.node[i] - top);
  cdf[0] = 0.0;
  for (std::size_t i = 0; i < cells; ++i) cdf[i + 1] = cdf[i] + 0.5 * h * (dens[i] + dens[i + 1]);
  const double total = cdf[cells];
  if (!(total > 0.0) || !std::isfinite(total)) return false;
  const double inv_total = 1.0 / total;
  for (std::size_t i = 0; i <= cells; ++i) {
    dens[i] *= inv_total;
    cdf[i] *= inv_total;
  }
  cdf[cells] = 1.0;
  // Quantile nodes Q(j / M): the cell holding the level, then the quadratic CDF solved
  // within it (the stable root 2 r / (a + sqrt(a^2 + 2 (b - a) r))).
  std::vector<double> node(kQuantileCells + 1);
  node[0] = low;
  node[kQuantileCells] = high;
  std::size_t i = 0;
  for (std::size_t j = 1; j < kQuantileCells; ++j) {
    const double level = static_cast<double>(j) / static_cast<double>(kQuantileCells);
    while (i + 1 < cells && cdf[i + 1] <= level) ++i;
    const double r = (level - cdf[i]) / h;
    const double a = dens[i], b = dens[i + 1];
    const double den = a + std::sqrt(std::max(a * a + 2.0 * (b - a) * r, 0.0));
    const double f = den > 0.0 ? std::clamp(2.0 * r / den, 0.0, 1.0) : 0.0;
    node[j] = std::clamp(low + (static_cast<double>(i) + f) * h, node[j - 1], high);
  }
  q.resize(2 * kQuantileCells);
  for (std::size_t j = 0; j < kQuantileCells; ++j) {
    q[2 * j] = node[j];
    q[2 * j + 1] = node[j + 1] - node[j];
  }
  return true;
}

void CandidateTable::set_scores(const CubicTable& score) {
  t.resize(2 * kQuantileCells);
  double prev = score.at(q[0]);
  for (std::size_t j = 0; j < kQuantileCells; ++j) {
    const double next = score.at(j + 1 == kQuantileCells ? high : q[2 * j + 2]);
    t[2 * j] = prev;
    t[2 * j + 1] = next - prev;
    prev = next;
  }
}

double CandidateTable::cdf_at(double x) const {
  const double u = (x - low) / h;
  if (!(u > 0.0)) return 0.0;
  if (u >= static_cast<double>(cells)) return 1.0;
  const auto i = std::min(static_cast<std::size_t>(u), cells - 1);
  const double f = u - static_cast<double>(i);
  return cdf[i] + h * f * (dens[i] + 0.5 * f * (dens[i + 1] - dens[i]));
}

void AliasTable::build(const std::vector<double>& p) {
  const std::size_t n = p.size();
  entry.assign(n, 0);
  double total = 0.0;
  for (double v : p) total += v;
  std::vector<double> scaled(n);
  std::vector<std::uint32_t> small, large, alias(n);
  std::vector<double> prob(n, 1.0);
  for (std::size_t j = 0; j < n; ++j) {
    scaled[j] = p[j] * static_cast<double>(n) / total;
    alias[j] = static_cast<std::uint32_t>(j);
    (scaled[j] < 1.0 ? small : large).push_back(static_cast<std::uint32_t>(j));
  }
  // Vose's construction, in a fixed order.
  while (!small.empty() && !large.empty()) {
    const std::uint32_t s = small.back();
    small.pop_back();
    const std::uint32_t l = large.back();
    prob[s] = scaled[s];
    alias[s] = l;
    scaled[l] = (scaled[l] + scaled[s]) - 1.0;
    if (scaled[l] < 1.0) {
      large.pop_back();
      small.push_back(l);
    }
  }
  for (std::size_t j = 0; j < n; ++j) {
    const double t = std::clamp(std::round(prob[j] * 0x1p32), 0.0, 0x1p32);
    entry[j] = (static_cast<std::uint64_t>(alias[j]) << 33) | static_cast<std::uint64_t>(t);
  }
}

std::vector<double> AliasTable::probabilities() const {
  const std::size_t n = entry.size();
  std::vector<double> p(n, 0.0);
  for (std::size_t j = 0; j < n; ++j) {
    const double t = static_cast<double>(entry[j] & ((std::uint64_t{1} << 33) - 1)) * 0x1p-32;
    p[j] += t / static_cast<double>(n);
    p[static_cast<std::size_t>(entry[j] >> 33)] += (1.0 - t) / static_cast<double>(n);
  }
  return p;
}

std::size_t discrete_table_cells(const AxisModel& model) {
  if (model.type != AxisModel::Type::Discrete || !(model.step > 0.0)) return 0;
  const std::size_t n_grid = model.n_grid();
  if (n_grid < 2 || n_grid > kMaxFastGrid) return 0;
  const std::size_t r = std::max<std::size_t>(2, 2 * ((512 + n_grid - 1) / n_grid));
  return n_grid * r;
}

bool discrete_masses(const GridTable& log_density, const AxisModel& model, std::vector<double>& out,
                     GridScratch& scratch) {
  out.clear();
  const std::size_t cells = discrete_table_cells(model);
  if (cells == 0 || log_density.cells != cells || log_density.node.size() != cells + 1) return false;
  const std::size_t n_grid = model.n_grid();
  const std::size_t r = cells / n_grid;
  const double h = (model.upper() - model.lower()) / static_cast<double>(cells);
  std::vector<double>& d = scratch.sum;  // the linear densities at the nodes
  d.resize(cells + 1);
  for (std::size_t i = 0; i <= cells; ++i) d[i] = std::exp(log_density.node[i]);
  out.resize(n_grid);
  for (std::size_t g = 0; g < n_grid; ++g) {
    const double* x = d.data() + g * r;
    double odd = 0.0, even = 0.0;
    for (std::size_t k = 1; k < r; k += 2) odd += x[k];
    for (std::size_t k = 2; k < r; k += 2) even += x[k];
    out[g] = (h / 3.0) * (x[0] + x[r] + 4.0 * odd + 2.0 * even);
    if (!std::isfinite(out[g])) {
      out.clear();
      return false;
    }
  }
  return true;
}

bool grid_masses(const double* mu, const double* sigma, const double* coef, std::size_t K, const AxisModel& model,
                 std::vector<double>& out, GridScratch& scratch) {
  out.clear();
  const std::size_t cells = discrete_table_cells(model);
  if (cells == 0) return false;
  GridTable table;
  if (!log_density_grid(mu, sigma, coef, K, model.lower(), model.upper(), cells, table, scratch)) return false;
  return discrete_masses(table, model, out, scratch);
}

bool grid_masses(const ParzenEstimator& est, std::size_t a, const AxisModel& model, std::vector<double>& out,
                 GridScratch& scratch) {
  const std::size_t K = est.n_kernels();
  std::vector<double> coef;
  kernel_coefficients(est, a, coef);  // then per unit of x: / (sigma sqrt(2 pi))
  for (std::size_t k = 0; k < K; ++k) coef[k] = coef[k] / (est.sigmas(a)[k] * kSqrt2Pi);
  return grid_masses(est.mus(a).data(), est.sigmas(a).data(), coef.data(), K, model, out, scratch);
}

bool ContinuousFastAxis::build(const GridTable& log_l, const GridTable& log_g) {
  if (log_l.node.size() != log_g.node.size() || !cand.build(log_l)) return false;
  GridTable diff = log_l;
  for (std::size_t i = 0; i < diff.node.size(); ++i) diff.node[i] = log_l.node[i] - log_g.node[i];
  if (!score.build(diff)) return false;  // a node not finite
  cand.set_scores(score);
  return true;
}

std::size_t log_int_points(const Axis& axis, const AxisModel& model) {
  if (model.type != AxisModel::Type::Continuous || !model.log) return 0;
  if (!(axis.step > 0.0) && axis.kind != Axis::Kind::Int) return 0;
  const double step = axis.step > 0.0 ? axis.step : 1.0;
  return static_cast<std::size_t>(std::llround((axis.high - axis.low) / step)) + 1;
}

bool GridFastAxis::build_log_int(const Axis& axis, const AxisModel& model, const ContinuousFastAxis& continuous) {
  const std::size_t n = log_int_points(axis, model);
  if (n < 2 || n > kMaxFastGrid) return false;
  const double step = axis.step > 0.0 ? axis.step : 1.0;
  std::vector<double> mass(n);
  score.resize(n);
  external.resize(n);
  internal.resize(n);
  double prev = 0.0;
  for (std::size_t v = 0; v < n; ++v) {
    const double value = axis.snap(axis.low + static_cast<double>(v) * step);
    const double next = v + 1 == n ? 1.0 : continuous.cand.cdf_at(std::log(value + step / 2));
    mass[v] = std::max(next - prev, 0.0);
    prev = std::max(prev, next);
    external[v] = value;
    internal[v] = model.to_internal(axis, value);
    score[v] = continuous.score.at(internal[v]);
  }
  alias.build(mass);
  return true;
}

bool GridFastAxis::build_discrete(const Axis& axis, const AxisModel& model, const std::vector<double>& mass_l,
                                  const std::vector<double>& mass_g) {
  const std::size_t n = mass_l.size();
  if (n < 2 || mass_g.size() != n) return false;
  score.resize(n);
  external.resize(n);
  internal.resize(n);
  double total = 0.0;
  for (std::size_t v = 0; v < n; ++v) {
    const double s = std::log(mass_l[v]) - std::log(mass_g[v]);
    score[v] = std::isnan(s) ? -std::numeric_limits<double>::infinity() : s;
    external[v] = model.to_external(axis, model.low + static_cast<double>(v) * model.step);
    internal[v] = model.to_internal(axis, external[v]);
    total += mass_l[v];
  }
  if (!(total > 0.0) || !std::isfinite(total)) return false;
  alias.build(mass_l);
  return true;
}

}  // namespace tpeopt::tpe::detail
