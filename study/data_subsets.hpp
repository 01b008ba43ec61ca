#pragma once
// Data subsets (docs/user-guide.md, "Hold-out" and "Successive halving"):
// which atoms of a strategy's data (trading days of a trade log, bar times of candles) form the
// in-sample and out-of-sample parts, the slices of successive halving, their shuffled
// order and the rungs. Pure functions of (strategy, config): a run and its resume agree.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "config/study_config.hpp"
#include "strategies/strategy.hpp"

namespace tpeopt::engine {

using strategies::AtomRange;

/// Atoms in a list of ranges.
std::size_t atom_count(const std::vector<AtomRange>& ranges);

/// The two parts of a hold-out, as increasing, disjoint atom ranges.
struct HoldoutSplit {
  std::vector<AtomRange> in_sample, out_of_sample;
};

/// Splits the strategy's atoms by `data.holdout`: a fraction f takes the atoms starting at
/// or after t0 + (1 - f) * (t1 - t0) (t0, t1: the first and last atoms' times); date ranges
/// take the atoms whose time falls in one of them. Throws Error naming data.holdout when
/// the strategy cannot be sliced or either part would be empty.
HoldoutSplit split_holdout(const strategies::Strategy& strategy, const io::HoldoutConfig& holdout);

/// The parts of a study with parts (config.has_parts()): its hold-out split, or for
/// walk-forward fold f of k, window f in sample and window f + 1 out of sample (the atoms
/// cut into k + 1 equal consecutive windows). Errors name data.holdout / data.walk_forward.
HoldoutSplit split_parts(const strategies::Strategy& strategy, const io::StudyConfig& config);

/// The atoms a study optimizes on: its parts' in-sample ranges, or every atom (none when the
/// strategy has no atoms and the study has no parts).
std::vector<AtomRange> in_sample_ranges(const strategies::Strategy& strategy, const io::StudyConfig& config);

/// Every check of the study's data subsets (hold-out, walk-forward windows, halving slices),
/// without building them, so that `tpeopt run` refuses a study before it creates its run
/// directory. Throws Error naming the config file and key.
void check_data_subsets(const strategies::Strategy& strategy, const io::StudyConfig& config);

/// The folds of `data.folds` (docs/user-guide.md, "Folds"): the in-sample atoms cut into K
/// consecutive groups of equal atom count (equal_slices), fold k from group k's first atom to
/// group k + 1's, the last ending after the last in-sample atom. Throws Error naming
/// data.folds or data.embargo: more folds than atoms, a fold shorter than the strategy's
/// longest window at the highest values the config lets its parameters take
/// (Strategy::longest_window), an embargo as long as a fold.
strategies::FoldSpec fold_spec(const strategies::Strategy& strategy, const io::StudyConfig& config);

/// Walk-forward windows: the strategy's atoms cut into folds + 1 equal consecutive windows.
std::vector<std::vector<AtomRange>> walk_forward_windows(const strategies::Strategy& strategy,
                                                         const io::WalkForwardConfig& walk_forward);

/// Cuts the atoms of `ranges` (in order) into n consecutive groups of (almost) equal
/// size: group k holds atoms [floor(k N / n), floor((k + 1) N / n)) of the N atoms, as
/// ranges that never cross a gap between input ranges. n is capped at N.
std::vector<std::vector<AtomRange>> equal_slices(const std::vector<AtomRange>& ranges, std::size_t n);

/// The slices of successive halving over `ranges` (the in-sample part): one per atom when
/// the strategy's atoms are natural slices and `halving.slices` is 0, else
/// `halving.slices` (default 16) equal groups. Throws Error naming search.halving when
/// fewer than 2 slices result.
std::vector<std::vector<AtomRange>> halving_slices(const strategies::Strategy& strategy,
                                                   const std::vector<AtomRange>& ranges,
                                                   const io::HalvingConfig& halving);

/// A permutation of 0 .. n-1 drawn from the study seed's own stream (purpose "halving
/// slices"; Fisher-Yates over SplitMix64, Boost's uniform_int_distribution): the same for
/// the same (n, seed) on every platform.
std::vector<std::size_t> shuffled_slice_order(std::size_t n, std::uint64_t seed);

/// Slices evaluated at each rung: m, m*eta, m*eta^2, ... while below n_slices, then
/// n_slices (the last rung is always every slice).
std::vector<std::size_t> rung_slice_counts(std::size_t n_slices, const io::HalvingConfig& halving);

/// min_trades for a part of `part` atoms out of `whole`: ceil(min_trades * part / whole).
std::int64_t scaled_min_trades(std::int64_t min_trades, std::size_t part, std::size_t whole);

/// Spearman's rank correlation of two equally long lists (average ranks on ties); NaN when
/// fewer than 2 pairs or a list is constant.
double spearman_correlation(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace tpeopt::engine
