#include "strategies/strategy.hpp"

#include "common/error.hpp"

namespace tpeopt::strategies {

std::unique_ptr<Strategy> Strategy::subset(const std::vector<AtomRange>& ranges, std::int64_t min_trades) const {
  (void)ranges, (void)min_trades;
  throw make_error("strategy {} cannot be cut into data subsets (hold-out, walk-forward, halving)", name());
}

std::unique_ptr<Strategy> Strategy::with_folds(const FoldSpec& folds, const AcrossFolds& rule) const {
  (void)folds, (void)rule;
  throw make_error("strategy {} cannot be split into folds (data.folds, objective.across_folds)", name());
}

const FoldSpec& Strategy::folds() const {
  static const FoldSpec none;
  return none;
}

double Strategy::longest_window(const double* slot_values) const {
  double longest = 0.0;
  const auto& specs = params().specs();
  for (std::size_t k = 0; k < specs.size(); ++k) {
    const std::string& n = specs[k].name;
    const bool window =
        n == "window" || n.ends_with("_window") || n == "channel" || n.ends_with("_channel") || n.starts_with("ema_");
    if (specs[k].integer && window && slot_values[k] > longest) longest = slot_values[k];
  }
  return longest;
}

}  // namespace tpeopt::strategies
