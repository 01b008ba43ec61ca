#pragma once
// Batch TPE's screening (docs/tpe.md, "Batch TPE", "Screening"): which trials are the best
// of several candidates by log l(x) - log g(x), and the choice among them. A marginal or
// recombine trial draws `candidates` candidates of its operator and is the first one with the
// largest DensityRatio score. A joint or evolve trial is its operator's single draw, not
// screened: the per-axis ratio ignores the correlations those operators draw along (screening
// the joint kernel lost on rotated problems), and an evolve trial's draw is what its
// distribution's update must see.
#include "tpe/density_ratio.hpp"
#include "tpe/good_set_model.hpp"
#include "tpe/trial_rng.hpp"

namespace tpeopt::tpe {

/// Candidates a trial of `op` draws when the sampler is set to `candidates` (>= 1).
int candidates_for(ProposalOperator op, int candidates);

/// Draws candidates_for(op, candidates) candidates of `op` from `model` with `engine`, one
/// after the other, and writes into `best` the first one with the largest ratio->score (a NaN
/// score never wins; the first candidate when `ratio` is null). `scratch` holds n_codes
/// doubles. Returns the index of the chosen candidate.
int screen(const GoodSetModel& model, const DensityRatio* ratio, ProposalOperator op, int candidates,
           TrialEngine& engine, double* best, double* scratch);

}  // namespace tpeopt::tpe
