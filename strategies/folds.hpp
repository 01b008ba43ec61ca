#pragma once
// Time folds of a strategy's walk (issue 34): the in-sample atoms cut into K contiguous folds,
// scored in the same walk, and the rule that makes one objective of the K fold scores.
// Declarations only: each strategy's Strategy::with_folds implements them.
#include <cstddef>
#include <vector>

namespace tpeopt::strategies {

/// K + 1 atom indices; fold k = atoms [edges[k], edges[k + 1]). `embargo` bars after each
/// boundary, where a trade that starts is not counted.
struct FoldSpec {
  std::vector<std::size_t> edges;
  std::size_t embargo = 0;
};

/// `objective.across_folds`: how the K fold scores make the trial's objective.
struct AcrossFolds {
  enum class Rule { All, Mean, Min, Quantile, MeanMinusStd } rule = Rule::All;
  double q = 0.5, lambda = 1.0;
};

}  // namespace tpeopt::strategies
