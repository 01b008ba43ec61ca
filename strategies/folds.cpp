#include "strategies/folds.hpp"

#include "common/error.hpp"

namespace tpeopt::strategies {

std::vector<std::string> fold_metric_names(const std::vector<std::string>& base, std::size_t K) {
  std::vector<std::string> out = base;
  for (std::size_t k = 0; k < K; ++k)
    for (const char* column : {"score", "n", "sum", "sumsq"}) out.push_back(fmt::format("fold{}_{}", k, column));
  return out;
}

const char* across_folds_name(AcrossFolds::Rule rule) {
  switch (rule) {
    case AcrossFolds::Rule::Mean:
      return "mean";
    case AcrossFolds::Rule::Min:
      return "min";
    case AcrossFolds::Rule::Quantile:
      return "quantile";
    case AcrossFolds::Rule::MeanMinusStd:
      return "mean_minus_std";
    case AcrossFolds::Rule::All:
      break;
  }
  return "all";
}

void check_fold_spec(const FoldSpec& folds, std::size_t n_atoms) {
  const std::size_t K = folds.n_folds();
  if (K < 1 || K > static_cast<std::size_t>(kMaxFolds))
    throw make_error("folds: {} fold(s); a walk scores 1 to {}", K, kMaxFolds);
  for (std::size_t k = 0; k < K; ++k) {
    if (folds.edges[k] >= folds.edges[k + 1])
      throw make_error("folds: edges must increase strictly (edge {} is {}, edge {} is {})", k, folds.edges[k], k + 1,
                       folds.edges[k + 1]);
    if (k > 0 && folds.embargo >= folds.edges[k + 1] - folds.edges[k])
      throw make_error("folds: an embargo of {} atoms covers all of fold {} ({} atoms)", folds.embargo, k,
                       folds.edges[k + 1] - folds.edges[k]);
  }
  if (folds.edges[K] > n_atoms)
    throw make_error("folds: the last edge {} lies past the data's {} atoms", folds.edges[K], n_atoms);
}

}  // namespace tpeopt::strategies
