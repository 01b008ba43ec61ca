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
  StudyResult(std::size_t n_axes, std::size_t n_metrics, tpe::Direction direction, std::size_t top_k,
              bool keep_trials);

  /// Adds a told batch; batches must come in order.
  void add(const BatchRequest& request, const BatchResult& result);

  std::uint64_t n_trials() const { return n_trials_; }
  std::string digest_hex() const { return digest_.hex(); }
  /// The best trials, best first (at most top_k).
  const std::vector<TrialRecord>& top() const { return top_; }
  /// Every trial in number order (empty unless keep_trials).
  const std::vector<TrialRecord>& trials() const { return trials_; }
  tpe::Direction direction() const { return direction_; }

 private:
  std::size_t n_axes_, n_metrics_;
  tpe::Direction direction_;
  std::size_t top_k_;
  bool keep_trials_;
  std::uint64_t n_trials_ = 0;
  Digest digest_;
  std::vector<TrialRecord> top_;
  std::vector<TrialRecord> trials_;
};

}  // namespace tpeopt::engine
