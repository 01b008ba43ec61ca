#pragma once
// The selection-bias pass after a run (docs/will-it-hold-up.md): the run's top trials and a
// seeded sample of the rest re-evaluated through the run's executor with the in-sample span cut
// into S equal time folds (Strategy::with_folds), then the Deflated Sharpe Ratio of the best
// trial, the PBO by CSCV and the verdict (selection/). A strategy that cannot be split gets
// "not available" and a reason; the run itself is never affected.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "config/study_config.hpp"
#include "selection/cscv.hpp"
#include "selection/deflated_sharpe.hpp"
#include "strategies/strategy.hpp"
#include "study/selection_sample.hpp"
#include "study/study.hpp"

namespace tpeopt::engine {

struct SelectionSettings {
  std::size_t top = 1000;          ///< the run's best trials re-evaluated
  std::size_t sample = 1000;       ///< a seeded sample of the other trials re-evaluated
  std::size_t sub_periods = 16;    ///< S of CSCV: equal folds of the in-sample span
  std::size_t max_splits = 12870;  ///< all C(16, 8) splits; a seeded sample above
};

struct SelectionBias {
  std::string unavailable;          ///< why the statistics are not available; empty when they are
  std::uint64_t n_trials = 0;       ///< distinct parameter sets: the number of trials the statistics count
  std::uint64_t n_told = 0;         ///< trials told, repeats of a parameter set included
  std::size_t top = 0, sample = 0;  ///< trials re-evaluated: the run's best, and a sample of the rest
  std::size_t sub_periods = 0, in_sample_atoms = 0;
  std::string unit;  ///< of the atoms: "bars" or "trading days"
  std::uint64_t best_trial = 0;
  /// The DSR the verdict reads: every trial's Sharpe ratio standardized by its own standard
  /// error (selection::Deflation::Standardized), so that trials of few and of many returns
  /// count alike.
  std::optional<selection::DeflatedSharpe> dsr;
  /// The paper's DSR of the same best trial, from one variance of the trials' Sharpe ratios.
  std::optional<selection::DeflatedSharpe> dsr_paper;
  std::string variance_from;        ///< which trials gave V[z] and V[SR], and how they were weighted
  std::string higher_moments_from;  ///< where the best trial's skewness and kurtosis come from
  std::optional<selection::Cscv> cscv;
  std::string verdict;
  double seconds = 0.0;  ///< wall time of the pass
};

/// The pass over the trials `sample` collected from the run of `config` over `strategy` (the
/// full data), evaluated on the executor `options` name (CPU or CUDA). Never throws for a study
/// the statistics cannot serve: the result says why instead.
SelectionBias selection_bias(const io::StudyConfig& config, const strategies::Strategy& strategy,
                             const SelectionSample& sample, const RunOptions& options,
                             const SelectionSettings& settings = {});

/// The verdict line `tpeopt run` prints last: "selection bias: <verdict> (<what was used>)" or
/// "selection bias: not available: <why>".
std::string selection_bias_line(const SelectionBias& s);

}  // namespace tpeopt::engine
