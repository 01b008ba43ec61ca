#include "engine/study_result.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "common/error.hpp"

namespace tpeopt::engine {

std::string describe_counts(const TrialCounts& c, std::int64_t min_trades) {
  std::string text = fmt::format("{} feasible", c.feasible);
  if (c.infeasible > 0 || min_trades > 0)
    text += fmt::format(", {} with too few trades (fewer than min_trades{})", c.infeasible,
                        min_trades >= 0 ? fmt::format(" = {}", min_trades) : std::string());
  text += fmt::format(", {} failed (no score)", c.failed);
  if (c.pruned > 0) text += fmt::format(", {} pruned", c.pruned);
  return text;
}

StudyResult::StudyResult(std::size_t n_axes, std::size_t n_metrics, tpe::Direction direction, std::size_t top_k,
                         bool keep_trials)
    : n_axes_(n_axes), n_metrics_(n_metrics), direction_(direction), top_k_(top_k), keep_trials_(keep_trials) {}

void StudyResult::add(const BatchRequest& request, const BatchResult& result) {
  TPEOPT_ASSERT(request.first_trial == n_trials_, "batches added out of order");
  TPEOPT_ASSERT(result.n_metrics == n_metrics_ && request.n_axes == n_axes_, "batch shape differs from the study's");
  auto make_record = [&](std::size_t i) {
    TrialRecord r;
    r.trial = request.first_trial + i;
    r.batch = request.batch_index;
    r.params.assign(request.values.begin() + i * n_axes_, request.values.begin() + (i + 1) * n_axes_);
    r.score = result.scores[i];
    r.violation = result.violations[i];
    r.metrics.assign(result.metrics.begin() + i * n_metrics_, result.metrics.begin() + (i + 1) * n_metrics_);
    if (!result.rung.empty()) {
      r.rung = result.rung[i];
      r.pruned = result.pruned(i);
    }
    return r;
  };
  auto key = [](const TrialRecord& r) { return RankKey{r.trial, r.score, r.violation}; };
  for (std::size_t i = 0; i < request.n_trials; ++i) {
    const std::uint64_t trial = request.first_trial + i;
    digest_.add(trial);
    for (std::size_t a = 0; a < n_axes_; ++a) digest_.add(request.values[i * n_axes_ + a]);
    digest_.add(result.scores[i]);
    digest_.add(result.violations[i]);
    for (std::size_t m = 0; m < n_metrics_; ++m) digest_.add(result.metrics[i * n_metrics_ + m]);
    const bool pruned = result.pruned(i);
    if (!result.rung.empty()) digest_.add(static_cast<std::uint64_t>(result.rung[i]));

    counts_.add(result.scores[i], result.violations[i], pruned);
    const RankKey k{trial, result.scores[i], result.violations[i]};
    if (!pruned && top_k_ > 0 && (top_.size() < top_k_ || ranks_before(k, key(top_.back()), direction_))) {
      auto pos = std::upper_bound(top_.begin(), top_.end(), k, [&](const RankKey& a, const TrialRecord& b) {
        return ranks_before(a, key(b), direction_);
      });
      top_.insert(pos, make_record(i));
      if (top_.size() > top_k_) top_.pop_back();
    }
    if (keep_trials_) trials_.push_back(make_record(i));
  }
  n_trials_ += request.n_trials;
}

}  // namespace tpeopt::engine
