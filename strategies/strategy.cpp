#include "strategies/strategy.hpp"

#include "common/error.hpp"

namespace tpeopt::strategies {

std::unique_ptr<Strategy> Strategy::subset(const std::vector<AtomRange>& ranges, std::int64_t min_trades) const {
  (void)ranges, (void)min_trades;
  throw make_error("strategy {} cannot be cut into data subsets (hold-out, walk-forward, halving)", name());
}

std::unique_ptr<Strategy> Strategy::with_folds(const FoldSpec& folds, const AcrossFolds& rule) const {
  (void)folds, (void)rule;
  throw make_error("strategy {} cannot be scored per time fold", name());
}

}  // namespace tpeopt::strategies
