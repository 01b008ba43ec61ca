#include "strategies/trade_filter/trade_filter_exact_grid.hpp"

#include <fmt/format.h>

#include "common/error.hpp"
#include "strategies/trade_filter/trade_filter_strategy.hpp"

namespace tpeopt::strategies {

namespace tf = trade_filter;

tf::TradeFilterGrid trade_filter_grid_of(const SlotGrid& grid) {
  TPEOPT_ASSERT(grid.values.size() == tf::kSlots && grid.stride.size() == tf::kSlots,
                "trade_filter grid: one value list and one stride per slot");
  std::array<std::vector<double>, tf::kSlots> values;
  std::array<std::uint64_t, tf::kSlots> stride{};
  for (int s = 0; s < tf::kSlots; ++s) {
    values[s] = grid.values[s];
    stride[s] = grid.stride[s];
  }
  return tf::TradeFilterGrid(values, stride);
}

GridTop grid_top_of(const tf::GridSearchOutcome& outcome) {
  GridTop top;
  top.method = outcome.method;
  for (std::size_t i = 0; i < outcome.top.size(); ++i) {
    const tf::Tally& t = outcome.tallies[i];
    top.entries.push_back({outcome.top[i].key, outcome.top[i].combination, {t.sum_q, t.kept, t.wins, t.losses}});
  }
  return top;
}

namespace {

class CpuSearcher final : public GridSearcher {
 public:
  explicit CpuSearcher(const TradeFilterStrategy& strategy) : strategy_(strategy) {}
  GridTop search(const SlotGrid& grid, const GridSearchSettings& settings) override {
    return grid_top_of(tf::grid_search_cpu(strategy_, trade_filter_grid_of(grid), settings));
  }

 private:
  const TradeFilterStrategy& strategy_;
};

}  // namespace

void check_unfolded_for_exact_grid(const Strategy& strategy) {
  if (strategy.folds().n_folds() > 0)
    throw make_error(
        "data.folds: trade_filter's exact grid scores the whole span only; `tpeopt grid` runs a config with "
        "data.folds through the pipeline's grid sampler");
}

std::unique_ptr<GridSearcher> trade_filter_grid_cpu(const Strategy& strategy) {
  check_unfolded_for_exact_grid(strategy);
  return std::make_unique<CpuSearcher>(dynamic_cast<const TradeFilterStrategy&>(strategy));
}

GridScore trade_filter_grid_score(const std::int64_t* exact, std::int64_t min_trades) {
  GridScore s;
  s.score = tf::from_fixed_point(exact[0]);
  s.violation = tf::violation_of(exact[1], min_trades);
  s.metrics = {{"kept", exact[1]}, {"wins", exact[2]}, {"losses", exact[3]}};
  return s;
}

std::string trade_filter_grid_data(const Strategy& strategy) {
  return fmt::format("{} trades", dynamic_cast<const TradeFilterStrategy&>(strategy).data().n_trades());
}

}  // namespace tpeopt::strategies
