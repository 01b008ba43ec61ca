// The GPU searcher of trade_filter's exact grid (builds with CUDA): the strategy's data is
// uploaded once, when the searcher is made.
#include "strategies/trade_filter/trade_filter_exact_grid.hpp"
#include "strategies/trade_filter/trade_filter_grid_device.hpp"

namespace tpeopt::gpu {

namespace {

class DeviceSearcher final : public strategies::GridSearcher {
 public:
  explicit DeviceSearcher(const strategies::TradeFilterStrategy& strategy) : search_(strategy) {}
  strategies::GridTop search(const strategies::SlotGrid& grid,
                             const strategies::GridSearchSettings& settings) override {
    return strategies::grid_top_of(search_.search(strategies::trade_filter_grid_of(grid), settings));
  }

 private:
  TradeFilterGridSearch search_;
};

}  // namespace

std::unique_ptr<strategies::GridSearcher> trade_filter_grid_device(const strategies::Strategy& strategy) {
  strategies::check_unfolded_for_exact_grid(strategy);
  return std::make_unique<DeviceSearcher>(dynamic_cast<const strategies::TradeFilterStrategy&>(strategy));
}

}  // namespace tpeopt::gpu
