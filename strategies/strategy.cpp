#include "strategies/strategy.hpp"

#include "common/error.hpp"

namespace tpeopt::strategies {

std::unique_ptr<Strategy> Strategy::subset(const std::vector<AtomRange>& ranges, std::int64_t min_trades) const {
  (void)ranges, (void)min_trades;
  throw make_error("strategy {} cannot be cut into data subsets (hold-out, walk-forward, halving)", name());
}

}  // namespace tpeopt::strategies
