#pragma once
#include <cmath>
#include <cstdint>

#include "tpe/search_space.hpp"

namespace tpeopt::engine {

/// The order of trials in top-K lists: feasible trials by score (best first), then
/// infeasible ones by increasing violation, then failed ones (NaN score); ties by the
/// lower trial number, so the order is total and deterministic.
struct RankKey {
  std::uint64_t trial = 0;
  double score = 0.0;
  double violation = 0.0;
};

/// A trial's outcome class, in ranking order: feasible (a score, no violation), infeasible (a
/// score, but a constraint missed: too few trades, by `violation` trades), failed (no score).
enum class TrialOutcomeClass : int { Feasible = 0, Infeasible = 1, Failed = 2 };

inline TrialOutcomeClass outcome_class(double score, double violation) {
  return std::isnan(score) ? TrialOutcomeClass::Failed
                           : (violation > 0.0 ? TrialOutcomeClass::Infeasible : TrialOutcomeClass::Feasible);
}

inline bool ranks_before(const RankKey& a, const RankKey& b, tpe::Direction direction) {
  const int ca = static_cast<int>(outcome_class(a.score, a.violation));
  const int cb = static_cast<int>(outcome_class(b.score, b.violation));
  if (ca != cb) return ca < cb;
  if (ca == 0 && a.score != b.score)
    return direction == tpe::Direction::Minimize ? a.score < b.score : a.score > b.score;
  if (ca == 1 && a.violation != b.violation) return a.violation < b.violation;
  return a.trial < b.trial;
}

}  // namespace tpeopt::engine
