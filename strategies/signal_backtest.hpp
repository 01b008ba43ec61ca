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
//   static double series_at(int kind, int value, const long_short::Bars& bars, int t);
//     // or, for a series that is one chain over the bars (an EMA):
//   static void compute_series(int kind, int value, const long_short::Bars& bars, double* out);
//   static long_short::Signals signals(const Params& p, const long_short::Bars& bars,
//                                      const double* const* series, int t);
// A series depends on one (kind, value) and the symbol's bars only, so it is computed once
// per symbol and shared by every trial that reads it (SeriesCache on the CPU, the device's
// series cache on the GPU); NaN where undefined (warm-up). A Logic whose every bar's value is
// a function of the bars alone gives series_at: the CUDA twin then computes each bar of a new
// series on its own thread, where compute_series is one thread's chain over all the bars
// (seconds on a 1,000,000-bar series with wide windows). Both run the same TPEOPT_HD code on
// the CPU and the GPU, so the series are the same bits either way.
#include <cmath>
#include <concepts>

#include "common/hd.hpp"
#include "strategies/bar_block.hpp"
#include "strategies/folds.hpp"
#include "strategies/long_short.hpp"
#include "strategies/symbol_aggregate.hpp"
#include "strategies/trade_stats.hpp"

namespace tpeopt::strategies {

/// A per-parameter series: its kind (the strategy's numbering) and parameter value.
struct SeriesKey {
  int kind = 0, value = 0;
};

/// Integer parameters arrive as doubles and are rounded: k = floor(v + 0.5).
TPEOPT_HD_INLINE int round_param(double v) { return static_cast<int>(floor(v + 0.5)); }

/// A Logic that gives each bar of a series on its own (series_at).
template <typename Logic>
concept SeriesPerBar = requires(const long_short::Bars& b) {
  { Logic::series_at(0, 0, b, 0) } -> std::same_as<double>;
};

/// Series (kind, value) over bars b into out[0 .. b.n): Logic::series_at bar by bar, or
/// Logic::compute_series.
template <typename Logic>
TPEOPT_HD_INLINE void compute_logic_series(int kind, int value, const long_short::Bars& b, double* out) {
  if constexpr (SeriesPerBar<Logic>) {
    for (int t = 0; t < b.n; ++t) out[t] = Logic::series_at(kind, value, b, t);
  } else {
    Logic::compute_series(kind, value, b, out);
  }
}

/// Logic::signals of one trial over one symbol's bars, as the walk reads them: signals(t).
template <typename Logic>
struct LogicSignals {
  const typename Logic::Params& p;
  const long_short::Bars& bars;
  const double* const* series;
  TPEOPT_HD_INLINE long_short::Signals operator()(int t) const { return Logic::signals(p, bars, series, t); }
};

/// The plain walk of one block (long_short::run_backtest), as run_signal_symbol walks it.
/// A block walker is called as walk(block index, the block's bars, on_trade) and gives
/// on_trade(const Trade&) the block's trades in trade order (the CUDA twin's segmented walk
/// is another: strategies/device/signal_device.cuh).
template <typename Logic>
struct PlainWalk {
  const typename Logic::Params& p;
  const long_short::Bars& bars;
  const double* const* series;
  TPEOPT_HD_NO_CHECK
  template <typename OnTrade>
  TPEOPT_HD_INLINE void operator()(int, const long_short::Bars& block, OnTrade&& on_trade) const {
    long_short::run_backtest(block, p.costs, p.first_valid, series[Logic::kAtrSeries],
                             LogicSignals<Logic>{p, bars, series}, on_trade);
  }
};

/// The score of a walk over one block whose trades `all` summarizes: run_signal_walks' sum
/// of block objectives with one term.
TPEOPT_HD_INLINE double one_block_score(const long_short::Summary& all, long_short::Objective o) {
  BlockedScore<long_short::Summary> blocked;
  close_block(blocked, long_short::objective_value(all, o));
  return blocked.score;
}

/// The trial's trades over `blocks` of the symbol's bars (every block starting flat, an open
/// position marked at the block's last bar), in block order, each block walked by
/// walk_block (PlainWalk's contract); *all summarizes them all. Returns the score: 0.0 plus
/// each block's objective value in block order (one block over the whole series: the
/// objective value of its trades). on_trade(const Trade&) sees every trade.
TPEOPT_HD_NO_CHECK
template <typename Logic, typename WalkBlock, typename OnTrade>
TPEOPT_HD_INLINE double run_signal_walks(const long_short::Bars& bars, const BarBlock* blocks, int n_blocks,
                                         long_short::Objective o, long_short::Summary* all, WalkBlock&& walk_block,
                                         OnTrade&& on_trade) {
  BlockedScore<long_short::Summary> blocked;
  *all = long_short::Summary{};
  // One block: its summary would be *all's, the same adds in the same order, so it is not
  // kept twice (one add a trade instead of two).
  const bool one_block = n_blocks == 1;
  for (int k = 0; k < n_blocks; ++k) {
    walk_block(k, long_short::block_bars(bars, blocks[k].begin, blocks[k].end), [&](const long_short::Trade& t) {
      long_short::add_trade(*all, t);
      if (!one_block) long_short::add_trade(blocked.block, t);
      on_trade(t);
    });
    if (!one_block) close_block(blocked, long_short::objective_value(blocked.block, o));
  }
  return one_block ? one_block_score(*all, o) : blocked.score;
}

/// run_signal_walks with the plain walk of every block.
TPEOPT_HD_NO_CHECK
template <typename Logic, typename OnTrade>
TPEOPT_HD_INLINE double run_signal_symbol(const typename Logic::Params& p, const long_short::Bars& bars,
                                          const double* const* series, const BarBlock* blocks, int n_blocks,
                                          long_short::Objective o, long_short::Summary* all, OnTrade&& on_trade) {
  return run_signal_walks<Logic>(bars, blocks, n_blocks, o, all, PlainWalk<Logic>{p, bars, series}, on_trade);
}

/// The end of run_signal_folded_walks (below), from the walk's whole-span summary `all`, its score
/// `objective` and the folds' summaries (also the end of the CUDA twin's warp walk that keeps
/// the folds on another lane: strategies/device/signal_device.cuh).
TPEOPT_HD_INLINE double finish_signal_folded(const long_short::Summary& all, double objective, long_short::Objective o,
                                             const symbols::AggregateSpec& spec, FoldView<long_short::Summary> folds,
                                             const FoldBars& fold_bars, const FoldRule& rule, double* violation,
                                             double* metrics) {
  double row[kNumTradeMetrics];
  double unused = 0.0;
  long_short::finish(all, o, 0, row, &unused);
  const double equity = all.equity;
  const symbols::SymbolRows r{&objective, &equity, row, 1, 1, kNumTradeMetrics};
  const double whole = symbols::aggregate_symbols(r, 1, spec, metrics, violation);
  const bool portfolio = spec.aggregate == symbols::Aggregate::Portfolio;
  return finish_folds(
      folds, fold_bars.n, rule, whole,
      [&](const long_short::Summary& s) {
        return portfolio ? long_short::compound_return(s) : long_short::objective_value(s, o);
      },
      metrics + kNumTradeMetrics);
}

/// A folded trial over one symbol (Strategy::with_folds; strategies/folds.hpp): the walk of
/// run_signal_walks, each trade also added to the fold of its entry bar (the fold found once
/// per fold: strategies/trade_stats.hpp's FoldRange). Writes the base
/// metrics as the aggregation over the one symbol writes them (so rule All keeps the bits of
/// the strategy without folds), then the fold columns, and returns the score: the whole span's
/// for rule All, else the rule over the fold scores. A fold's score is the objective over its
/// trades (the compound return for the portfolio aggregate, as over a symbol).
TPEOPT_HD_NO_CHECK
template <typename Logic, typename WalkBlock>
TPEOPT_HD_INLINE double run_signal_folded_walks(const long_short::Bars& bars, const BarBlock* blocks, int n_blocks,
                                                long_short::Objective o, const symbols::AggregateSpec& spec,
                                                const FoldBars& fold_bars, const FoldRule& rule, double* violation,
                                                double* metrics, WalkBlock&& walk_block) {
  FoldSummaries<long_short::Summary> storage;
  const FoldView<long_short::Summary> folds = storage.view();
  reset_folds(folds, fold_bars.n);
  FoldRange joined;
  long_short::Summary all;
  const double objective =
      run_signal_walks<Logic>(bars, blocks, n_blocks, o, &all, walk_block, [&](const long_short::Trade& t) {
        add_fold_trade(joined, folds, fold_bars, t.entry_bar, t.ret,
                       [&](long_short::Summary& s) { long_short::add_trade(s, t); });
      });
  return finish_signal_folded(all, objective, o, spec, folds, fold_bars, rule, violation, metrics);
}

/// One symbol of a folded trial over several symbols (SymbolStrategy's folds;
/// docs/strategies.md, "Folds"): the walk of run_signal_walks, each trade also added to the
/// fold of its entry bar in the symbol's own bars. Writes the symbol's row: its base metrics
/// (long_short::finish), then the fold columns (fold{k}_score: the objective over the fold's
/// trades, the compound return for the portfolio aggregate; n, sum, sumsq), *equity (its final
/// compounded equity), and returns its objective (the blocks' score), as the row of the
/// strategy without folds. symbols::aggregate_symbols_folded makes the trial's from the rows.
TPEOPT_HD_NO_CHECK
template <typename Logic, typename WalkBlock, typename OnTrade>
TPEOPT_HD_INLINE double run_signal_symbol_folds(const long_short::Bars& bars, const BarBlock* blocks, int n_blocks,
                                                long_short::Objective o, bool portfolio, const FoldBars& fold_bars,
                                                double* row, double* equity, WalkBlock&& walk_block,
                                                OnTrade&& on_trade) {
  FoldSummaries<long_short::Summary> storage;
  const FoldView<long_short::Summary> folds = storage.view();
  reset_folds(folds, fold_bars.n);
  FoldRange joined;
  long_short::Summary all;
  const double objective =
      run_signal_walks<Logic>(bars, blocks, n_blocks, o, &all, walk_block, [&](const long_short::Trade& t) {
        add_fold_trade(joined, folds, fold_bars, t.entry_bar, t.ret,
                       [&](long_short::Summary& s) { long_short::add_trade(s, t); });
        on_trade(t);
      });
  double unused = 0.0;
  long_short::finish(all, o, 0, row, &unused);
  *equity = all.equity;
  write_fold_columns(
      folds, fold_bars.n,
      [&](const long_short::Summary& s) {
        return portfolio ? long_short::compound_return(s) : long_short::objective_value(s, o);
      },
      row + kNumTradeMetrics);
  return objective;
}

/// run_signal_folded_walks with the plain walk of every block.
TPEOPT_HD_NO_CHECK
template <typename Logic>
TPEOPT_HD_INLINE double run_signal_folded(const typename Logic::Params& p, const long_short::Bars& bars,
                                          const double* const* series, const BarBlock* blocks, int n_blocks,
                                          long_short::Objective o, const symbols::AggregateSpec& spec,
                                          const FoldBars& fold_bars, const FoldRule& rule, double* violation,
                                          double* metrics) {
  return run_signal_folded_walks<Logic>(bars, blocks, n_blocks, o, spec, fold_bars, rule, violation, metrics,
                                        PlainWalk<Logic>{p, bars, series});
}

}  // namespace tpeopt::strategies
