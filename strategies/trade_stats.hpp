#pragma once
// The running statistics of a trial's trade returns, shared by the candle strategies that
// trade (those with their own walk, and the long/short walk of strategies/long_short.hpp)
// as TPEOPT_HD code: one definition of how trades, wins, the sum and Welford moments of
// returns, gross wins and losses and the compounded equity's drawdown accumulate, of the
// Sharpe ratio and profit factor made from them, of the metric columns they write and of
// the score over blocks of bars. The CPU references and the CUDA kernels call the same
// functions, so their bits agree.
#include <cmath>

#include "common/hd.hpp"
#include "strategies/folds.hpp"

namespace tpeopt::strategies {

/// Updated in trade order by add_return.
struct ReturnStats {
  int trades = 0, wins = 0;
  double total_return = 0.0;    ///< sum of returns
  double mean = 0.0, m2 = 0.0;  ///< Welford's running mean and sum of squared deviations of returns
  double gross_win = 0.0;       ///< sum of positive returns
  double gross_loss = 0.0;      ///< minus the sum of negative returns
  double equity = 1.0, peak = 1.0, max_drawdown = 0.0;  ///< compounded equity prod(1 + return)
};

TPEOPT_HD_INLINE void add_return(ReturnStats& s, double ret) {
  s.trades += 1;
  if (ret > 0.0) s.wins += 1;
  s.total_return = s.total_return + ret;
  const double delta = ret - s.mean;
  s.mean = s.mean + delta / static_cast<double>(s.trades);
  s.m2 = s.m2 + delta * (ret - s.mean);
  if (ret > 0.0) s.gross_win = s.gross_win + ret;
  if (ret < 0.0) s.gross_loss = s.gross_loss - ret;
  s.equity = s.equity * (1.0 + ret);
  if (s.equity > s.peak) s.peak = s.equity;
  const double dd = 1.0 - s.equity / s.peak;
  if (dd > s.max_drawdown) s.max_drawdown = dd;
}

constexpr double kProfitFactorCap = 1e6;

/// Returns whose variance is at most this times their squared mean (a standard deviation of
/// at most 1e-5 of the mean return) are taken as constant: equal returns keep a variance
/// from the rounding of their own computation alone (about 1e-32 for trade returns of 1e-2
/// computed from different prices; up to about n x 1e-16 times the squared mean for a
/// per-bar sum of squares), and dividing by it gives a Sharpe ratio of 1e11 to 1e15 instead
/// of an undefined one. A spread that small is no spread a market gives.
constexpr double kSharpeMinRelativeVariance = 1e-10;

/// mean / sqrt(variance) * sqrt(n): the Sharpe ratio of n returns (of trades, or of bars for
/// a per-bar strategy), defined as 0 when the returns are constant: a variance at most
/// kSharpeMinRelativeVariance * mean^2 (0 included), or NaN. Shared by every strategy's
/// Sharpe, on the CPU and the GPU.
TPEOPT_HD_INLINE double sharpe_ratio(double mean, double variance, double n) {
  if (!(variance > kSharpeMinRelativeVariance * (mean * mean))) return 0.0;
  return mean / sqrt(variance) * sqrt(n);
}

/// mean return / population sd of returns * sqrt(trades); 0 without trades or when the
/// returns have no spread (sharpe_ratio).
TPEOPT_HD_INLINE double sharpe(const ReturnStats& s) {
  if (s.trades == 0) return 0.0;
  const double n = static_cast<double>(s.trades);
  return sharpe_ratio(s.total_return / n, s.m2 / n, n);
}

/// gross_win / gross_loss, capped at 1e6; without losing trades 1e6 if any win, else 0.
TPEOPT_HD_INLINE double profit_factor(const ReturnStats& s) {
  if (!(s.gross_loss > 0.0)) return s.gross_win > 0.0 ? kProfitFactorCap : 0.0;
  const double pf = s.gross_win / s.gross_loss;
  return pf < kProfitFactorCap ? pf : kProfitFactorCap;
}

/// The metric columns of a strategy that trades, in this order; the fourth column is the
/// strategy's own (the mean R multiple, the compound return, ...).
enum TradeMetric : int {
  kTradeMetricTrades = 0,
  kTradeMetricWins,
  kTradeMetricTotalReturn,
  kTradeMetricOwn,
  kTradeMetricSharpe,
  kTradeMetricProfitFactor,
  kTradeMetricMaxDrawdown,
  kNumTradeMetrics
};

/// Writes the columns of `s` (`own`: the fourth) and returns the violation of min_trades:
/// min_trades - trades when fewer, else 0.
TPEOPT_HD_INLINE double write_trade_metrics(const ReturnStats& s, double own, int min_trades, double* metrics) {
  metrics[kTradeMetricTrades] = s.trades;
  metrics[kTradeMetricWins] = s.wins;
  metrics[kTradeMetricTotalReturn] = s.total_return;
  metrics[kTradeMetricOwn] = own;
  metrics[kTradeMetricSharpe] = sharpe(s);
  metrics[kTradeMetricProfitFactor] = profit_factor(s);
  metrics[kTradeMetricMaxDrawdown] = s.max_drawdown;
  return s.trades < min_trades ? static_cast<double>(min_trades - s.trades) : 0.0;
}

/// A trial's score over blocks of bars (docs/strategies.md, "Data subsets"; strategies/bar_block.hpp): 0.0 plus
/// each block's objective value over the block's own trades, added in block order. The one
/// definition behind the CPU references and the CUDA kernels of the candle strategies; their
/// violation and metrics come from a summary over all the trades, kept beside it.
template <typename Summary>
struct BlockedScore {
  Summary block;  ///< the current block's trades
  double score = 0.0;
};

/// Closes the current block, whose objective value is `block_value`: it joins the score, and
/// the next block starts empty.
template <typename Summary>
TPEOPT_HD_INLINE void close_block(BlockedScore<Summary>& b, double block_value) {
  b.score = b.score + block_value;
  b.block = Summary{};
}

// ---- folds (strategies/folds.hpp) --------------------------------------------------------

/// A trial's statistics per time fold, kept beside its whole-span ones by the same walk: a trade
/// joins the fold of its entry bar (fold_of), or none. Each fold's Summary is the one the walk
/// keeps for all its trades, so a fold's objective value is, bit for bit, the strategy's
/// objective over that fold's trades alone; sumsq adds the sum of squared returns (the fold's
/// moments: count, sum, sum of squares). A view of K folds' storage: a FoldSummaries (the
/// walk's own array, on the CPU or in a CUDA thread) or K entries of a device scratch buffer.
template <typename Summary>
struct FoldView {
  Summary* fold;
  double* sumsq;
};

/// Storage for up to kMaxFolds folds.
template <typename Summary>
struct FoldSummaries {
  Summary fold[kMaxFolds];
  double sumsq[kMaxFolds];
  TPEOPT_HD_INLINE FoldView<Summary> view() { return {fold, sumsq}; }
};

template <typename Summary>
TPEOPT_HD_INLINE void reset_folds(FoldView<Summary> f, int K) {
  for (int k = 0; k < K; ++k) {
    f.fold[k] = Summary{};
    f.sumsq[k] = 0.0;
  }
}

/// Adds a trade entered at `entry_bar` with return `ret` to its fold (if any); `add(Summary&)`
/// adds it to a Summary the way the walk adds it to its whole-span one.
template <typename Summary, typename Add>
TPEOPT_HD_INLINE void add_fold_trade(FoldView<Summary> f, const FoldBars& bars, int entry_bar, double ret, Add&& add) {
  const int k = fold_of(bars, entry_bar);
  if (k < 0) return;
  add(f.fold[k]);
  f.sumsq[k] = f.sumsq[k] + ret * ret;
}

/// The fold a walk's trades are joining, held beside the walk (a CUDA warp's shared memory, a
/// thread's registers) instead of in the fold storage, which for a CUDA trial is global
/// scratch that add_fold_trade would read and write once per trade. A fold is read from the
/// storage when a trade joins it and written back when a trade joins another fold or the walk
/// ends (flush_fold); a walk's trades arrive in entry order, so that is once per fold. Each fold
/// gets the same adds in the same order as with add_fold_trade, so the same bits. Constant
/// initializers only, so that a kernel can keep one in __shared__ memory (which starts
/// uninitialized: start_folds).
template <typename Summary>
struct FoldCursor {
  int k = -1;          ///< the fold held; -1: none
  int lo = 0, hi = 0;  ///< the bars whose trades join fold k: [lo, hi) (its embargo left out)
  Summary s{};
  double sumsq = 0.0;
};

template <typename Summary>
TPEOPT_HD_INLINE void start_folds(FoldCursor<Summary>& c) {
  c.k = -1;
}

/// Writes the held fold back to the storage; none is held after.
template <typename Summary>
TPEOPT_HD_INLINE void flush_fold(FoldCursor<Summary>& c, FoldView<Summary> f) {
  if (c.k >= 0) {
    f.fold[c.k] = c.s;
    f.sumsq[c.k] = c.sumsq;
  }
  c.k = -1;
}

/// Holds the fold of a trade entered at `entry_bar` (fold_of) and returns it, or -1 (no fold:
/// the cursor keeps what it held).
template <typename Summary>
TPEOPT_HD_INLINE int seek_fold(FoldCursor<Summary>& c, FoldView<Summary> f, const FoldBars& bars, int entry_bar) {
  if (c.k >= 0 && entry_bar >= c.lo && entry_bar < c.hi) return c.k;  // most trades: no search
  const int k = fold_of(bars, entry_bar);
  if (k >= 0 && k != c.k) {
    flush_fold(c, f);
    c.k = k;
    c.lo = bars.embargo_end[k];
    c.hi = bars.edge[k + 1];
    c.s = f.fold[k];
    c.sumsq = f.sumsq[k];
  }
  return k;
}

/// add_fold_trade through a cursor: the trade added to the held fold.
template <typename Summary, typename Add>
TPEOPT_HD_INLINE void add_fold_trade(FoldCursor<Summary>& c, FoldView<Summary> f, const FoldBars& bars, int entry_bar,
                                     double ret, Add&& add) {
  if (seek_fold(c, f, bars, entry_bar) < 0) return;
  add(c.s);
  c.sumsq = c.sumsq + ret * ret;
}

/// The bar range of the fold a walk's trades last joined: a trade inside it joins that fold
/// with no fold_of search, and is added to the storage as add_fold_trade adds it (the same
/// bits). For a walk whose fold storage is its own (a CUDA thread's local memory, in L1), where
/// holding the fold's whole summary beside the walk (FoldCursor) costs more registers than the
/// storage's reads and writes it saves (docs/benchmarks.md, "The cost of scoring folds").
struct FoldRange {
  int k = -1;          ///< the fold; -1: none yet
  int lo = 0, hi = 0;  ///< the bars whose trades join fold k: [lo, hi) (its embargo left out)
};

template <typename Summary, typename Add>
TPEOPT_HD_INLINE void add_fold_trade(FoldRange& r, FoldView<Summary> f, const FoldBars& bars, int entry_bar, double ret,
                                     Add&& add) {
  if (r.k < 0 || entry_bar < r.lo || entry_bar >= r.hi) {
    const int k = fold_of(bars, entry_bar);
    if (k < 0) return;
    r = {k, bars.embargo_end[k], bars.edge[k + 1]};
  }
  add(f.fold[r.k]);
  f.sumsq[r.k] = f.sumsq[r.k] + ret * ret;
}

/// A trade that every lane of a CUDA warp sees (or the one thread of a CPU walk, as lane 0
/// and lane 1 in turn): lane 0 adds it to the whole span's summary, lane 1 to the fold it
/// joins, each in its own `acc`, so that the two adds are one instruction stream on two lanes
/// and the fold's add costs lane 0 no time. Lane 1's `acc` is the summary of the fold its
/// cursor holds (empty before a trade joins one); the cursor's own copy (c.s) is brought up to
/// date only when a trade leaves that fold, so most trades cost lane 1 a range check and the add. The same adds in the same
/// order as add_fold_trade's, so the same bits. Other lanes add nothing. Lane 1 ends with
/// flush_lane_fold.
template <typename Summary, typename Add>
TPEOPT_HD_INLINE void add_lane_trade(Summary& acc, FoldCursor<Summary>& c, FoldView<Summary> f, const FoldBars& bars,
                                     int lane, int entry_bar, double ret, Add&& add) {
  bool joins = lane == 0;
  if (lane == 1) {
    if (c.k >= 0 && entry_bar >= c.lo && entry_bar < c.hi) {
      joins = true;
    } else {
      c.s = acc;
      joins = seek_fold(c, f, bars, entry_bar) >= 0;
      acc = c.s;
    }
  }
  if (joins) add(acc);
  if (lane == 1 && joins) c.sumsq = c.sumsq + ret * ret;
}

/// Lane 1's held fold (add_lane_trade) written back to the storage.
template <typename Summary>
TPEOPT_HD_INLINE void flush_lane_fold(const Summary& acc, FoldCursor<Summary>& c, FoldView<Summary> f, int lane) {
  if (lane != 1) return;
  c.s = acc;
  flush_fold(c, f);
}

/// The fold columns alone (finish_folds' columns, the same values), for a walk over one of
/// several symbols: the trial's score comes from the symbols' rows
/// (symbols::aggregate_symbols_folded).
template <typename Summary, typename Value>
TPEOPT_HD_INLINE void write_fold_columns(FoldView<Summary> f, int K, Value&& value, double* out) {
  for (int k = 0; k < K; ++k) {
    const Summary& s = f.fold[k];
    out[k * kFoldColumns + kFoldScore] = value(s);
    out[k * kFoldColumns + kFoldN] = s.trades;
    out[k * kFoldColumns + kFoldSum] = s.total_return;
    out[k * kFoldColumns + kFoldSumSq] = f.sumsq[k];
  }
}

/// Writes the fold columns (strategies/folds.hpp's FoldColumn, K folds from `out`) with
/// `value(const Summary&)` the objective of a fold's trades, and returns the trial's score:
/// `whole` (the whole span's) for rule All, else the rule over the fold scores.
template <typename Summary, typename Value>
TPEOPT_HD_INLINE double finish_folds(FoldView<Summary> f, int K, const FoldRule& rule, double whole, Value&& value,
                                     double* out) {
  write_fold_columns(f, K, value, out);
  if (rule.rule == static_cast<int>(AcrossFolds::Rule::All)) return whole;
  double v[kMaxFolds];
  for (int k = 0; k < K; ++k) v[k] = out[k * kFoldColumns + kFoldScore];
  return across_folds_score(v, K, rule);
}

}  // namespace tpeopt::strategies
