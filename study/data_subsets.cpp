#include "study/data_subsets.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <boost/random/uniform_int_distribution.hpp>

#include "common/error.hpp"
#include "tpe/trial_rng.hpp"

namespace tpeopt::engine {

namespace {

/// Consecutive atoms with `in(k)` as ranges.
template <typename Pred>
std::vector<AtomRange> ranges_where(std::size_t n, Pred&& in) {
  std::vector<AtomRange> out;
  for (std::size_t k = 0; k < n; ++k) {
    if (!in(k)) continue;
    if (!out.empty() && out.back().end == k) out.back().end = k + 1;
    else out.push_back({k, k + 1});
  }
  return out;
}

}  // namespace

std::size_t atom_count(const std::vector<AtomRange>& ranges) {
  std::size_t n = 0;
  for (const auto& r : ranges) n += r.end - r.begin;
  return n;
}

HoldoutSplit split_holdout(const strategies::Strategy& strategy, const io::HoldoutConfig& holdout) {
  const std::size_t n = strategy.n_atoms();
  if (n == 0) throw make_error("data.holdout: strategy {} cannot be cut into parts", strategy.name());
  std::vector<char> out(n, 0);
  if (holdout.fraction > 0.0) {
    const double t0 = static_cast<double>(strategy.atom_time_s(0));
    const double t1 = static_cast<double>(strategy.atom_time_s(n - 1));
    const double cut = t0 + (1.0 - holdout.fraction) * (t1 - t0);
    for (std::size_t k = 0; k < n; ++k) out[k] = static_cast<double>(strategy.atom_time_s(k)) >= cut ? 1 : 0;
  } else {
    for (std::size_t k = 0; k < n; ++k) {
      const std::int64_t t = strategy.atom_time_s(k);
      for (const auto& [from, to] : holdout.ranges)
        if (t >= from && t < to) out[k] = 1;
    }
  }
  HoldoutSplit s;
  s.in_sample = ranges_where(n, [&](std::size_t k) { return out[k] == 0; });
  s.out_of_sample = ranges_where(n, [&](std::size_t k) { return out[k] != 0; });
  const char* unit = strategy.atoms_are_slices() ? "trading days" : "bars";
  if (s.out_of_sample.empty())
    throw make_error("data.holdout: the out-of-sample part holds none of the {} {}; hold out a larger part", n, unit);
  if (s.in_sample.empty())
    throw make_error("data.holdout: the in-sample part holds none of the {} {}; hold out a smaller part", n, unit);
  return s;
}

std::vector<std::vector<AtomRange>> equal_slices(const std::vector<AtomRange>& ranges, std::size_t n) {
  const std::size_t total = atom_count(ranges);
  n = std::min(n, total);
  std::vector<std::vector<AtomRange>> out(n);
  if (n == 0) return out;
  // Atom number (0 .. total-1 over the concatenated ranges) -> slice.
  std::size_t index = 0;
  for (const auto& r : ranges) {
    for (std::size_t k = r.begin; k < r.end; ++k, ++index) {
      // slice s holds indexes [floor(s total / n), floor((s + 1) total / n)): s = floor(((index + 1) n - 1) / total)
      const std::size_t s = ((index + 1) * n - 1) / total;  // n <= total < 2^32 in practice: no overflow
      auto& slice = out[s];
      if (!slice.empty() && slice.back().end == k) slice.back().end = k + 1;
      else slice.push_back({k, k + 1});
    }
  }
  return out;
}

std::vector<std::vector<AtomRange>> walk_forward_windows(const strategies::Strategy& strategy,
                                                         const io::WalkForwardConfig& walk_forward) {
  const std::size_t n = strategy.n_atoms();
  if (n == 0) throw make_error("data.walk_forward: strategy {} cannot be cut into windows", strategy.name());
  auto windows = equal_slices({{0, n}}, walk_forward.folds + 1);
  if (windows.size() < walk_forward.folds + 1)
    throw make_error("data.walk_forward: {} folds need {} windows, but the data has {} {}", walk_forward.folds,
                     walk_forward.folds + 1, n, strategy.atoms_are_slices() ? "trading days" : "bars");
  return windows;
}

HoldoutSplit split_parts(const strategies::Strategy& strategy, const io::StudyConfig& config) {
  if (config.walk_forward.fold < 0) return split_holdout(strategy, config.holdout);
  const auto windows = walk_forward_windows(strategy, config.walk_forward);
  const auto f = static_cast<std::size_t>(config.walk_forward.fold);
  return {windows.at(f), windows.at(f + 1)};
}

std::vector<AtomRange> in_sample_ranges(const strategies::Strategy& strategy, const io::StudyConfig& config) {
  if (config.has_parts()) return split_parts(strategy, config).in_sample;
  if (strategy.n_atoms() > 0) return {{0, strategy.n_atoms()}};
  return {};
}

void check_data_subsets(const strategies::Strategy& strategy, const io::StudyConfig& config) {
  try {
    if (config.walk_forward.is_parent()) {
      const auto windows = walk_forward_windows(strategy, config.walk_forward);
      if (config.search.halving.enabled) halving_slices(strategy, windows.front(), config.search.halving);
      return;
    }
    const std::vector<AtomRange> in_sample = in_sample_ranges(strategy, config);
    if (config.search.halving.enabled) halving_slices(strategy, in_sample, config.search.halving);
  } catch (const Error& e) {
    throw Error(config.source + ": " + e.what());
  }
}

strategies::FoldSpec fold_spec(const strategies::Strategy& strategy, const io::StudyConfig& config) {
  const io::FoldsConfig& f = config.folds;
  if (strategy.n_atoms() == 0)
    throw make_error("data.folds: strategy {} cannot be split into folds (its data has no time atoms)",
                     strategy.name());
  const std::vector<AtomRange> in_sample = in_sample_ranges(strategy, config);
  const std::size_t n = atom_count(in_sample);
  const char* unit = strategy.atoms_are_slices() ? "trading days" : "bars";
  if (f.folds > n) throw make_error("data.folds: {} folds of {} in-sample {}", f.folds, n, unit);
  const auto groups = equal_slices(in_sample, f.folds);
  strategies::FoldSpec spec;
  spec.embargo = f.embargo;
  for (const auto& g : groups) spec.edges.push_back(g.front().begin);
  spec.edges.push_back(in_sample.back().end);
  // The longest window at the highest values a trial may take: each slot's default, the
  // config's fixed value or the top of its searched range.
  std::vector<double> slots = strategy.param_defaults();
  for (const auto& [name, value] : config.fixed)
    if (const std::size_t k = strategy.params().find(name); k != strategies::ParamList::npos) slots[k] = value;
  for (const auto& a : config.space.axes)
    if (const std::size_t k = strategy.params().find(a.name); k != strategies::ParamList::npos) slots[k] = a.high;
  const double window = strategy.longest_window(slots.data());
  for (std::size_t k = 0; k < f.folds; ++k) {
    const std::size_t len = atom_count(groups[k]);
    if (static_cast<double>(len) < window)
      throw make_error(
          "data.folds: fold {} holds {} {}, fewer than the strategy's longest window ({} at the top of the parameters' "
          "ranges); use fewer folds or shorter windows",
          k, len, unit, window);
    if (k > 0 && f.embargo >= len)
      throw make_error("data.embargo: {} {} cover all of fold {} ({} {}); use a shorter embargo", f.embargo, unit, k,
                       len, unit);
  }
  return spec;
}

std::vector<std::vector<AtomRange>> halving_slices(const strategies::Strategy& strategy,
                                                   const std::vector<AtomRange>& ranges,
                                                   const io::HalvingConfig& halving) {
  if (strategy.n_atoms() == 0)
    throw make_error("search.halving: strategy {} cannot be cut into slices", strategy.name());
  std::size_t n = halving.slices;
  if (n == 0) n = strategy.atoms_are_slices() ? atom_count(ranges) : 16;
  auto slices = equal_slices(ranges, n);
  if (slices.size() < 2)
    throw make_error("search.halving: the data gives {} slice(s); successive halving needs at least 2", slices.size());
  return slices;
}

std::vector<std::size_t> shuffled_slice_order(std::size_t n, std::uint64_t seed) {
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  // A stream of its own: trial "number" 2^64 - 1 with a purpose no sampler uses.
  auto rng = tpe::make_trial_engine(seed, ~std::uint64_t{0}, 0x5ab5e75);
  for (std::size_t i = n; i > 1; --i) {
    boost::random::uniform_int_distribution<std::size_t> pick(0, i - 1);
    std::swap(order[i - 1], order[pick(rng)]);
  }
  return order;
}

std::vector<std::size_t> rung_slice_counts(std::size_t n_slices, const io::HalvingConfig& halving) {
  std::vector<std::size_t> counts;
  std::size_t m = std::max<std::uint64_t>(1, halving.min_slices);
  while (m < n_slices) {
    counts.push_back(m);
    if (m > n_slices / halving.eta) break;  // the next would reach n_slices (or overflow)
    m *= halving.eta;
  }
  counts.push_back(n_slices);
  return counts;
}

std::int64_t scaled_min_trades(std::int64_t min_trades, std::size_t part, std::size_t whole) {
  if (min_trades <= 0 || whole == 0) return min_trades;
  // ceil(a * part / whole) without overflow: a = q whole + r, part <= whole.
  const auto a = static_cast<std::uint64_t>(min_trades);
  const std::uint64_t q = a / whole, r = a % whole;
  return static_cast<std::int64_t>(q * part + (r * part + whole - 1) / whole);
}

double spearman_correlation(const std::vector<double>& a, const std::vector<double>& b) {
  TPEOPT_ASSERT(a.size() == b.size(), "spearman: lists of different lengths");
  const std::size_t n = a.size();
  if (n < 2) return NAN;
  auto ranks = [n](const std::vector<double>& x) {
    std::vector<std::size_t> idx(n);
    std::iota(idx.begin(), idx.end(), std::size_t{0});
    std::stable_sort(idx.begin(), idx.end(), [&](std::size_t i, std::size_t j) { return x[i] < x[j]; });
    std::vector<double> r(n);
    for (std::size_t i = 0; i < n;) {
      std::size_t j = i;
      while (j + 1 < n && x[idx[j + 1]] == x[idx[i]]) ++j;
      const double avg = (static_cast<double>(i) + static_cast<double>(j)) / 2.0 + 1.0;
      for (std::size_t k = i; k <= j; ++k) r[idx[k]] = avg;
      i = j + 1;
    }
    return r;
  };
  const auto ra = ranks(a), rb = ranks(b);
  const double mean = (static_cast<double>(n) + 1.0) / 2.0;
  double sab = 0, saa = 0, sbb = 0;
  for (std::size_t i = 0; i < n; ++i) {
    sab += (ra[i] - mean) * (rb[i] - mean);
    saa += (ra[i] - mean) * (ra[i] - mean);
    sbb += (rb[i] - mean) * (rb[i] - mean);
  }
  if (!(saa > 0.0) || !(sbb > 0.0)) return NAN;
  return sab / std::sqrt(saa * sbb);
}

}  // namespace tpeopt::engine
