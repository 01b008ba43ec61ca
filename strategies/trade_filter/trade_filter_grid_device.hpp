#pragma once
// The GPU grid search of the trade_filter strategy: the twin of
// strategies/trade_filter/trade_filter_grid.hpp's grid_search_cpu, with the same top K.
//
// Design (everything exact, int64; ties broken by the lower combination index):
//  - cells: when the cell tables of every (target, stop) pair fit in `memory_budget`,
//    one pass over the trades fills them (shared-memory histograms when a table fits
//    in shared memory, else global integer atomics), a 5-D suffix sum runs in place,
//    and combination index ranges are streamed: each thread decodes its combination,
//    looks its score up, and writes a rank key; a stable CUB radix sort of each chunk
//    (input in increasing combination order) and a one-block merge keep the top K on
//    the device.
//  - cells by pair: when only some pairs' tables fit, pairs are processed in groups and
//    each pair's filter combinations are streamed in increasing combination order.
//  - direct: when even one table does not fit, each chunk of combinations is tallied
//    over all trades by record bisection (trade_filter_device.hpp).
// No memory per combination beyond one chunk (2^24 by default), so 1e10 combinations
// and more stream through.
#include <cstddef>
#include <memory>

#include "strategies/trade_filter/trade_filter_grid.hpp"
#include "strategies/trade_filter/trade_filter_strategy.hpp"

namespace tpeopt::gpu {

class TradeFilterGridSearch {
 public:
  /// Uploads the strategy's data once (device 0 unless set current before).
  explicit TradeFilterGridSearch(const strategies::TradeFilterStrategy& strategy);
  ~TradeFilterGridSearch();
  TradeFilterGridSearch(const TradeFilterGridSearch&) = delete;
  TradeFilterGridSearch& operator=(const TradeFilterGridSearch&) = delete;

  /// The top K of `grid`; settings.memory_budget 0 means a quarter of the free device memory.
  /// `chunk` bounds the combinations scored per launch.
  strategies::trade_filter::GridSearchOutcome search(const strategies::trade_filter::TradeFilterGrid& grid,
                                                     const strategies::trade_filter::GridSearchSettings& settings,
                                                     std::size_t chunk = std::size_t{1} << 24);

  /// Exact totals of explicit combinations (for checks): n combination indices on the host.
  std::vector<strategies::trade_filter::Tally> tally(const strategies::trade_filter::TradeFilterGrid& grid,
                                                     const std::vector<std::uint64_t>& combos);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tpeopt::gpu
