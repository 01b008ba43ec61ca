#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/digest.hpp"
#include "engine/messages.hpp"
#include "engine/trial_ranking.hpp"
#include "tpe/search_space.hpp"

namespace tpeopt::engine {

/// How many trials ended in each outcome (engine/trial_ranking.hpp); pruned trials (successive
/// halving) are counted apart, whatever their last rung gave.
struct TrialCounts {
  std::uint64_t feasible = 0;
  std::uint64_t infeasible = 0;  ///< a score, but too few trades (violation > 0)
  std::uint64_t failed = 0;      ///< no score (NaN)
  std::uint64_t pruned = 0;

  /// Counts one trial.
  void add(double score, double violation, bool was_pruned) {
    if (was_pruned) {
      ++pruned;
      return;
    }
    switch (outcome_class(score, violation)) {
      case TrialOutcomeClass::Feasible:
        ++feasible;
        break;
      case TrialOutcomeClass::Infeasible:
        ++infeasible;
        break;
      case TrialOutcomeClass::Failed:
        ++failed;
        break;
    }
  }
};

/// "0 feasible, 3000 with too few trades (fewer than min_trades = 10), 0 failed (no score)"
/// (", 12 pruned" with halving). `min_trades` < 0: not known.
std::string describe_counts(const TrialCounts& counts, std::int64_t min_trades);

/// One evaluated trial.
struct TrialRecord {
  std::uint64_t trial = 0;
  std::uint64_t batch = 0;
  std::vector<double> params;  ///< external values, one per axis
  double score = 0.0;
  double violation = 0.0;
  std::vector<double> metrics;
  /// Successive halving: the last rung evaluated (-1 without halving); pruned trials
  /// (rung < n_rungs - 1) carry that rung's score and are never in the top K.
  std::int32_t rung = -1;
  bool pruned = false;
};

/// Collects told batches in trial order: the run's digest, its top K and (optionally)
/// every trial. The digest covers trial numbers and the exact bits of parameters,
/// scores, violations and metrics (and halving rungs), so two runs with the same digest
/// agree bit for bit. Trials pruned by successive halving are not ranked.
class StudyResult {
 public:
  StudyResult(std::size_t n_axes, std::size_t n_metrics, tpe::Direction direction, std::size_t top_k, bool keep_trials);

  /// Adds a told batch; batches must come in order.
  void add(const BatchRequest& request, const BatchResult& result);

  std::uint64_t n_trials() const { return n_trials_; }
  std::string digest_hex() const { return digest_.hex(); }
  /// The best trials, best first (at most top_k).
  const std::vector<TrialRecord>& top() const { return top_; }
  /// Every trial in number order (empty unless keep_trials).
  const std::vector<TrialRecord>& trials() const { return trials_; }
  tpe::Direction direction() const { return direction_; }
  /// Trials by outcome, over every trial added.
  const TrialCounts& counts() const { return counts_; }

 private:
  std::size_t n_axes_, n_metrics_;
  tpe::Direction direction_;
  std::size_t top_k_;
  bool keep_trials_;
  std::uint64_t n_trials_ = 0;
  Digest digest_;
  TrialCounts counts_;
  std::vector<TrialRecord> top_;
  std::vector<TrialRecord> trials_;
};

}  // namespace tpeopt::engine
