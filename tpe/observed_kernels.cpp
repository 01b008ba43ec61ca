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

double ObservedKernels::bandwidth(double x, const OrderEntry* left, const OrderEntry* right) const {
  const double gap_left = x - (left == nullptr ? low_ : left->x);
  const double gap_right = (right == nullptr ? high_ : right->x) - x;
  return neighbour_bandwidth(gap_left, gap_right, left == nullptr, right == nullptr, consider_endpoints_, sigma_min_,
                             range_);
}

std::pair<const OrderEntry*, const OrderEntry*> ObservedKernels::above_neighbours(const RunCursor& at,
                                                                                  const char* is_below,
                                                                                  OrderEntry& left, OrderEntry& right) {
  auto skipped = [&](const OrderEntry& e) { return !e.is_prior() && is_below[e.index]; };
  RunCursor walk = at;
  bool has_left = walk.before(left);
  while (has_left && skipped(left)) {
    walk.step_back();
    has_left = walk.before(left);
  }
  walk = at;
  walk.step_forward();
  bool has_right = walk.after(right);
  while (has_right && skipped(right)) {
    walk.step_forward();
    has_right = walk.after(right);
  }
  return {has_left ? &left : nullptr, has_right ? &right : nullptr};
}

double ObservedKernels::scale(double mu, double sigma) const {
  return kernel_scale(mu, sigma, low_, high_, sigma_min_, inv_norm_min_);
}

bool ObservedKernels::can_hold(const AxisModel& model, const ParzenParameters& params) {
  const bool numeric = model.type == AxisModel::Type::Continuous ||
                       (model.type == AxisModel::Type::Discrete && discrete_table_cells(model) > 0);
  return numeric && model.high > model.low && params.consider_magic_clip;
}

