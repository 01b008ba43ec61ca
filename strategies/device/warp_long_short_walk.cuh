#pragma once
// long_short::walk_from walked by the 32 lanes of a warp together: the same trades, in the
// same order, with the same bits, on every lane. CUDA translation units only.
//
// walk_from's two scans look for the first bar where a test holds: the first entry signal
// from the scan position, then the first bar after the entry where the stop hits or the exit
// signal holds. Each test reads only that bar's inputs (and the position), so the warp tests
// 32 consecutive bars at once, one per lane, and takes the first lane whose test holds
// (ballot). Neighbouring lanes read neighbouring bars of the same series: one or two cache
// lines per load instead of one per lane, and the warp's 32 lanes turn one trial's chain of
// dependent steps into 32 independent ones. At the bar found the lane's result is what the
// sequential scan finds there (the stop is tested before the exit signal on the same bar), so
// the position, exit bar, reason and price are walk_from's; every lane then makes the trade
// with close_position from the same values.
#include "strategies/long_short.hpp"

namespace tpeopt::gpu {

/// long_short::walk_from(b, c, first_valid, atr, signals, from, stop, on_exit) on every lane
/// of a full warp (`lane` = threadIdx.x & 31; all 32 lanes call it with the same arguments):
/// the same trades (on_exit sees each on every lane, and may return false to end the walk)
/// and the same result.
template <typename SignalsAt, typename OnExit>
__device__ __forceinline__ int warp_walk_from(const strategies::long_short::Bars& b,
                                              const strategies::long_short::Costs& c, int first_valid,
                                              const double* atr, const SignalsAt& signals, int from, int stop, int lane,
                                              OnExit&& on_exit) {
  namespace ls = strategies::long_short;
  constexpr unsigned kFull = 0xffffffffu;
  const int last_signal = stop - 1;
  int s = first_valid > from ? first_valid : from;
  while (s <= last_signal) {
    int side = 0;
    for (int base = s; base <= last_signal; base += 32) {
      const int t = base + lane;
      const int mine = t <= last_signal ? ls::entry_side(signals(t)) : 0;
      const unsigned hit = __ballot_sync(kFull, mine != 0);
      if (hit != 0u) {
        const int first = __ffs(static_cast<int>(hit)) - 1;
        s = base + first;
        side = __shfl_sync(kFull, mine, first);
        break;
      }
    }
    if (side == 0) return last_signal + 1;  // the sequential scan stops at `stop`
    const ls::Position pos = ls::open_at(b, c, atr, s, side);
    int j = b.n - 1;
    double price = b.close[b.n - 1];
    int reason = ls::kEnd;
    for (int base = pos.entry_bar + 1; base <= b.n - 1; base += 32) {
      const int at = base + lane;
      double mine_price = 0.0;
      const int mine = at <= b.n - 1 ? ls::exit_at(b, pos, signals, at, &mine_price) : ls::kNoExit;
      const unsigned hit = __ballot_sync(kFull, mine != ls::kNoExit);
      if (hit != 0u) {
        const int first = __ffs(static_cast<int>(hit)) - 1;
        j = base + first;
        reason = __shfl_sync(kFull, mine, first);
        price = __shfl_sync(kFull, mine_price, first);
        break;
      }
    }
    if (!ls::report_exit(on_exit, pos, j, price, reason)) return j;
    s = j;
  }
  return s;
}

/// long_short::run_backtest on every lane of a full warp (warp_walk_from over the block).
template <typename SignalsAt, typename OnTrade>
__device__ __forceinline__ void warp_run_backtest(const strategies::long_short::Bars& b,
                                                  const strategies::long_short::Costs& c, int first_valid,
                                                  const double* atr, const SignalsAt& signals, int lane,
                                                  OnTrade&& on_trade) {
  warp_walk_from(b, c, first_valid, atr, signals, b.begin, b.n - 1, lane,
                 [&](const strategies::long_short::Position& pos, int j, double price, int reason) {
                   on_trade(strategies::long_short::close_position(c, pos, j, price, reason));
                 });
}

}  // namespace tpeopt::gpu
