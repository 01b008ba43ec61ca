#pragma once
// One trial of a long/short signal strategy over one symbol (strategies/long_short.hpp), as
// both the CPU reference (strategies/signal_strategy.hpp) and the CUDA twin
// (strategies/device/signal_device.cuh) run it: TPEOPT_HD, so the two share every operation.
//
// A signal strategy is a `Logic` struct of TPEOPT_HD static functions (docs/writing-a-
// strategy.md, "Walk-through"):
//   static constexpr int kNumSlots;   // parameter slots
//   static constexpr int kNumSeries;  // per-parameter series a trial reads
//   static constexpr int kAtrSeries;  // which of them is the ATR of the stop
//   struct Params { long_short::Costs costs; int first_valid; ... };
//   static Params unpack(const double* slots);
//   static void series_keys(const Params& p, SeriesKey* keys);  // kNumSeries (kind, value) keys
//   static void compute_series(int kind, int value, const long_short::Bars& bars, double* out);
//   static long_short::Signals signals(const Params& p, const long_short::Bars& bars,
//                                      const double* const* series, int t);
// A series depends on one (kind, value) and the symbol's bars only, so it is computed once
// per symbol and shared by every trial that reads it (SeriesCache on the CPU, the device's
// series cache on the GPU); NaN where undefined (warm-up).
#include <cmath>

#include "common/hd.hpp"
#include "strategies/bar_block.hpp"
#include "strategies/long_short.hpp"
#include "strategies/trade_stats.hpp"

namespace tpeopt::strategies {

/// A per-parameter series: its kind (the strategy's numbering) and parameter value.
struct SeriesKey {
  int kind = 0, value = 0;
};

/// Integer parameters arrive as doubles and are rounded: k = floor(v + 0.5).
TPEOPT_HD_INLINE int round_param(double v) { return static_cast<int>(floor(v + 0.5)); }

/// The trial's trades over `blocks` of the symbol's bars (every block starting flat, an open
/// position marked at the block's last bar), in block order; *all summarizes them all. Returns
/// the score: 0.0 plus each block's objective value in block order (one block over the whole
/// series: the objective value of its trades). on_trade(const Trade&) sees every trade.
TPEOPT_LONG_SHORT_NO_CHECK
template <typename Logic, typename OnTrade>
TPEOPT_HD_INLINE double run_signal_symbol(const typename Logic::Params& p, const long_short::Bars& bars,
                                          const double* const* series, const BarBlock* blocks, int n_blocks,
                                          long_short::Objective o, long_short::Summary* all, OnTrade&& on_trade) {
  BlockedScore<long_short::Summary> blocked;
  *all = long_short::Summary{};
  for (int k = 0; k < n_blocks; ++k) {
    long_short::run_backtest(
        long_short::block_bars(bars, blocks[k].begin, blocks[k].end), p.costs, p.first_valid, series[Logic::kAtrSeries],
        [&](int t) { return Logic::signals(p, bars, series, t); },
        [&](const long_short::Trade& t) {
          long_short::add_trade(*all, t);
          long_short::add_trade(blocked.block, t);
          on_trade(t);
        });
    close_block(blocked, long_short::objective_value(blocked.block, o));
  }
  return blocked.score;
}

}  // namespace tpeopt::strategies