void ObservedKernels::rebuild(const SortedRuns& runs, const AxisModel& model, const ParzenParameters& params) {
  ready_ = false;
  if (!can_hold(model, params) || runs.size() < kFromObservations) return;
  // A continuous axis is tabulated on kGridCells cells of [low, high]; a discrete one on the
  // cells of its widened range [low - step/2, high + step/2] that discrete_masses integrates.
  cells_ = model.type == AxisModel::Type::Discrete ? discrete_table_cells(model) : kGridCells;
  consider_endpoints_ = params.consider_endpoints;
  low_ = model.lower();
  high_ = model.upper();
  range_ = high_ - low_;
  prior_mu_ = model.prior_mu();
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
  // Every observation as new, over no old ones.
  SortedRun all, scratch;
  runs.gather(all, scratch);
  const SortedRuns none;
  StagedBatch staged;
  none.stage(all, staged);
  update(none, all, staged);
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

void ObservedKernels::update(const SortedRuns& before, const SortedRun& fresh, const StagedBatch& staged) {
  if (!ready_ || fresh.size() == 0) return;
  if (before.size() != n_)
    throw make_error("tpe sampler: g's running sums hold {} observations; the tell found {}", n_, before.size());
  binned_mu_.clear();
  binned_c0_.clear();
  binned_c1_.clear();
  // Only the new observations and their neighbours have new gaps. A neighbour whose bandwidth
  // changed is taken out with its old bandwidth (from its old neighbours) and put back. Each
  // new observation f is visited with the elements on either side, L1 and R1, in ascending
  // order (each once): the same kernels in the same order as a walk of the merged order.
  // The two nearest elements on each side of f, in the new order and in the old: level 0's
  // from the staged merge (its new order, `merged`, and its old one, at f's positions in
  // them), the other levels' and the prior's centre from a cursor walked by the batch.
  const std::span<const SortedRun> levels(before.levels());
  const SortedRun& old0 = before.level(0);
  const SortedRun& new0 = staged.merged;
  RunCursor upper(levels.empty() ? levels : levels.subspan(1), prior_mu_);
  std::vector<std::uint32_t>& positions = positions_;
  upper.plan(fresh, positions);
  const std::size_t m = fresh.size();
  const std::uint32_t* level0_at = staged.level0_at.data();
  OrderEntry last = RunCursor::Around().before1;  // the greatest element done (-inf: none)
  auto add = [&](const OrderEntry& e, double sigma) {
    const double c = scale(e.x, sigma);
    add_kernel(e.x, sigma, c, c * static_cast<double>(e.index));
  };
  auto replace = [&](const OrderEntry& e, double old_sigma, double sigma) {
    if (old_sigma == sigma) return;
    const double c = -scale(e.x, old_sigma);
    add_kernel(e.x, old_sigma, c, c * static_cast<double>(e.index));
    add(e, sigma);
  };
  auto entry = [](const SortedRun& run, std::size_t p) { return OrderEntry{run.value[p], run.index[p]}; };
  auto is_old = [&](const OrderEntry& e) { return e.index < n_; };  // not new, not the prior's
  for (std::size_t k = 0; k < m; ++k) {
    const OrderEntry f{fresh.value[k], fresh.index[k]};
    upper.place(positions, fresh, k);
    RunCursor::Around near_new, near_old;           // level 0's around f, in the new order and the old
    const std::size_t p = level0_at[k], q = p + k;  // f's gap in old level 0, f in new0
    if (q >= 1) near_new.before1 = entry(new0, q - 1);
    if (q >= 2) near_new.before2 = entry(new0, q - 2);
    if (q + 1 < new0.size()) near_new.after1 = entry(new0, q + 1);
    if (q + 2 < new0.size()) near_new.after2 = entry(new0, q + 2);
    if (p >= 1) near_old.before1 = entry(old0, p - 1);
    if (p >= 2) near_old.before2 = entry(old0, p - 2);
    if (p < old0.size()) near_old.after1 = entry(old0, p);
    if (p + 1 < old0.size()) near_old.after2 = entry(old0, p + 1);
    RunCursor::Around now, was;
    if (upper.runs() == 0) {
      // Level 0 alone (up to 262,144 observations): only the prior's centre to add (what
      // merge() with a cursor over no run would give, without its selects).
      now = near_new;
      was = near_old;
      const OrderEntry prior{prior_mu_, kPriorIndex};
      if (precedes(prior, f)) {
        now.push_before(prior);
        was.push_before(prior);
      } else {
        now.push_after(prior);
        was.push_after(prior);
      }
    } else {
      const RunCursor::Around others = upper.around();  // the prior's centre included
      now = RunCursor::Around::merge(others, near_new);
      was = RunCursor::Around::merge(others, near_old);
    }
    const auto at = &RunCursor::Around::if_present;
    // L1, an old observation not done yet: its right neighbour is now f. In the old order
    // it is the nearest before f too.
    if (is_old(now.before1) && precedes(last, now.before1))
      replace(now.before1, bandwidth(now.before1.x, at(was.before2), at(was.after1)),
              bandwidth(now.before1.x, at(now.before2), &f));
    add(f, bandwidth(f.x, at(now.before1), at(now.after1)));
    last = f;
    // R1, an old observation: its left neighbour is now f (in the old order, the nearest
    // after f).
    if (is_old(now.after1)) {
      replace(now.after1, bandwidth(now.after1.x, at(was.before1), at(was.after2)),
              bandwidth(now.after1.x, &f, at(now.after2)));
      last = now.after1;
    }
  }
  bins_.accumulate_pair(binned_mu_.data(), binned_c0_.data(), binned_c1_.data(), binned_mu_.size(), moment0_.data(),
                        moment1_.data());
  n_ += m;
}

bool ObservedKernels::log_density(const SortedRuns& runs, const double* column, const char* is_below,
                                  std::span<const std::size_t> below, const TrialOrderWeights& w, double total,
                                  double prior_weight, GridTable& out, GridScratch& scratch) const {
  out.node.clear();
  out.cells = 0;
  const std::size_t n = runs.size();
  if (!ready_ || n != n_ || !(total > 0.0)) return false;
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
  // whose bandwidth within the above group may differ. Applied in the order's order.
  std::vector<OrderEntry> special;
  special.reserve(25 + 3 * below.size());
  auto entry = [&](std::size_t i) { return OrderEntry{column[i], static_cast<std::uint32_t>(i)}; };
  for (std::size_t i = n > 25 ? n - 25 : 0; i < n; ++i) special.push_back(entry(i));
  RunCursor at(runs.levels(), prior_mu_);
  for (const std::size_t i : below) {
    const OrderEntry self = entry(i);
    special.push_back(self);
    at.seek(self.x, self.index);
    OrderEntry left, right;
    const auto [l, r] = above_neighbours(at, is_below, left, right);
    if (l != nullptr) special.push_back(*l);
    if (r != nullptr) special.push_back(*r);
  }
  std::sort(special.begin(), special.end(), [](const OrderEntry& a, const OrderEntry& b) { return precedes(a, b); });
  special.erase(std::unique(special.begin(), special.end(),
                            [](const OrderEntry& a, const OrderEntry& b) { return a.index == b.index; }),
                special.end());
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
  for (const OrderEntry& e : special) {
    if (e.is_prior()) continue;
    const std::uint32_t i = e.index;
    const double x = e.x;
    const double in_sums = w.ramp(i);
    at.seek(x, i);
    const RunCursor::Around near = at.around();  // after1 is e itself
    const double sigma_all =
        bandwidth(x, RunCursor::Around::if_present(near.before1), RunCursor::Around::if_present(near.after2));
    if (is_below[i]) {
      correct(x, sigma_all, -in_sums * scale(x, sigma_all));
      continue;
    }
    OrderEntry left, right;
    const auto [l, r] = above_neighbours(at, is_below, left, right);
    const double sigma = bandwidth(x, l, r);
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
  add_kernel_direct(sum.data(), prior_weight * scale(prior_mu_, range_), prior_mu_, range_, low_, bins_.h, cells_);
  bins_.spread(moment.data(), sum.data());
  const double inv_total = 1.0 / total;
  for (double& s : sum) s *= inv_total;
  log_of_sums(sum, low_, high_, cells_, out);
  return true;
}

}  // namespace tpeopt::tpe::detail
