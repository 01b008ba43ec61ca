#include "tpe/trial_outcome.hpp"

#include <cmath>
#include <numbers>

#include "common/error.hpp"

namespace tpeopt::tpe {

double pruned_rank_violation(int rung, double score, Direction direction) {
  TPEOPT_ASSERT(rung >= 0 && rung <= 62, "pruned_rank_violation: rung out of range");
  // g in [0, 1], smaller = better rung score; NaN = 1 (Optuna: +inf, the worst of its step).
  double g = 1.0;
  if (!std::isnan(score)) {
    const double a = std::atan(score) / std::numbers::pi;  // in [-0.5, 0.5], increasing
    g = direction == Direction::Maximize ? 0.5 - a : 0.5 + a;
  }
  // Rung r's values lie in [(4 (63 - r) - 3) / 256, (4 (63 - r) - 1) / 256]: disjoint
  // intervals, deeper rungs lower, all in (0, 1).
  return (4.0 * (63 - rung) - 3.0 + 2.0 * g) / 256.0;
}

RankedOutcome ranked(const TrialOutcome& o, Direction direction) {
  if (o.rung < 0) return {o.score, o.violation};  // the study does not halve
  if (o.violation > 0.0) return {std::isnan(o.score) ? 0.0 : o.score, o.violation + 2.0};
  if (!o.pruned()) return {o.score, o.violation};
  return {std::isnan(o.score) ? 0.0 : o.score, pruned_rank_violation(o.rung, o.score, direction)};
}

std::vector<RankedOutcome> ranked(std::span<const TrialOutcome> outcomes, Direction direction) {
  std::vector<RankedOutcome> out(outcomes.size());
  for (std::size_t i = 0; i < outcomes.size(); ++i) out[i] = ranked(outcomes[i], direction);
  return out;
}

}  // namespace tpeopt::tpe
