#pragma once
// What a sampler is told about a trial (tpe/sampler.hpp's tell), and the one order every
// sampler ranks told trials by.
#include <cstdint>
#include <span>
#include <vector>

namespace tpeopt::tpe {

enum class Direction { Minimize, Maximize };

/// How a told trial ended.
enum class TrialState : std::uint8_t {
  Complete,  ///< evaluated on all of its data
  Pruned,    ///< stopped by successive halving after rung `rung`: its score is that rung's
};

/// Outcome of one trial as the sampler sees it.
///  - score: the objective value; NaN marks a failed trial (ignored by TPE, like Optuna's FAIL).
///  - violation: 0 for a feasible trial, > 0 by how much a constraint is violated
///    (infeasible trials rank after every feasible one, by increasing violation).
///  - state, rung: with successive halving (the study halves when rung >= 0), whether the
///    trial was pruned and the last rung it was evaluated on (0 = the first); a study that
///    does not halve tells every trial Complete with rung -1.
struct TrialOutcome {
  double score = 0.0;
  double violation = 0.0;
  TrialState state = TrialState::Complete;
  std::int32_t rung = -1;

  bool pruned() const { return state == TrialState::Pruned; }
};

/// The pair samplers rank a told trial by: feasible trials (violation <= 0) by score in the
/// study's direction, then the others by ascending violation (tpe/parzen_estimator.hpp's
/// split_below, tpe/good_pool.hpp, the GA's pool).
struct RankedOutcome {
  double score = 0.0;
  double violation = 0.0;
};

/// A told outcome as the pair samplers rank it by. Without halving, its score and violation.
/// With halving, Optuna's TPE rule for pruned trials (optuna/samplers/_tpe/sampler.py,
/// _split_trials; docs/tpe.md, "Pruned trials"):
///  - complete and feasible: (score, 0), first, by score;
///  - pruned and feasible: a violation in (0, 1) ordered by (deeper rung first, then better
///    rung score; a NaN rung score last in its rung): after every complete feasible trial;
///  - infeasible, complete or pruned: violation + 2, after every pruned trial, by violation.
/// (A NaN score of a pruned or infeasible trial counts as 0: such a trial is an observation.)
RankedOutcome ranked(const TrialOutcome& outcome, Direction direction);

/// ranked() of each outcome.
std::vector<RankedOutcome> ranked(std::span<const TrialOutcome> outcomes, Direction direction);

/// The violation a feasible trial pruned after rung `rung` (0 .. 62) with rung score
/// `score` is ranked by: rung r's values lie in [(4 (63 - r) - 3) / 256, (4 (63 - r) - 1) / 256].
double pruned_rank_violation(int rung, double score, Direction direction);

}  // namespace tpeopt::tpe
