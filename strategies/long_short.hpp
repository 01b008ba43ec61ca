#pragma once
// The long/short walk shared by signal strategies (docs/writing-a-strategy.md): a strategy says at each bar whether it would enter or leave a long or a short
// position, and this walk turns those signals into trades, one position at a time, with an
// optional ATR stop, fees and slippage, exactly as vectorbt's Portfolio.from_signals fills
// them under the mapping of docs/strategies.md ("Long/short signal strategies"). Written
// ONCE as TPEOPT_HD code: the CPU references and the CUDA twins run it.
//
// Parity (docs/design.md, "Parity: CPU == CUDA"): only +, -, * and / on doubles, contraction off, the same
// operation order as vectorbt's numba code where it computes the same number (fills, stop
// levels), so that the prices agree with vectorbt's to the last bit.
#include <type_traits>

#include "common/hd.hpp"
#include "strategies/bar_block.hpp"
#include "strategies/trade_stats.hpp"

namespace tpeopt::strategies::long_short {

/// What a strategy's indicators say at the close of bar t (they act at the open of t + 1).
struct Signals {
  bool long_entry = false, long_exit = false, short_entry = false, short_exit = false;
};

/// vectorbt's defaults for conflicting signals: an entry and an exit of the same side cancel
/// each other (upon_long_conflict / upon_short_conflict "ignore"), and so do a long and a
/// short entry (upon_dir_conflict "ignore"). +1: enter long, -1: enter short, 0: stay flat.
TPEOPT_HD_INLINE int entry_side(const Signals& s) {
  const bool go_long = s.long_entry && !s.long_exit;
  const bool go_short = s.short_entry && !s.short_exit;
  if (go_long == go_short) return 0;
  return go_long ? 1 : -1;
}

/// Whether a position of `side` leaves on these signals: its exit without an entry of the same
/// side (the two cancel); entries of the other side are ignored (upon_opposite_entry "ignore").
TPEOPT_HD_INLINE bool exit_signal(const Signals& s, int side) {
  return side > 0 ? (s.long_exit && !s.long_entry) : (s.short_exit && !s.short_entry);
}

/// A trial's costs and stop.
struct Costs {
  double fee = 0.0;        ///< fee_bp / 1e4 of each fill's value (vectorbt's fees)
  double slip = 0.0;       ///< slippage_bp / 1e4 of each fill's price (vectorbt's slippage)
  double stop_mult = 0.0;  ///< the stop's distance in ATRs at the signal bar; 0: no stop
};

/// The trial-independent bars a walk reads (host or device pointers).
struct Bars {
  int n = 0;      ///< end of the bars walked: the walk's last bar is n - 1
  int begin = 0;  ///< first bar walked (strategies/bar_block.hpp); indicators read the whole series
  const double* open = nullptr;
  const double* high = nullptr;
  const double* low = nullptr;
  const double* close = nullptr;
};

/// The bars of block [begin, end) (strategies/bar_block.hpp).
using strategies::block_bars;

enum ExitReason : int { kNoExit = 0, kSignal = 1, kStop = 2, kEnd = 3 };

struct Position {
  int signal_bar, entry_bar, side;
  double entry;  ///< the entry fill: open * (1 + slip) long, open * (1 - slip) short
  bool has_stop;
  double stop;  ///< the stop level: entry * (1 - sl) long, entry * (1 + sl) short, sl = stop_mult * ATR / entry
};

/// The position of an entry signal of `side` at bar s (s <= n - 2), filled at the next open.
/// The stop fraction is vectorbt's sl_stop for this entry: (stop_mult * atr_s) / entry.
TPEOPT_HD_INLINE Position open_position(const Bars& b, const Costs& c, double atr_s, int s, int side) {
  Position p;
  p.signal_bar = s;
  p.entry_bar = s + 1;
  p.side = side;
  p.entry = side > 0 ? b.open[s + 1] * (1.0 + c.slip) : b.open[s + 1] * (1.0 - c.slip);
  p.has_stop = c.stop_mult > 0.0;
  const double sl = (c.stop_mult * atr_s) / p.entry;
  p.stop = side > 0 ? p.entry * (1.0 - sl) : p.entry * (1.0 + sl);
  return p;
}

/// open_position at entry signal bar s of a walk whose ATR series is `atr`: atr[s] is read
/// only when the strategy has a stop (stop_mult > 0), so a walk without one never touches it.
TPEOPT_HD_INLINE Position open_at(const Bars& b, const Costs& c, const double* atr, int s, int side) {
  return open_position(b, c, c.stop_mult > 0.0 ? atr[s] : 0.0, s, side);
}

/// The stop's price at bar j, or a NaN-free "none" (false): the bar opens beyond the level
/// (it fills at the open), or the level lies in [low_j, high_j] (it fills at the level).
/// vectorbt's get_stop_price_nb.
TPEOPT_HD_INLINE bool stop_hit(const Bars& b, const Position& p, int j, double* price) {
  if (!p.has_stop) return false;
  if (p.side > 0 ? b.open[j] <= p.stop : p.stop <= b.open[j]) {
    *price = b.open[j];
    return true;
  }
  if (b.low[j] <= p.stop && p.stop <= b.high[j]) {
    *price = p.stop;
    return true;
  }
  return false;
}

struct Trade {
  int signal_bar = 0, entry_bar = 0, exit_bar = 0, side = 0, reason = kNoExit;
  double entry_price = 0.0;  ///< the entry fill, slippage included
  double exit_price = 0.0;   ///< the exit fill, slippage included (kEnd: the last close, no slippage)
  double ret = 0.0;          ///< the trade's return on the account (docs/strategies.md)
};

/// The trade of a position that leaves at bar j at `price` (before slippage) for `reason`.
/// Long: (exit * (1 - fx)) / (entry * (1 + f)) - 1; short: (entry * (1 - f) - exit * (1 + fx)) /
/// (entry * (1 + f)); fx = f, or 0 for kEnd (marked at the last close without slippage or
/// fee, as vectorbt values an open position).
TPEOPT_HD_INLINE Trade close_position(const Costs& c, const Position& p, int j, double price, int reason) {
  Trade t;
  t.signal_bar = p.signal_bar;
  t.entry_bar = p.entry_bar;
  t.exit_bar = j;
  t.side = p.side;
  t.reason = reason;
  t.entry_price = p.entry;
  const bool end = reason == kEnd;
  const double fx = end ? 0.0 : c.fee;
  if (p.side > 0) {
    t.exit_price = end ? price : price * (1.0 - c.slip);
    t.ret = (t.exit_price * (1.0 - fx)) / (p.entry * (1.0 + c.fee)) - 1.0;
  } else {
    t.exit_price = end ? price : price * (1.0 + c.slip);
    t.ret = (p.entry * (1.0 - c.fee) - t.exit_price * (1.0 + fx)) / (p.entry * (1.0 + c.fee));
  }
  return t;
}

/// The exit of position `pos` at bar j (j > pos.entry_bar), as the walk decides it there:
/// kStop when its stop hits (checked first: one order per bar, "stop signal has priority";
/// *price the stop's fill), else kSignal when exit_signal(signals(j - 1)) holds (*price =
/// open_j), else kNoExit (*price untouched).
TPEOPT_HD_NO_CHECK
template <typename SignalsAt>
TPEOPT_HD_INLINE int exit_at(const Bars& b, const Position& pos, SignalsAt&& signals, int j, double* price) {
  if (stop_hit(b, pos, j, price)) return kStop;
  if (exit_signal(signals(j - 1), pos.side)) {
    *price = b.open[j];
    return kSignal;
  }
  return kNoExit;
}

/// on_exit(pos, j, price, reason) for a walk's trade; false when on_exit returns false (the
/// walk ends after it), true when it returns nothing or true.
TPEOPT_HD_NO_CHECK
template <typename OnExit>
TPEOPT_HD_INLINE bool report_exit(OnExit&& on_exit, const Position& pos, int j, double price, int reason) {
  if constexpr (std::is_same_v<decltype(on_exit(pos, j, price, reason)), bool>) {
    return on_exit(pos, j, price, reason);
  } else {
    on_exit(pos, j, price, reason);
    return true;
  }
}

/// The walk from scan position `from`, flat, opening positions only at entry signals before
/// `stop` (stop <= n - 1):
///  1. scan s = max(from, first_valid) .. stop - 1 for an entry (entry_side of signals(s));
///     the position opens at s + 1's open;
///  2. its exit is the first bar j in (entry_bar, n - 1] where its stop hits (checked first:
///     one order per bar, "stop signal has priority") or where exit_signal(signals(j - 1))
///     holds (it fills at j's open); without one it is marked at the last bar (kEnd, j =
///     n - 1), so the scan, going on at n - 1, ends;
///  3. the scan goes on at s = j: a signal at the exit bar enters at j + 1 (the signals of
///     bars inside the position, j - 1's included, are not entries).
/// `signals(t)` returns Signals for bar t; atr[t] is read at entry signals when there is a
/// stop. on_exit(const Position&, int j, double price, int reason) is called for each trade
/// in trade order (close_position makes the trade); it may return false to end the walk
/// after that trade. Returns where the scan stands when the walk ends: the exit bar of its
/// last trade when that is >= stop or on_exit ended it, else stop (or `from` past stop).
/// The walk is a function of max(scan position, first_valid) alone: two walks standing flat
/// at the same position make the same trades from there on (long_short_segments.hpp relies
/// on it).
TPEOPT_HD_NO_CHECK
template <typename SignalsAt, typename OnExit>
TPEOPT_HD_INLINE int walk_from(const Bars& b, const Costs& c, int first_valid, const double* atr, SignalsAt&& signals,
                               int from, int stop, OnExit&& on_exit) {
  const int last_signal = stop - 1;
  int s = first_valid > from ? first_valid : from;
  while (s <= last_signal) {
    int side = 0;
    for (; s <= last_signal; ++s) {
      side = entry_side(signals(s));
      if (side != 0) break;
    }
    if (side == 0) break;
    const Position pos = open_at(b, c, atr, s, side);
    int j = pos.entry_bar + 1;
    double price = 0.0;
    int reason = kNoExit;
    for (; j <= b.n - 1; ++j) {
      reason = exit_at(b, pos, signals, j, &price);
      if (reason != kNoExit) break;
    }
    if (reason == kNoExit) {
      j = b.n - 1;
      price = b.close[b.n - 1];
      reason = kEnd;
    }
    if (!report_exit(on_exit, pos, j, price, reason)) return j;
    s = j;
  }
  return s;
}

/// The backtest of one trial over bars [begin, n), one position at a time: walk_from(begin,
/// n - 1), each trade made by close_position. on_trade(const Trade&) is called in trade order.
TPEOPT_HD_NO_CHECK
template <typename SignalsAt, typename OnTrade>
TPEOPT_HD_INLINE void run_backtest(const Bars& b, const Costs& c, int first_valid, const double* atr,
                                   SignalsAt&& signals, OnTrade&& on_trade) {
  walk_from(b, c, first_valid, atr, signals, b.begin, b.n - 1,
            [&](const Position& pos, int j, double price, int reason) {
              on_trade(close_position(c, pos, j, price, reason));
            });
}

// ---- scores --------------------------------------------------------------------------------

enum class Objective : int { TotalReturn = 0, CompoundReturn = 1, Sharpe = 2, ProfitFactor = 3 };

/// A trial's trades summarized: strategies/trade_stats.hpp's statistics of their returns.
using Summary = ReturnStats;

TPEOPT_HD_INLINE void add_trade(Summary& s, const Trade& t) { add_return(s, t.ret); }

/// equity - 1: the return of the compounded, fully invested account (vectorbt's
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

/// Writes the metrics (trade_stats.hpp's columns, the fourth being compound_return) and
/// returns the objective value; *violation = min_trades - trades when fewer.
TPEOPT_HD_INLINE double finish(const Summary& s, Objective o, int min_trades, double* metrics, double* violation) {
  *violation = write_trade_metrics(s, compound_return(s), min_trades, metrics);
  return objective_value(s, o);
}

}  // namespace tpeopt::strategies::long_short
