#pragma once
// trade_filter's exact grid as the registry's capability (strategies/exact_grid.hpp): the
// cell method of trade_filter_grid.hpp (CPU) and trade_filter_grid_device.hpp (GPU) behind
// the strategy-independent searcher, each hit's exact totals being its Tally (sum_q, kept,
// wins, losses).
#include <memory>
#include <string>

#include "strategies/exact_grid.hpp"
#include "strategies/trade_filter/trade_filter_grid.hpp"

namespace tpeopt::strategies {

/// The grid in trade_filter's layout.
trade_filter::TradeFilterGrid trade_filter_grid_of(const SlotGrid& grid);
/// Hits and tallies as the capability returns them.
GridTop grid_top_of(const trade_filter::GridSearchOutcome& outcome);

/// Throws Error naming data.folds for a strategy with folds: the exact grid's totals are the
/// whole span's (`tpeopt grid` sends a folded config to the grid sampler instead).
void check_unfolded_for_exact_grid(const Strategy& strategy);

std::unique_ptr<GridSearcher> trade_filter_grid_cpu(const Strategy& strategy);
GridScore trade_filter_grid_score(const std::int64_t* exact, std::int64_t min_trades);
std::string trade_filter_grid_data(const Strategy& strategy);

}  // namespace tpeopt::strategies

namespace tpeopt::gpu {

/// The GPU searcher (trade_filter_exact_grid_device.cpp; builds with CUDA).
std::unique_ptr<strategies::GridSearcher> trade_filter_grid_device(const strategies::Strategy& strategy);

}  // namespace tpeopt::gpu
