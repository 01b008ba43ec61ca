#pragma once
// The `ema_cross` strategy (docs/strategies.md, "ema_cross"): long-only EMA crossover with optional stop-loss
// and take-profit, fees and slippage, whose fills are those of vectorbt's
// Portfolio.from_signals with the settings listed in docs/strategies.md ("ema_cross").
// Written ONCE as TPEOPT_HD code and used by the CPU reference (ema_cross_strategy.cpp)
// and the CUDA kernels (ema_cross_device.cu).
//
// Parity (docs/design.md, "Parity: CPU == CUDA"): only +, -, * and / on doubles (IEEE on both sides),
// contraction off on both compilers, the same operation order everywhere, and the same
// order as vectorbt's numba code where vectorbt computes the same number (the EMA, the
// stop levels, the fills), so that its prices agree with vectorbt's to the last bit.
// Every predicate below is a pure function of its arguments: a caller may test bars in
// any order or in parallel and finds the same first bar.
#include <cmath>
#include <type_traits>

#include "common/hd.hpp"
#include "strategies/bar_block.hpp"
#include "strategies/trade_stats.hpp"

namespace tpeopt::strategies::ema_cross {

/// Parameter slots, in the order of EmaCrossStrategy::param_names().
enum Slot : int { kEmaFast = 0, kEmaSlow, kSlPct, kTpPct, kFeeBp, kSlippageBp, kNumSlots };

/// One trial's parameters, unpacked from its slot vector.
struct Params {
  int ema_fast, ema_slow;
  int first_valid;  ///< max(ema_fast, ema_slow) - 1: the first bar where both EMAs are defined
  bool has_sl, has_tp;
  double sl;    ///< sl_pct / 100 (vectorbt's sl_stop)
  double tp;    ///< tp_pct / 100 (vectorbt's tp_stop)
  double fee;   ///< fee_bp / 1e4 (vectorbt's fees)
  double slip;  ///< slippage_bp / 1e4 (vectorbt's slippage)
};

/// Integer parameters arrive as doubles and are rounded (halves up); floor is exact on both sides.
TPEOPT_HD_INLINE int int_param(double v) { return static_cast<int>(floor(v + 0.5)); }

TPEOPT_HD_INLINE Params unpack_params(const double* v) {
  Params p;
  p.ema_fast = int_param(v[kEmaFast]);
  p.ema_slow = int_param(v[kEmaSlow]);
  p.first_valid = (p.ema_fast > p.ema_slow ? p.ema_fast : p.ema_slow) - 1;
  p.has_sl = v[kSlPct] > 0.0;
  p.has_tp = v[kTpPct] > 0.0;
  p.sl = v[kSlPct] / 100.0;
  p.tp = v[kTpPct] / 100.0;
  p.fee = v[kFeeBp] / 1e4;
  p.slip = v[kSlippageBp] / 1e4;
  return p;
}

// ---- the EMA (vectorbt's MA with ewm=True, adjust=False; pandas' ewm(span).mean()) ------

/// The weights of one span, as vectorbt's ewm_mean_1d_nb computes them:
/// com = (span - 1) / 2, alpha = 1 / (1 + com), keep = 1 - alpha (the old weight).
struct EmaWeights {
  double alpha, keep, denom;  ///< denom = keep + alpha (not always exactly 1)
};

TPEOPT_HD_INLINE EmaWeights ema_weights(int span) {
  const double com = static_cast<double>(span - 1) / 2.0;
  EmaWeights w;
  w.alpha = 1.0 / (1.0 + com);
  w.keep = 1.0 - w.alpha;
  w.denom = w.keep + w.alpha;
  return w;
}

/// One EMA step: the average moves only when the new close differs from it, to
/// ((keep * e) + (alpha * c)) / (keep + alpha).
TPEOPT_HD_INLINE double ema_step(double e, const EmaWeights& w, double c) {
  if (e != c) e = ((w.keep * e) + (w.alpha * c)) / w.denom;
  return e;
}

/// e_0 = close_0, e_i = ema_step(e_{i-1}, close_i), sequentially. Bars i < span - 1 are
/// warm-up (vectorbt: NaN); they are written but never read as signals.
TPEOPT_HD_INLINE void ema_series(const double* close, int n, int span, double* out) {
  if (n <= 0) return;
  const EmaWeights w = ema_weights(span);
  double e = close[0];
  out[0] = e;
  for (int i = 1; i < n; ++i) {
    e = ema_step(e, w, close[i]);
    out[i] = e;
  }
}

/// Two spans' EMA series in one pass (two independent chains side by side: the same
/// values as two ema_series calls, in about the time of one).
TPEOPT_HD_INLINE void ema_series2(const double* close, int n, int span_a, double* out_a, int span_b, double* out_b) {
  if (n <= 0) return;
  const EmaWeights wa = ema_weights(span_a), wb = ema_weights(span_b);
  double a = close[0], b = close[0];
  out_a[0] = a;
  out_b[0] = b;
  for (int i = 1; i < n; ++i) {
    const double c = close[i];
    a = ema_step(a, wa, c);
    b = ema_step(b, wb, c);
    out_a[i] = a;
    out_b[i] = b;
  }
}

// ---- data and signals ------------------------------------------------------------------

/// The trial-independent bars (host or device pointers).
struct Bars {
  int n = 0;      ///< end of the bars walked: the walk's last bar is n - 1 (the series hold at least n bars)
  int begin = 0;  ///< first bar walked (docs/strategies.md, "Data subsets": a block [begin, n) backtested on its own;
                  ///< the EMAs still read the whole series, so their warm-up comes from the bars before it)
  const double* open = nullptr;
  const double* high = nullptr;
  const double* low = nullptr;
  const double* close = nullptr;
};

/// The bars of block [begin, end) (strategies/bar_block.hpp): the walk starts flat at begin and
/// its last bar is end - 1, where an open position is marked at the close (kEnd).
using strategies::block_bars;

/// The two EMA series a trial reads (shared by all trials with the same spans).
struct TrialSeries {
  const double* fast = nullptr;
  const double* slow = nullptr;
};

// The predicates combine their comparisons with & and | (not && and ||): every operand
// is read, with no branch, so that a CPU finder can test several bars at once with SIMD
// (same truth values).

/// fast_k < slow_k. The first such bar at or after first_valid arms the entry signals
/// (vectorbt's crossed_above needs the fast EMA strictly below the slow one first).
TPEOPT_HD_INLINE bool is_below(const TrialSeries& t, int k) { return t.fast[k] < t.slow[k]; }

/// Cross above at bar k (read at k > first below bar): fast_k > slow_k and not
/// fast_{k-1} > slow_{k-1}. Equality counts as "not above": below, equal, above crosses.
TPEOPT_HD_INLINE bool is_cross_above(const TrialSeries& t, int k) {
  return (t.fast[k] > t.slow[k]) & !(t.fast[k - 1] > t.slow[k - 1]);
}

/// Cross below at bar k (read inside a position, k >= its entry bar): fast_k < slow_k and
/// not fast_{k-1} < slow_{k-1}.
TPEOPT_HD_INLINE bool is_cross_below(const TrialSeries& t, int k) {
  return (t.fast[k] < t.slow[k]) & !(t.fast[k - 1] < t.slow[k - 1]);
}

// ---- positions and trades ----------------------------------------------------------------

enum ExitReason : int { kNoExit = 0, kSignal = 1, kStopLoss = 2, kTakeProfit = 3, kEnd = 4 };

struct Position {
  int signal_bar, entry_bar;
  double entry;     ///< entry fill: open_{entry_bar} * (1 + slip)
  double sl_level;  ///< entry * (1 - sl)
  double tp_level;  ///< entry * (1 + tp)
};

/// The position of an entry signal at bar s (s <= n - 2): it fills at the next bar's open.
TPEOPT_HD_INLINE Position open_position(const Bars& b, const Params& p, int s) {
  Position pos;
  pos.signal_bar = s;
  pos.entry_bar = s + 1;
  pos.entry = b.open[s + 1] * (1.0 + p.slip);
  pos.sl_level = pos.entry * (1.0 - p.sl);
  pos.tp_level = pos.entry * (1.0 + p.tp);
  return pos;
}

/// The stop-loss triggers at bar j: the bar opens at or below its level (it fills at the
/// open), or its level lies in [low_j, high_j] (it fills at the level). vectorbt's rule.
TPEOPT_HD_INLINE bool stop_loss_hit(const Bars& b, const Params& p, const Position& pos, int j) {
  return p.has_sl & ((b.open[j] <= pos.sl_level) | ((b.low[j] <= pos.sl_level) & (pos.sl_level <= b.high[j])));
}

/// The take-profit triggers at bar j: the bar opens at or above its level (fill at the
/// open), or its level lies in [low_j, high_j] (fill at the level).
TPEOPT_HD_INLINE bool take_profit_hit(const Bars& b, const Params& p, const Position& pos, int j) {
  return p.has_tp & ((pos.tp_level <= b.open[j]) | ((b.low[j] <= pos.tp_level) & (pos.tp_level <= b.high[j])));
}

/// The position exits at bar j (entry_bar < j <= n - 1): a stop triggers or the fast EMA
/// crossed below the slow one at j - 1. exit_reason(j) != kNoExit exactly when this holds.
TPEOPT_HD_INLINE bool exits_at(const Bars& b, const Params& p, const TrialSeries& t, const Position& pos, int j) {
  // Bitwise on purpose (every test evaluated, no branch per test on the GPU), on int so that
  // Clang does not take it for a mistyped ||.
  return (static_cast<int>(stop_loss_hit(b, p, pos, j)) | static_cast<int>(take_profit_hit(b, p, pos, j)) |
          static_cast<int>(is_cross_below(t, j - 1))) != 0;
}

/// Why the position exits at bar j, or kNoExit: the stop-loss before the take-profit
/// (vectorbt checks them in this order), then the exit signal (stops have priority: one
/// order per bar).
TPEOPT_HD_INLINE int exit_reason(const Bars& b, const Params& p, const TrialSeries& t, const Position& pos, int j) {
  if (stop_loss_hit(b, p, pos, j)) return kStopLoss;
  if (take_profit_hit(b, p, pos, j)) return kTakeProfit;
  if (is_cross_below(t, j - 1)) return kSignal;
  return kNoExit;
}

struct Trade {
  int signal_bar = 0, entry_bar = 0, exit_bar = 0, reason = kNoExit;
  double entry_price = 0.0;  ///< fill, slippage included
  double exit_price = 0.0;   ///< fill, slippage included (kEnd: the last close, no slippage)
  double ret = 0.0;          ///< (exit * (1 - exit fee)) / (entry * (1 + fee)) - 1
};

/// The trade of a position that exits at bar j for `reason` (kEnd: j = n - 1, marked at
/// the last close without slippage or exit fee, as vectorbt values an open position).
TPEOPT_HD_INLINE Trade close_position(const Bars& b, const Params& p, const Position& pos, int j, int reason) {
  double price = b.open[j];  // kSignal; a stop whose level the bar opened beyond fills at the open
  if (reason == kStopLoss) {
    if (!(b.open[j] <= pos.sl_level)) price = pos.sl_level;
  } else if (reason == kTakeProfit) {
    if (!(pos.tp_level <= b.open[j])) price = pos.tp_level;
  } else if (reason == kEnd) {
    price = b.close[j];
  }
  Trade t;
  t.signal_bar = pos.signal_bar;
  t.entry_bar = pos.entry_bar;
  t.exit_bar = j;
  t.reason = reason;
  t.entry_price = pos.entry;
  const double exit_fee = reason == kEnd ? 0.0 : p.fee;
  t.exit_price = reason == kEnd ? price : price * (1.0 - p.slip);
  t.ret = (t.exit_price * (1.0 - exit_fee)) / (pos.entry * (1.0 + p.fee)) - 1.0;
  return t;
}

/// Finds the first k in [from, to] with pred(k), or to + 1; one bar after another. (The
/// exit search also passes the trial's parameters and position, which a finder may use to
/// skip bars where pred is false; this one ignores them.)
struct SequentialFinder {
  TPEOPT_HD_NO_CHECK
  template <typename Pred, typename... Hints>
  TPEOPT_HD_INLINE int operator()(int from, int to, Pred&& pred, const Hints&...) const {
    for (int k = from; k <= to; ++k)
      if (pred(k)) return k;
    return to + 1;
  }
};

/// Where the scan for entries starts (docs/strategies.md, "ema_cross"): one bar after the
/// first bar a >= max(first_valid, begin) with fast < slow, or n - 1 (no trades) when there is
/// none before n - 2. `find_below(from, to, pred)` must return the first k in [from, to] with
/// pred(k), or to + 1.
TPEOPT_HD_NO_CHECK
template <typename BelowFinder>
TPEOPT_HD_INLINE int scan_start(const Bars& b, const Params& p, const TrialSeries& t, BelowFinder&& find_below) {
  const int last_signal = b.n - 2;
  const int from = p.first_valid > b.begin ? p.first_valid : b.begin;
  if (from > last_signal - 1) return b.n - 1;
  return find_below(from, last_signal - 1, [&](int k) { return is_below(t, k); }) + 1;
}

/// The walk from scan position `from` (at least first_valid + 1, where is_cross_above reads
/// defined EMAs on both bars), flat, opening positions only at signals before `stop`
/// (stop <= n - 1): s = the first cross above in [from, stop - 1]; the position opens at
/// s + 1; its exit is the first j in (entry_bar, n - 1] where exits_at holds, and the scan
/// goes on at s = j (a cross above on the exit bar enters at j + 1; crosses inside the
/// position, or on the bar before a stop exit, are lost); without an exit the position is
/// marked at the last bar (kEnd) and the walk ends. on_exit(const Position&, int j, int
/// reason) is called for each trade in trade order (close_position makes the trade); it may
/// return false to end the walk after that trade. Returns where the scan stands when the walk
/// ends: the exit bar of its last trade when that is >= stop or on_exit ended it, else stop.
/// While flat the walk is a function of its scan position alone (strategies/segment_stitch.hpp
/// relies on it). The finders' contract is run_backtest's.
TPEOPT_HD_NO_CHECK
template <typename SignalFinder, typename ExitFinder, typename OnExit>
TPEOPT_HD_INLINE int walk_from(const Bars& b, const Params& p, const TrialSeries& t, int from, int stop,
                               SignalFinder&& find_signal, ExitFinder&& find_exit, OnExit&& on_exit) {
  const int last_signal = stop - 1;
  int s = from > p.first_valid ? from : p.first_valid + 1;
  while (s <= last_signal) {
    s = find_signal(s, last_signal, [&](int k) { return is_cross_above(t, k); });
    if (s > last_signal) break;
    const Position pos = open_position(b, p, s);
    const int j = find_exit(
        pos.entry_bar + 1, b.n - 1, [&](int k) { return exits_at(b, p, t, pos, k); }, p, pos);
    if (j > b.n - 1) {
      on_exit(pos, b.n - 1, static_cast<int>(kEnd));
      return b.n - 1;
    }
    const int reason = exit_reason(b, p, t, pos, j);
    if constexpr (std::is_same_v<decltype(on_exit(pos, j, reason)), bool>) {
      if (!on_exit(pos, j, reason)) return j;
    } else {
      on_exit(pos, j, reason);
    }
    s = j;
  }
  return s;
}

/// The backtest of one trial over bars [begin, n), one position at a time (docs/strategies.md,
/// "ema_cross"): walk_from(scan_start, n - 1), each trade made by close_position.
/// `find(from, to, pred)` must return the first k in [from, to] with pred(k), or to + 1
/// (the exit finder is called as find_exit(from, to, pred, params, position));
/// on_trade(const Trade&) is called in trade order.
TPEOPT_HD_NO_CHECK
template <typename BelowFinder, typename SignalFinder, typename ExitFinder, typename OnTrade>
TPEOPT_HD_INLINE void run_backtest(const Bars& b, const Params& p, const TrialSeries& t, BelowFinder&& find_below,
                                   SignalFinder&& find_signal, ExitFinder&& find_exit, OnTrade&& on_trade) {
  walk_from(b, p, t, scan_start(b, p, t, find_below), b.n - 1, find_signal, find_exit,
            [&](const Position& pos, int j, int reason) { on_trade(close_position(b, p, pos, j, reason)); });
}

TPEOPT_HD_NO_CHECK
template <typename Finder, typename OnTrade>
TPEOPT_HD_INLINE void run_backtest(const Bars& b, const Params& p, const TrialSeries& t, Finder&& find,
                                   OnTrade&& on_trade) {
  run_backtest(b, p, t, find, find, find, on_trade);
}

// ---- scores ------------------------------------------------------------------------------

enum class Objective : int { TotalReturn = 0, CompoundReturn = 1, Sharpe = 2, ProfitFactor = 3 };

/// A trial's trades summarized: strategies/trade_stats.hpp's statistics of their returns.
using Summary = ReturnStats;

TPEOPT_HD_INLINE void add_trade(Summary& s, const Trade& t) { add_return(s, t.ret); }

using strategies::kProfitFactorCap;
using strategies::profit_factor;
using strategies::sharpe;

/// equity - 1: the total return of the compounded, fully invested account (vectorbt's
/// Portfolio.total_return with these fills).
TPEOPT_HD_INLINE double compound_return(const Summary& s) { return s.equity - 1.0; }

TPEOPT_HD_INLINE double objective_value(const Summary& s, Objective o) {
  switch (o) {
    case Objective::CompoundReturn:
      return compound_return(s);
    case Objective::Sharpe:
      return sharpe(s);
    case Objective::ProfitFactor:
      return profit_factor(s);
    case Objective::TotalReturn:
      break;
  }
  return s.total_return;
}

/// Metric columns, in the order of EmaCrossStrategy::metric_names(): trade_stats.hpp's, the
/// fourth being compound_return.
enum Metric : int {
  kMTrades = kTradeMetricTrades,
  kMWins = kTradeMetricWins,
  kMTotalReturn = kTradeMetricTotalReturn,
  kMCompoundReturn = kTradeMetricOwn,
  kMSharpe = kTradeMetricSharpe,
  kMProfitFactor = kTradeMetricProfitFactor,
  kMMaxDrawdown = kTradeMetricMaxDrawdown,
  kNumMetrics = kNumTradeMetrics
};

/// Writes the metrics and returns the score; *violation = min_trades - trades when fewer.
TPEOPT_HD_INLINE double finish(const Summary& s, Objective o, int min_trades, double* metrics, double* violation) {
  *violation = write_trade_metrics(s, compound_return(s), min_trades, metrics);
  return objective_value(s, o);
}

/// A blocked trial's score (docs/strategies.md, "Data subsets"): strategies/trade_stats.hpp's BlockedScore.
using BlockedScore = strategies::BlockedScore<Summary>;

/// Closes the current block: its objective value joins the score, and the next block starts empty.
TPEOPT_HD_INLINE void end_block(BlockedScore& b, Objective o) { close_block(b, objective_value(b.block, o)); }

}  // namespace tpeopt::strategies::ema_cross
