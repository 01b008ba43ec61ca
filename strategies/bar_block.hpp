#pragma once
// A block of bars [begin, end) of one series, backtested on its own (docs/strategies.md, "Data subsets"): the
// walk starts flat at begin, reads the whole series' indicators (its warm-up comes from the
// bars before it) and closes a position still open at bar end - 1 as at the end of the
// data. A candle strategy's part of the data (hold-out, walk-forward window, halving slice)
// is a list of blocks per symbol; one block over the whole series is the plain backtest,
// bit for bit. TPEOPT_HD: the CUDA kernels read blocks too.
#include "common/hd.hpp"

namespace tpeopt::strategies {

struct BarBlock {
  int begin = 0, end = 0;
  bool operator==(const BarBlock&) const = default;
};

/// The bars of block [begin, end) of `all`, for any strategy's bars with the walk's first bar
/// `begin` and its end `n` (the walk's last bar is n - 1); the arrays stay the whole series'.
template <typename Bars>
TPEOPT_HD_INLINE Bars block_bars(Bars all, int begin, int end) {
  all.begin = begin;
  all.n = end;
  return all;
}

}  // namespace tpeopt::strategies
