#include "study/selection_pass.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>

#include <fmt/format.h>

#include "common/error.hpp"
#include "engine/param_binding.hpp"
#include "selection/verdict.hpp"
#include "strategies/registry.hpp"
#include "study/data_subsets.hpp"

namespace tpeopt::engine {

namespace {

/// The metric columns with_folds writes for fold k, as indices.
struct FoldColumns {
  std::vector<std::size_t> n, sum, sumsq;
};

FoldColumns fold_columns(const strategies::Strategy& folded, std::size_t S) {
  const auto& names = folded.metric_names();
  const auto find = [&](const std::string& name) {
    const auto it = std::find(names.begin(), names.end(), name);
    if (it == names.end()) throw make_error("strategy {} with folds writes no metric {}", folded.name(), name);
    return static_cast<std::size_t>(it - names.begin());
  };
  FoldColumns c;
  for (std::size_t k = 0; k < S; ++k) {
    c.n.push_back(find(fmt::format("fold{}_n", k)));
    c.sum.push_back(find(fmt::format("fold{}_sum", k)));
    c.sumsq.push_back(find(fmt::format("fold{}_sumsq", k)));
  }
  return c;
}

/// Each trial's per-fold moments (trial-major), evaluated in batches of the run's size.
std::vector<selection::Moments> fold_moments(const io::StudyConfig& config, const strategies::Strategy& folded,
                                             const std::vector<SampledTrial>& trials, std::size_t S,
                                             const RunOptions& options) {
  const FoldColumns columns = fold_columns(folded, S);
  auto executor = make_local_executor(config, folded, options);
  const std::size_t n_axes = config.space.size(), batch = std::max<std::size_t>(1, config.search.batch);
  std::vector<selection::Moments> moments(trials.size() * S);
  for (std::size_t first = 0; first < trials.size(); first += batch) {
    BatchRequest request;
    request.batch_index = first / batch;
    request.first_trial = first;
    request.n_trials = std::min(batch, trials.size() - first);
    request.n_axes = n_axes;
    for (std::size_t i = 0; i < request.n_trials; ++i)
      request.values.insert(request.values.end(), trials[first + i].params.begin(), trials[first + i].params.end());
    const BatchResult r = executor->evaluate(request);
    for (std::size_t i = 0; i < request.n_trials; ++i) {
      const double* m = r.metrics.data() + i * r.n_metrics;
      for (std::size_t k = 0; k < S; ++k)
        moments[(first + i) * S + k] = {m[columns.n[k]], m[columns.sum[k]], m[columns.sumsq[k]]};
    }
  }
  return moments;
}

/// The best trial's trade returns entered in [begin, end) of the strategy's atoms, from its
/// registry entry's trade export on the CPU reference (as `tpeopt backtest --trades-out`).
std::optional<std::vector<double>> in_sample_trade_returns(const io::StudyConfig& config,
                                                           const strategies::Strategy& strategy,
                                                           const SampledTrial& best, std::size_t begin,
                                                           std::size_t end) {
  const strategies::StrategyEntry* found = strategies::registry().find(strategy.name());
  if (!found || !found->trades.available()) return std::nullopt;
  const strategies::StrategyEntry& entry = *found;
  const auto& columns = entry.trades.columns;
  const auto column = std::find(columns.begin(), columns.end(), "return");
  if (column == columns.end()) return std::nullopt;
  const std::size_t c = static_cast<std::size_t>(column - columns.begin());
  const ParamBinding binding(strategy, config.space, config.fixed);
  std::vector<double> slots(binding.n_slots());
  binding.fill(best.params.data(), slots.data());
  const std::int64_t from_ms = strategy.atom_time_s(begin) * 1000;
  const bool bounded = end < strategy.n_atoms();
  const std::int64_t to_ms = bounded ? strategy.atom_time_s(end) * 1000 : 0;
  std::vector<double> returns;
  for (const auto& symbol : entry.trades.cpu(strategy, slots.data()))
    for (const auto& trade : symbol)
      if (trade.entry_time_ms >= from_ms && (!bounded || trade.entry_time_ms < to_ms))
        returns.push_back(std::stod(trade.fields.at(c)));
  return returns;
}

void compute(const io::StudyConfig& config, const strategies::Strategy& strategy, const SelectionSample& sample,
             const RunOptions& options, const SelectionSettings& settings, SelectionBias& s) {
  const std::size_t S = settings.sub_periods;
  if (options.external_executor) throw make_error("the trials are scored by the caller's objective, not by tpeopt");
  if (config.search.halving.enabled) throw make_error("search.halving scores trials on different slices of the data");
  if (strategy.n_atoms() == 0) throw make_error("strategy {} has no time axis to cut into folds", strategy.name());
  const std::vector<AtomRange> in_sample = in_sample_ranges(strategy, config);
  if (in_sample.size() != 1) throw make_error("the in-sample part is not one contiguous span");
  const std::size_t b = in_sample[0].begin, e = in_sample[0].end;
  s.in_sample_atoms = e - b;
  s.unit = strategy.atoms_are_slices() ? "trading days" : "bars";
  if (e - b < S) throw make_error("{} in-sample {} cannot make {} folds", e - b, s.unit, S);
  strategies::FoldSpec folds;
  for (std::size_t k = 0; k <= S; ++k) folds.edges.push_back(b + k * (e - b) / S);
  const auto folded = strategy.with_folds(folds, {});

  const std::vector<SampledTrial> top = sample.top(), rest = sample.rest();
  s.top = top.size(), s.sample = rest.size();
  if (top.size() + rest.size() < 2) throw make_error("fewer than 2 trials");
  std::vector<SampledTrial> trials = top;
  trials.insert(trials.end(), rest.begin(), rest.end());
  const std::vector<selection::Moments> moments = fold_moments(config, *folded, trials, S, options);

  // V[z] (and the paper's V[SR]) over every trial of the run: the top ones count once, each
  // sampled one for the (N - top) / sample trials it stands for.
  std::vector<double> sharpes, zs, weights;
  const double rest_weight =
      rest.empty() ? 1.0 : static_cast<double>(s.n_trials - top.size()) / static_cast<double>(rest.size());
  for (std::size_t i = 0; i < trials.size(); ++i) {
    selection::Moments whole;
    for (std::size_t k = 0; k < S; ++k) whole += moments[i * S + k];
    sharpes.push_back(selection::sharpe_per_observation(whole));
    zs.push_back(selection::sharpe_z(sharpes.back(), whole.n));  // normal moments (only n, sum, sumsq are known)
    weights.push_back(i < top.size() ? 1.0 : rest_weight);
  }
  s.variance_from = rest.empty() ? fmt::format("all {} trials", trials.size())
                                 : fmt::format("the top {} trials, and {} sampled ones weighted {:.4g} each",
                                               top.size(), rest.size(), rest_weight);

  selection::Moments best_moments;
  for (std::size_t k = 0; k < S; ++k) best_moments += moments[k];
  selection::HigherMoments best;
  best.n = static_cast<std::size_t>(best_moments.n);
  best.mean = best_moments.n > 0 ? best_moments.sum / best_moments.n : NAN;
  best.sharpe = sharpes[0];
  s.best_trial = top[0].trial;
  s.higher_moments_from = "assumed normal (skewness 0, kurtosis 3): the strategy exports no trade returns";
  if (const auto returns = in_sample_trade_returns(config, strategy, top[0], b, e)) {
    if (returns->size() >= 3) {
      const selection::HigherMoments h = selection::higher_moments(*returns);
      best.skewness = h.skewness, best.kurtosis = h.kurtosis;
      s.higher_moments_from = fmt::format("the best trial's {} in-sample trade returns", returns->size());
    } else {
      s.higher_moments_from =
          fmt::format("assumed normal (skewness 0, kurtosis 3): the best trial has {} in-sample trades",
                      returns->size());
    }
  }
  const double n_trials = static_cast<double>(s.n_trials);
  const double variance = selection::sharpe_variance(sharpes, weights);
  if (!std::isnan(variance) && !std::isnan(best.sharpe))
    s.dsr_paper = selection::deflated_sharpe(n_trials, variance, best);
  const double z_variance = selection::sharpe_variance(zs, weights);
  if (!std::isnan(z_variance) && !std::isnan(best.sharpe))
    s.dsr = selection::standardized_deflated_sharpe(n_trials, z_variance, best);
  // The same weights in the ranks: the top trials and the sample stand for every trial of the run.
  s.cscv = selection::cscv(moments, trials.size(), {S, settings.max_splits, config.search.seed, options.cpu_threads},
                           weights);
  s.verdict = selection::verdict(s.dsr, s.cscv->pbo, s.cscv->probability_of_loss);
}

}  // namespace

SelectionBias selection_bias(const io::StudyConfig& config, const strategies::Strategy& strategy,
                             const SelectionSample& sample, const RunOptions& options,
                             const SelectionSettings& settings) {
  const auto start = std::chrono::steady_clock::now();
  SelectionBias s;
  s.n_trials = sample.n_trials();
  s.n_told = sample.n_told();
  s.sub_periods = settings.sub_periods;
  try {
    compute(config, strategy, sample, options, settings, s);
  } catch (const Error& e) {
    s.unavailable = e.what();
    s.dsr.reset(), s.dsr_paper.reset(), s.cscv.reset();
    s.verdict = "not available: " + s.unavailable;
  }
  s.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return s;
}

std::string selection_bias_line(const SelectionBias& s) {
  if (!s.unavailable.empty()) return "selection bias: not available: " + s.unavailable;
  return fmt::format(
      "selection bias: {}\n  ({} trials; top {} and {} sampled re-evaluated over {} folds of {} in-sample {}; "
      "{} of {} CSCV splits{}; {:.2f} s)",
      s.verdict, selection::grouped(static_cast<double>(s.n_trials)), s.top, s.sample, s.sub_periods,
      selection::grouped(static_cast<double>(s.in_sample_atoms)), s.unit,
      selection::grouped(static_cast<double>(s.cscv->in_sample_sets.size())), selection::grouped(s.cscv->all_splits),
      s.cscv->sampled ? ", sampled" : "", s.seconds);
}

}  // namespace tpeopt::engine
