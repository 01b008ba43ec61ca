#include "tpe/observed_kernels.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "common/error.hpp"

namespace tpeopt::tpe::detail {

TrialOrderWeights::TrialOrderWeights(std::size_t n_observations) : n(n_observations) {
  // Optuna's default_weights(n): ones for n <= 25, else linspace(1/n, 1, n - 25) then 25 ones.
  if (n > 25) {
    alpha = 1.0 / static_cast<double>(n);
    beta = n > 26 ? (1.0 - alpha) / static_cast<double>(n - 26) : 0.0;
  }
}

SortedView::SortedView(const std::uint32_t* order_, const double* sorted_value, std::size_t n_, double prior_mu_)
    : order(order_), value(sorted_value), n(n_), prior_mu(prior_mu_) {
  // The prior comes after the observations equal to its centre.
  prior_at = static_cast<std::size_t>(std::upper_bound(value, value + n, prior_mu) - value);
}

std::size_t SortedView::position_of_index(std::uint32_t i, double v) const {
  std::size_t lo = 0, hi = n;  // the first slot not before (v, i)
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if (value[mid] < v || (value[mid] == v && order[mid] < i))
      lo = mid + 1;
    else
      hi = mid;
  }
  return position_of(lo);
}

double ObservedKernels::bandwidth(const SortedView& view, std::size_t q, const char* is_below) const {
  // The nearest kernels of the group on each side (the prior's centre is always one).
  std::size_t left = q - 1, right = q + 1;  // left wraps past 0 to SIZE_MAX when there is none
  if (is_below != nullptr) {
    auto skipped = [&](std::size_t p) { return !view.is_prior(p) && is_below[view.index(p)]; };
    while (left < q && skipped(left)) --left;
    while (right <= view.n && skipped(right)) ++right;
  }
  const bool first = left > q, last = right > view.n;
  const double x = view.x(q);
  const double gap_left = x - (first ? low_ : view.x(left));
  const double gap_right = (last ? high_ : view.x(right)) - x;
  return neighbour_bandwidth(gap_left, gap_right, first, last, consider_endpoints_, sigma_min_, range_);
}

double ObservedKernels::scale(double mu, double sigma) const {
  return kernel_scale(mu, sigma, low_, high_, sigma_min_, inv_norm_min_);
}

bool ObservedKernels::can_hold(const AxisModel& model, const ParzenParameters& params) {
  const bool numeric = model.type == AxisModel::Type::Continuous ||
                       (model.type == AxisModel::Type::Discrete && discrete_table_cells(model) > 0);
  return numeric && model.high > model.low && params.consider_magic_clip;
}

void ObservedKernels::rebuild(const SortedView& view, const AxisModel& model, const ParzenParameters& params) {
  ready_ = false;
  if (!can_hold(model, params) || view.n < kFromObservations) return;
  // A continuous axis is tabulated on kGridCells cells of [low, high]; a discrete one on the
  // cells of its widened range [low - step/2, high + step/2] that discrete_masses integrates.
  cells_ = model.type == AxisModel::Type::Discrete ? discrete_table_cells(model) : kGridCells;
  consider_endpoints_ = params.consider_endpoints;
  low_ = model.lower();
  high_ = model.upper();
  range_ = high_ - low_;
  sigma_min_ = range_ / 100.0;  // magic clip: range / min(100, group + 2), the group has >= 231
  inv_norm_min_ = 1.0 / (sigma_min_ * kSqrt2Pi);
  // The plan weighs what the sums cost from now on, not the rebuild: every ask spreads the
  // bins, every tell adds a batch's kernels to both sums, and a moment term costs about four
  // filter terms (0.9 vs 0.23 ns measured on the 2-core box: the moments' recurrences are
  // serial). Planned for batches of 4096, so the same plan whatever the observations at the
  // rebuild: 8 cells a bin, 15 terms.
  bins_.plan(low_, high_, cells_, sigma_min_, 2 * 4 * kPlanBatch);
  moment0_.assign(bins_.p * bins_.n_bins, 0.0);
  moment1_.assign(bins_.p * bins_.n_bins, 0.0);
  direct0_.assign(cells_ + 1, 0.0);
  direct1_.assign(cells_ + 1, 0.0);
  n_ = 0;
  ready_ = true;
  std::vector<std::size_t> all(view.n);
  for (std::size_t o = 0; o < view.n; ++o) all[o] = o;
  update(SortedView(view.order, view.value, 0, view.prior_mu), view, all);
  // The rebuild staged every observation; later tells stage about three kernels per new one.
  std::vector<double>().swap(binned_mu_);
  std::vector<double>().swap(binned_c0_);
  std::vector<double>().swap(binned_c1_);
}

void ObservedKernels::add_kernel(double mu, double sigma, double c0, double c1) {
  if (sigma == sigma_min_) {
    binned_mu_.push_back(mu);
    binned_c0_.push_back(c0);
    binned_c1_.push_back(c1);
  } else {
    add_kernel_direct(direct0_.data(), c0, mu, sigma, low_, bins_.h, cells_);
    add_kernel_direct(direct1_.data(), c1, mu, sigma, low_, bins_.h, cells_);
  }
}

