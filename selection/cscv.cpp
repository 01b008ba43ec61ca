#include "selection/cscv.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <numeric>
#include <unordered_set>

#include <boost/random/uniform_int_distribution.hpp>

#include "common/error.hpp"
#include "common/worker_pool.hpp"
#include "tpe/trial_rng.hpp"

namespace tpeopt::selection {

namespace {

/// Every S/2-subset of 0..S-1 as a bit set, in lexicographic order of the sorted members.
std::vector<std::uint64_t> all_halves(std::size_t S) {
  std::vector<std::size_t> c(S / 2);
  std::iota(c.begin(), c.end(), std::size_t{0});
  std::vector<std::uint64_t> sets;
  const std::size_t k = S / 2;
  while (true) {
    std::uint64_t bits = 0;
    for (std::size_t s : c) bits |= std::uint64_t{1} << s;
    sets.push_back(bits);
    std::size_t i = k;
    while (i > 0 && c[i - 1] == S - k + (i - 1)) --i;
    if (i == 0) break;
    ++c[i - 1];
    for (std::size_t j = i; j < k; ++j) c[j] = c[j - 1] + 1;
  }
  return sets;
}

/// `count` distinct S/2-subsets drawn with `seed`: each the first S/2 of a Fisher-Yates
/// shuffle of 0..S-1 (SplitMix64 and Boost's uniform_int_distribution: the same on every
/// platform), a repeat drawn again.
std::vector<std::uint64_t> sampled_halves(std::size_t S, std::size_t count, std::uint64_t seed) {
  tpe::SplitMix64 rng(tpe::trial_stream_seed(seed, 0, /*purpose: CSCV splits*/ 0x637363));
  std::unordered_set<std::uint64_t> seen;
  std::vector<std::uint64_t> sets;
  std::vector<std::size_t> order(S);
  while (sets.size() < count) {
    std::iota(order.begin(), order.end(), std::size_t{0});
    for (std::size_t i = S - 1; i > 0; --i) {
      boost::random::uniform_int_distribution<std::size_t> pick(0, i);
      std::swap(order[i], order[pick(rng)]);
    }
    std::uint64_t bits = 0;
    for (std::size_t j = 0; j < S / 2; ++j) bits |= std::uint64_t{1} << order[j];
    if (seen.insert(bits).second) sets.push_back(bits);
  }
  return sets;
}

/// The Sharpe ratio of each trial over the sub-periods in `bits`.
void performance(const std::vector<Moments>& moments, std::size_t N, std::size_t S, std::uint64_t bits,
                 std::vector<double>& out) {
  std::vector<std::size_t> members;  // the chosen sub-periods in increasing order
  for (std::size_t s = 0; s < S; ++s)
    if (bits >> s & 1) members.push_back(s);
  for (std::size_t i = 0; i < N; ++i) {
    const Moments* row = moments.data() + i * S;
    Moments m;
    for (std::size_t s : members) m += row[s];
    out[i] = sharpe_per_observation(m);
  }
}

}  // namespace

double binomial(std::size_t n, std::size_t k) {
  if (k > n) return 0.0;
  double c = 1.0;
  for (std::size_t j = 1; j <= k; ++j) c = c * static_cast<double>(n - k + j) / static_cast<double>(j);
  return std::round(c);
}

Cscv cscv(const std::vector<Moments>& moments, std::size_t N, const CscvOptions& options,
          const std::vector<double>& weights) {
  const std::size_t S = options.sub_periods;
  if (S < 2 || S > 64 || S % 2 != 0)
    throw make_error("CSCV: the number of sub-periods must be even, from 2 to 64, got {}", S);
  if (N < 2) throw make_error("CSCV: at least 2 trials are needed, got {}", N);
  if (moments.size() != N * S)
    throw make_error("CSCV: {} sub-period moments for {} trials x {} sub-periods", moments.size(), N, S);
  if (options.max_splits < 1) throw make_error("CSCV: the split limit must be at least 1");
  if (!weights.empty() && weights.size() != N) throw make_error("CSCV: {} weights for {} trials", weights.size(), N);
  const auto weight = [&](std::size_t i) { return weights.empty() ? 1.0 : weights[i]; };
  double total_weight = 0.0;
  for (std::size_t i = 0; i < N; ++i) total_weight += weight(i);
  Cscv r;
  r.n_trials = N;
  r.sub_periods = S;
  r.all_splits = binomial(S, S / 2);
  r.sampled = r.all_splits > static_cast<double>(options.max_splits);
  r.in_sample_sets = r.sampled ? sampled_halves(S, options.max_splits, options.seed) : all_halves(S);
  const std::uint64_t every = S == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << S) - 1;
  const std::size_t n_splits = r.in_sample_sets.size();
  r.in_sample_sharpe.assign(n_splits, NAN);
  r.out_of_sample_sharpe.assign(n_splits, NAN);
  r.relative_rank.assign(n_splits, NAN);
  r.logits.assign(n_splits, NAN);
  // Splits are independent: threads take contiguous chunks, each split's numbers are the same
  // on any number of threads.
  WorkerPool pool(options.threads);
  pool.parallel_for(n_splits, [&](std::size_t first, std::size_t last) {
    std::vector<double> is(N), oos(N);
    for (std::size_t k = first; k < last; ++k) {
      const std::uint64_t bits = r.in_sample_sets[k];
      performance(moments, N, S, bits, is);
      performance(moments, N, S, every & ~bits, oos);
      std::size_t best = N;
      for (std::size_t i = 0; i < N; ++i)
        if (!std::isnan(is[i]) && (best == N || is[i] > is[best])) best = i;
      if (best == N) continue;  // no in-sample best at all: NaN, counted as overfit
      const double out_sharpe = oos[best];
      // rank = below + (equal + 1) / 2: the average rank of the tie group, the best included
      double below = 0.0, equal = 0.0;
      for (std::size_t i = 0; i < N; ++i) {
        if (std::isnan(out_sharpe)) {
          if (std::isnan(oos[i])) equal += weight(i);
        } else if (std::isnan(oos[i]) || oos[i] < out_sharpe) {
          below += weight(i);
        } else if (oos[i] == out_sharpe) {
          equal += weight(i);
        }
      }
      const double omega = (below + (equal + 1.0) / 2.0) / (total_weight + 1.0);
      r.in_sample_sharpe[k] = is[best];
      r.out_of_sample_sharpe[k] = out_sharpe;
      r.relative_rank[k] = omega;
      r.logits[k] = std::log(omega / (1.0 - omega));
    }
  });
  std::size_t overfit = 0;
  for (double logit : r.logits) overfit += !(logit > 0.0);
  r.pbo = static_cast<double>(overfit) / static_cast<double>(n_splits);
  std::size_t losses = 0;
  for (double oos : r.out_of_sample_sharpe) losses += !(oos >= 0.0);
  r.probability_of_loss = static_cast<double>(losses) / static_cast<double>(n_splits);
  // Performance degradation: a least-squares line through (in sample, out of sample), about the means.
  double n = 0.0, mx = 0.0, my = 0.0;
  for (std::size_t k = 0; k < n_splits; ++k)
    if (std::isfinite(r.in_sample_sharpe[k]) && std::isfinite(r.out_of_sample_sharpe[k]))
      n += 1.0, mx += r.in_sample_sharpe[k], my += r.out_of_sample_sharpe[k];
  if (n >= 2.0) {
    mx /= n, my /= n;
    double sxx = 0.0, sxy = 0.0;
    for (std::size_t k = 0; k < n_splits; ++k)
      if (std::isfinite(r.in_sample_sharpe[k]) && std::isfinite(r.out_of_sample_sharpe[k])) {
        const double dx = r.in_sample_sharpe[k] - mx;
        sxx += dx * dx, sxy += dx * (r.out_of_sample_sharpe[k] - my);
      }
    if (sxx > 0.0) r.degradation_slope = sxy / sxx, r.degradation_intercept = my - r.degradation_slope * mx;
  }
  return r;
}

}  // namespace tpeopt::selection
