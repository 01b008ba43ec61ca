#include "tpe/density_ratio.hpp"

#include <algorithm>
#include <cmath>
#include <unordered_set>

namespace tpeopt::tpe {

namespace {

constexpr double kWindowSigmas = 6.0;
constexpr double kNodesPerBandwidth = 4.0;
constexpr std::size_t kMaxCells = 4096;
constexpr std::size_t kHistogramBins = 64;
constexpr double kInvSqrt2Pi = 0.3989422804014327;

// Densities at the nodes x_i = low + i * cell (i = 0 .. n_cells) of the mixture
// sum_k weight_k N(x; point_k, h^2), by linear binning of the points onto the nodes and a
// Gaussian filter truncated at kWindowSigmas. Points outside the nodes' span are left out.
std::vector<double> binned_density(const std::vector<double>& points, const std::vector<double>& weights, double low,
                                   double cell, std::size_t n_cells, double h) {
  const std::size_t n = n_cells + 1;
  std::vector<double> bins(n, 0.0), out(n, 0.0);
  if (cell == 0.0) {  // a single node: exact sum
    for (std::size_t k = 0; k < points.size(); ++k) {
      const double z = (low - points[k]) / h;
      out[0] += weights[k] * kInvSqrt2Pi * std::exp(-0.5 * z * z) / h;
    }
    return out;
  }
  for (std::size_t k = 0; k < points.size(); ++k) {
    const double pos = (points[k] - low) / cell;
    if (pos < 0.0 || pos > static_cast<double>(n_cells)) continue;
    const auto i = std::min(static_cast<std::size_t>(pos), n_cells - 1);
    const double f = pos - static_cast<double>(i);
    bins[i] += weights[k] * (1.0 - f);
    bins[i + 1] += weights[k] * f;
  }
  const double s = h / cell;  // the kernel's standard deviation in nodes
  const auto reach =
      static_cast<std::ptrdiff_t>(std::min<double>(std::ceil(kWindowSigmas * s), static_cast<double>(n)));
  std::vector<double> kernel(static_cast<std::size_t>(reach) + 1);
  for (std::ptrdiff_t o = 0; o <= reach; ++o) {
    const double z = static_cast<double>(o) / s;
    kernel[static_cast<std::size_t>(o)] = kInvSqrt2Pi * std::exp(-0.5 * z * z) / h;
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (bins[i] == 0.0) continue;
    const auto lo = static_cast<std::ptrdiff_t>(i) - reach, hi = static_cast<std::ptrdiff_t>(i) + reach;
    for (std::ptrdiff_t j = std::max<std::ptrdiff_t>(lo, 0);
         j <= std::min<std::ptrdiff_t>(hi, static_cast<std::ptrdiff_t>(n) - 1); ++j)
      out[static_cast<std::size_t>(j)] +=
          bins[i] * kernel[static_cast<std::size_t>(std::abs(j - static_cast<std::ptrdiff_t>(i)))];
  }
  return out;
}

}  // namespace

DensityRatio::DensityRatio(const UnitSpace& space, const GoodSetModel& model, const GoodPool& pool, WorkerPool& workers)
    : space_(&space), tables_(space.n_codes()) {
  // g's trials: the recent ones that are not in the good set.
  std::unordered_set<std::uint64_t> good;
  for (std::size_t r = 0; r < model.size(); ++r) good.insert(pool.best(r).trial);
  std::vector<const double*> others;
  for (std::size_t i = 0; i < pool.recent_size(); ++i)
    if (!good.count(pool.recent(i).trial)) others.push_back(pool.recent_codes(i));
  const double n_others = static_cast<double>(others.size());
  const double prior_g = 1.0 / (n_others + 1.0);
  workers.parallel_for(space.n_codes(), [&](std::size_t begin, std::size_t end) {
    for (std::size_t c = begin; c < end; ++c) {
      AxisTable& t = tables_[c];
      if (!space.categorical(c)) {
        build_numeric(c, model, others, t);
        continue;
      }
      const std::size_t k = space.n_choices(c);
      std::vector<double> count(k, 0.0);
      for (const double* o : others) count[static_cast<std::size_t>(o[c])] += 1.0;
      t.choice.resize(k);
      for (std::size_t j = 0; j < k; ++j) {
        const double g = (count[j] / std::max(n_others, 1.0) + prior_g / static_cast<double>(k)) / (1.0 + prior_g);
        t.choice[j] = std::log(model.choice_probability(c, j)) - std::log(g);
      }
    }
  });
}

void DensityRatio::build_numeric(std::size_t c, const GoodSetModel& model, const std::vector<const double*>& others,
                                 AxisTable& t) const {
  const double h = model.scott_bandwidth(c);
  double lo = 1.0, hi = 0.0;
  std::vector<double> good_points(model.size()), good_weights(model.size());
  for (std::size_t r = 0; r < model.size(); ++r) {
    good_points[r] = model.codes(r)[c];
    good_weights[r] = model.weight(r);
    lo = std::min(lo, good_points[r]);
    hi = std::max(hi, good_points[r]);
  }
  lo = std::max(0.0, lo - kWindowSigmas * h);
  hi = std::min(1.0, hi + kWindowSigmas * h);
  const auto n_cells = static_cast<std::size_t>(
      std::clamp(std::ceil((hi - lo) / h * kNodesPerBandwidth), 1.0, static_cast<double>(kMaxCells)));
  t.low = lo;
  t.cell = hi > lo ? (hi - lo) / static_cast<double>(n_cells) : 0.0;
  const std::size_t cells = t.cell == 0.0 ? 0 : n_cells;

  std::vector<double> other_points(others.size()),
      other_weights(others.size(), 1.0 / std::max<double>(1.0, static_cast<double>(others.size())));
  std::vector<double> histogram(kHistogramBins, 0.0);
  for (std::size_t i = 0; i < others.size(); ++i) {
    other_points[i] = others[i][c];
    histogram[std::min(static_cast<std::size_t>(other_points[i] * kHistogramBins), kHistogramBins - 1)] += 1.0;
  }
  const double prior_l = model.prior_weight();
  const double prior_g = 1.0 / (static_cast<double>(others.size()) + 1.0);
  const std::vector<double> l = binned_density(good_points, good_weights, lo, t.cell, cells, h);
  const std::vector<double> g = binned_density(other_points, other_weights, lo, t.cell, cells, h);
  t.node.resize(cells + 1);
  for (std::size_t i = 0; i <= cells; ++i)
    t.node[i] = std::log((l[i] + prior_l) / (1.0 + prior_l)) - std::log((g[i] + prior_g) / (1.0 + prior_g));
  t.outside_l = std::log(prior_l / (1.0 + prior_l));
  t.outside_g.resize(kHistogramBins);
  const double per_bin =
      static_cast<double>(kHistogramBins) / std::max<double>(1.0, static_cast<double>(others.size()));
  for (std::size_t b = 0; b < kHistogramBins; ++b)
    t.outside_g[b] = std::log((histogram[b] * per_bin + prior_g) / (1.0 + prior_g));
}

double DensityRatio::score(const double* codes) const {
  double s = 0.0;
  for (std::size_t c = 0; c < tables_.size(); ++c) {
    const AxisTable& t = tables_[c];
    const double x = codes[c];
    if (space_->categorical(c)) {
      s += t.choice[static_cast<std::size_t>(x)];
      continue;
    }
    const double span = t.cell * static_cast<double>(t.node.size() - 1);
    if (x < t.low || x > t.low + span) {
      s += t.outside_l - t.outside_g[std::min(static_cast<std::size_t>(x * kHistogramBins), kHistogramBins - 1)];
      continue;
    }
    if (t.cell == 0.0) {
      s += t.node[0];
      continue;
    }
    const double pos = (x - t.low) / t.cell;
    const auto i = std::min(static_cast<std::size_t>(pos), t.node.size() - 2);
    const double f = pos - static_cast<double>(i);
    s += t.node[i] + f * (t.node[i + 1] - t.node[i]);
  }
  return s;
}

}  // namespace tpeopt::tpe