void ObservedKernels::update(const SortedView& before, const SortedView& after, std::span<const std::size_t> fresh) {
  if (!ready_ || fresh.empty()) return;
  if (before.n != n_ || after.n != n_ + fresh.size())
    throw make_error("tpe sampler: g's running sums hold {} observations; the tell went from {} to {}", n_, before.n,
                     after.n);
  binned_mu_.clear();
  binned_c0_.clear();
  binned_c1_.clear();
  // Only the new observations and their neighbours have new gaps. A neighbour whose bandwidth
  // changed is taken out with its old bandwidth (from its old neighbours) and put back.
  std::size_t next = 0;  // positions below it are done
  constexpr std::size_t kAhead = 16;  // the positions skip ahead irregularly: fetch the lines early
  for (std::size_t k = 0; k < fresh.size(); ++k) {
    if (k + kAhead < fresh.size()) {
      const std::size_t o = fresh[k + kAhead], o_before = o - (k + kAhead);
      __builtin_prefetch(after.value + o);
      __builtin_prefetch(after.order + o);
      if (o_before < before.n) {
        __builtin_prefetch(before.value + o_before);
        __builtin_prefetch(before.order + o_before);
      }
    }
    const std::size_t q = after.position_of(fresh[k]);
    for (std::size_t p = std::max(q > 0 ? q - 1 : 0, next); p <= std::min(after.n, q + 1); ++p) {
      next = p + 1;
      if (after.is_prior(p)) continue;  // its bandwidth is the range
      const std::uint32_t i = after.index(p);
      const double mu = after.x(p);
      const double sigma = bandwidth(after, p, nullptr);
      const auto index = static_cast<double>(i);
      if (i < n_) {
        // Not new, so a neighbour of fresh[k]: the new observations before it are fresh[0 .. k)
        // and, if it comes after fresh[k], fresh[k] too.
        const std::size_t o = after.slot(p);
        const double old = bandwidth(before, before.position_of(o - k - (o > fresh[k] ? 1 : 0)), nullptr);
        if (old == sigma) continue;
        const double c = -scale(mu, old);
        add_kernel(mu, old, c, c * index);
      }
      const double c = scale(mu, sigma);
      add_kernel(mu, sigma, c, c * index);
    }
  }
  bins_.accumulate_pair(binned_mu_.data(), binned_c0_.data(), binned_c1_.data(), binned_mu_.size(),
                        moment0_.data(), moment1_.data());
  n_ = after.n;
}

bool ObservedKernels::log_density(const SortedView& view, const double* column, const char* is_below,
                                  std::span<const std::size_t> below,
                                  const TrialOrderWeights& w, double total, double prior_weight, GridTable& out,
                                  GridScratch& scratch) const {
  out.node.clear();
  out.cells = 0;
  if (!ready_ || view.n != n_ || !(total > 0.0)) return false;
  // The sums with the ramp's coefficients: every observation i at weight ramp(i), with the
  // bandwidth it has among all observations.
  std::vector<double>& moment = scratch.moment;
  moment.resize(moment0_.size());
  for (std::size_t k = 0; k < moment.size(); ++k) moment[k] = w.alpha * moment0_[k] + w.beta * moment1_[k];
  std::vector<double>& sum = scratch.sum;
  sum.resize(cells_ + 1);
  for (std::size_t k = 0; k <= cells_; ++k) sum[k] = w.alpha * direct0_[k] + w.beta * direct1_[k];

  // Corrections, each kernel's true term minus its term in the sums: the below group's
  // (weight 0), the newest 25 (weight 1), and the below group's nearest above neighbours,
  // whose bandwidth within the above group may differ.
  std::vector<std::size_t>& special = scratch.special;
  special.clear();
  auto position = [&](std::size_t i) { return view.position_of_index(static_cast<std::uint32_t>(i), column[i]); };
  for (std::size_t i = view.n > 25 ? view.n - 25 : 0; i < view.n; ++i) special.push_back(position(i));
  for (const std::size_t i : below) {
    const std::size_t q = position(i);
    special.push_back(q);
    std::size_t p = q;
    while (p > 0 && !view.is_prior(p - 1) && is_below[view.index(p - 1)]) --p;
    if (p > 0) special.push_back(p - 1);
    p = q;
    while (p < view.n && !view.is_prior(p + 1) && is_below[view.index(p + 1)]) ++p;
    if (p < view.n) special.push_back(p + 1);
  }
  std::sort(special.begin(), special.end());
  special.erase(std::unique(special.begin(), special.end()), special.end());
  std::vector<double>& mu = scratch.mu;
  std::vector<double>& coef = scratch.coef;
  mu.clear();
  coef.clear();
  auto correct = [&](double x, double sigma, double c) {
    if (sigma == sigma_min_) {
      mu.push_back(x);
      coef.push_back(c);
    } else {
      add_kernel_direct(sum.data(), c, x, sigma, low_, bins_.h, cells_);
    }
  };
  for (const std::size_t q : special) {
    if (view.is_prior(q)) continue;
    const std::uint32_t i = view.index(q);
    const double x = view.x(q);
    const double in_sums = w.ramp(i);
    const double sigma_all = bandwidth(view, q, nullptr);
    if (is_below[i]) {
      correct(x, sigma_all, -in_sums * scale(x, sigma_all));
      continue;
    }
    const double sigma = bandwidth(view, q, is_below);
    const double weight = w.of(i);
    if (sigma == sigma_all) {
      if (weight != in_sums) correct(x, sigma, (weight - in_sums) * scale(x, sigma));
      continue;
    }
    correct(x, sigma_all, -in_sums * scale(x, sigma_all));
    correct(x, sigma, weight * scale(x, sigma));
  }
  bins_.accumulate(mu.data(), nullptr, coef.data(), mu.size(), moment.data());
  // The prior: bandwidth = the range, at every node.
  add_kernel_direct(sum.data(), prior_weight * scale(view.prior_mu, range_), view.prior_mu, range_, low_, bins_.h,
                    cells_);
  bins_.spread(moment.data(), sum.data());
  const double inv_total = 1.0 / total;
  for (double& s : sum) s *= inv_total;
  log_of_sums(sum, low_, high_, cells_, out);
  return true;
}

}  // namespace tpeopt::tpe::detail
