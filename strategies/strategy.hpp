#pragma once
// strategies/: each strategy's parameters and per-trial logic. The per-trial logic is
// TPEOPT_HD code shared by the CPU reference and the CUDA kernels; this header is the
// host-side face the engine and the executors use. Knows nothing of samplers.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "strategies/folds.hpp"
#include "strategies/params.hpp"

namespace tpeopt::strategies {

/// What one trial's evaluation gives the sampler.
///  - score: the objective value; NaN when the trial failed.
///  - violation: 0 when feasible, > 0 by how much a constraint (e.g. min_trades) is missed.
struct TrialScore {
  double score = 0.0;
  double violation = 0.0;
};

/// Atoms [begin, end) of a strategy's data (docs/strategies.md, "Data subsets"; see Strategy::n_atoms).
struct AtomRange {
  std::size_t begin = 0, end = 0;
  bool operator==(const AtomRange&) const = default;
};

/// A strategy bound to its data. Immutable after construction and safe to use from
/// many threads at once (evaluate is const and touches only its arguments).
class Strategy {
 public:
  virtual ~Strategy() = default;

  /// The config's "strategy" name (its registry entry's).
  virtual std::string name() const = 0;

  /// The strategy's parameter slots (strategies/params.hpp), in the order of a trial's
  /// parameter vector: the registry's list, or for a strategy whose slots are the config's
  /// parameters, that list. The engine fills the vector from the trial's axes, the config's
  /// fixed values and the defaults (engine/param_binding.hpp).
  virtual const ParamList& params() const = 0;
  const std::vector<std::string>& param_names() const { return params().names(); }
  /// Default values of slots a config may leave out (NaN = required).
  std::vector<double> param_defaults() const { return params().defaults(); }
  /// Throws tpeopt::Error naming the parameter ("params.<name>: ...") when values in
  /// [low, high] are not all valid for slot `slot` (e.g. a window below 1).
  void check_param_range(std::size_t slot, double low, double high) const { params().check(slot, low, high); }

  /// Names of the per-trial metrics evaluate() writes (may be empty).
  virtual const std::vector<std::string>& metric_names() const = 0;

  /// The CPU reference evaluation of one trial: params has param_names().size()
  /// values, metrics receives metric_names().size() values.
  virtual TrialScore evaluate(const double* params, double* metrics) const = 0;

  /// Checksums of the data this strategy reads, "name=hex" per source (empty if none).
  virtual std::vector<std::string> data_checksums() const { return {}; }

  // ---- data subsets (docs/strategies.md, "Data subsets") ------------
  // A sliceable strategy's data is a sequence of atoms in time order (trading days of a
  // trade log, the bar times of a candle data set). Hold-out parts, walk-forward windows
  // and the slices of successive halving are sets of atom ranges.

  /// Number of atoms; 0 = this strategy cannot be sliced.
  virtual std::size_t n_atoms() const { return 0; }
  /// Start of atom k, seconds since 1970-01-01 (UTC for bars; the trade log's own date for days).
  virtual std::int64_t atom_time_s(std::size_t k) const {
    (void)k;
    return 0;
  }
  /// Whether each atom is a natural slice for successive halving (a trading day);
  /// if not, the data is cut into equal blocks of atoms (`search.halving.slices`).
  virtual bool atoms_are_slices() const { return false; }
  /// The strategy over the given ranges only, with `min_trades` as its trade minimum.
  /// Scores over disjoint ranges add up to the score over their union (exactly, for a
  /// fixed-point score; a candle strategy backtests each range as a block of its own and
  /// adds the blocks' objective values in time order).
  virtual std::unique_ptr<Strategy> subset(const std::vector<AtomRange>& ranges, std::int64_t min_trades) const;
  /// The trade minimum this strategy was built with (0 when it has none).
  virtual std::int64_t min_trades() const { return 0; }

  // ---- folds (strategies/folds.hpp; docs/strategies.md, "Folds") ----------------------------

  /// This strategy with its walk scoring each fold in the same walk (a trade belongs to the fold
  /// of its entry bar). metric_names(): the base metrics, then per fold k = 0..K-1 the columns
  /// "fold{k}_score" (the strategy's objective over fold k's trades), "fold{k}_n", "fold{k}_sum",
  /// "fold{k}_sumsq" (count, sum and sum of squares of the return observations whose Sharpe the
  /// strategy reports: trade returns, or bar returns for a per-bar strategy). score: rule All =
  /// the whole-span score, bit for bit as without folds; else the rule over the fold scores.
  /// Edges are atoms of the whole data (n_atoms()), also for a subset: a folded strategy's
  /// subset keeps its folds, and a subset's with_folds counts the trades inside it. A FoldSpec
  /// without edges gives the strategy without folds.
  /// Throws tpeopt::Error("... cannot be split into folds") for strategies that cannot.
  virtual std::unique_ptr<Strategy> with_folds(const FoldSpec& folds, const AcrossFolds& rule) const;
  /// The folds this strategy scores (none: edges empty).
  virtual const FoldSpec& folds() const;

  /// The longest window (in atoms) a trial with these slot values reads before its first
  /// signal: a fold shorter than it has no room for a trade. The default: the largest value
  /// of the integer slots named "window", "*_window", "channel", "*_channel" or "ema_*".
  virtual double longest_window(const double* slot_values) const;
};

}  // namespace tpeopt::strategies
