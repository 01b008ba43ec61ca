#pragma once
// Settings of the batch TPE sampler (tpe/batch_tpe_sampler.hpp; docs/tpe.md, "Batch TPE").
#include <array>
#include <cstddef>

#include "tpe/proposal_operator.hpp"

namespace tpeopt::tpe {

/// Batch TPE's settings (`search.tpe` with `"preset": "batch"`, the default).
struct BatchTpeConfig {
  /// Random trials before the model starts, counted in told, non-failed trials at ask time.
  int n_startup_trials = 10;
  /// The good set of an ask of n trials holds the best max(min_good, ceil(good_fraction * n))
  /// told trials (all of them while there are fewer). In (0, 1].
  double good_fraction = 0.1;
  /// Smallest good set, >= 2.
  int min_good = 25;
  /// Candidates drawn per trial; the one with the largest log l(x) - log g(x) is proposed.
  int candidates = 4;
  /// Least share of a batch that each proposal operator in use keeps, in [0, 1/operators].
  double min_share = 0.05;
  /// Which proposal operators are used (joint, marginal, recombine, evolve;
  /// proposal_operator.hpp), at least one; all four by default (docs/tpe.md, "Evolve", says
  /// how that was chosen).
  std::array<bool, kOperators> operators{true, true, true, true};
  /// Whether `operators` was given (`search.tpe.operators`): evolve draws the numeric axes, so
  /// a space without one refuses a listed evolve, and runs the default set without it.
  bool operators_listed = false;
  /// The joint kernel's step-size rule (docs/tpe.md, "Joint step size"): 0 (off, the
  /// default) keeps Scott's factor; a rate in (0, 1) multiplies it by a step size s adapted in
  /// tell() from the joint trials' success rate r (the operator shares' rate): ln s moves by
  /// (r - target) / (2 target), s kept in [1e-3, 4], and set back to 1 when it reaches 1e-3.
  double joint_success_target = 0.0;
  /// Whether a modelled trial that repeats a recently asked row is drawn again (docs/tpe.md,
  /// "Distinct trials"): up to 8 times from its operator, then up to 8 times at random.
  bool distinct = true;
  /// The rows a repeat is looked for among: the last `distinct_window` asked (not a config
  /// key: tests shrink it to reach its eviction).
  std::size_t distinct_window = std::size_t{1} << 20;
  /// Worker threads for ask() (1 = the sampler thread alone; 0 = all cores). Results do not
  /// depend on it.
  unsigned threads = 1;
};

}  // namespace tpeopt::tpe
