#pragma once
// The trials the selection-bias pass re-evaluates (docs/will-it-hold-up.md, "What is
// computed"): the run's top N by the ranking of top-K lists, and a seeded sample of the rest,
// collected while the run tells its batches so that no run has to keep every trial.
#include <cstddef>
#include <cstdint>
#include <unordered_set>
#include <vector>

#include "engine/pipeline.hpp"
#include "tpe/search_space.hpp"
#include "tpe/trial_rng.hpp"

namespace tpeopt::engine {

/// One trial as told: its number, its axis values, its score and violation.
struct SampledTrial {
  std::uint64_t trial = 0;
  std::vector<double> params;
  double score = 0.0, violation = 0.0;
};

/// Watches told batches (replayed ones included: a resumed run collects the same trials) and
/// keeps the `top` best trials (engine/trial_ranking.hpp) and a uniform sample of `sample`
/// trials drawn by reservoir sampling (Vitter's algorithm R) with a stream of `seed`. Forwards
/// every batch to `next` (may be null) first. A trial whose parameters an earlier trial had
/// already (a sampler that has settled proposes the same point again and again) is the same
/// backtest, not another independent trial: it is counted and kept once, by its first trial.
class SelectionSample final : public BatchObserver {
 public:
  SelectionSample(std::size_t top, std::size_t sample, std::uint64_t seed, tpe::Direction direction,
                  BatchObserver* next);

  void on_batch(const BatchRequest& request, const BatchResult& result, const BatchTimings& timings) override;
  bool stop_requested() override { return next_ && next_->stop_requested(); }

  /// The top trials, best first.
  std::vector<SampledTrial> top() const;
  /// The sampled trials that are not among top(), in trial order.
  std::vector<SampledTrial> rest() const;
  /// Distinct parameter sets seen.
  std::uint64_t n_trials() const { return seen_; }
  /// Trials told, repeats included.
  std::uint64_t n_told() const { return told_; }

 private:
  std::size_t top_n_, sample_n_;
  tpe::SplitMix64 rng_;
  tpe::Direction direction_;
  BatchObserver* next_;
  std::uint64_t seen_ = 0, told_ = 0;
  std::unordered_set<std::uint64_t> distinct_;  ///< the row_key (tpe/recent_rows.hpp) of each parameter set seen
  std::vector<SampledTrial> top_;               ///< a heap whose front ranks last
  std::vector<SampledTrial> reservoir_;
};

}  // namespace tpeopt::engine
