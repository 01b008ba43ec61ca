#pragma once
// The `exhaustion` (seller-exhaustion) strategy: per-bar indicators, the signal test and the trade
// walk, written ONCE as TPEOPT_HD code and used by the CPU reference
// (exhaustion_strategy.cpp) and the CUDA kernels (exhaustion_device.cu).
// docs/strategies.md, section "exhaustion", states the same rules in prose.
//
// Parity (docs/design.md, "Parity: CPU == CUDA"): only +, -, *, / and sqrt (IEEE on both sides) on doubles,
// contraction off on both compilers, the same operation order everywhere; comparisons and
// integer logic otherwise. Every function below is a pure function of its arguments, so
// a caller may evaluate a predicate at bars in any order or in parallel (the GPU tests 32
// bars at once) and still finds the same first bar: same trades, same bits.
#include <cmath>
#include <type_traits>

#include "common/hd.hpp"
#include "strategies/bar_block.hpp"
#include "strategies/candle_indicators.hpp"
#include "strategies/segment_stitch.hpp"
#include "strategies/trade_stats.hpp"

namespace tpeopt::strategies::exhaustion {

/// Parameter slots, in the order of ExhaustionStrategy::param_names().
enum Slot : int {
  kEmaFast = 0,
  kEmaSlow,
  kZWindow,
  kAtrWindow,
  kVolZ,
  kTrZ,
  kClocMin,
  kAtrStopMult,
  kRewardR,
  kMaxHold,
  kFeeBp,
  kSlippageBp,
  kNumSlots
};

/// One trial's parameters, unpacked from its slot vector.
struct Params {
  int ema_fast, ema_slow, z_window, atr_window, max_hold;
  double vol_z, tr_z, cloc_min, atr_stop_mult, reward_r;
  double fee;       ///< fee_bp / 1e4
  double slip;      ///< slippage_bp / 1e4
  int first_valid;  ///< max(atr_window, z_window) - 1: the first bar that may be valid
};

/// Integer parameters arrive as doubles; they are rounded to the nearest integer
/// (halves up). floor is exact on both sides.
TPEOPT_HD_INLINE int int_param(double v) { return static_cast<int>(floor(v + 0.5)); }

TPEOPT_HD_INLINE Params unpack_params(const double* v) {
  Params p;
  p.ema_fast = int_param(v[kEmaFast]);
  p.ema_slow = int_param(v[kEmaSlow]);
  p.z_window = int_param(v[kZWindow]);
  p.atr_window = int_param(v[kAtrWindow]);
  p.max_hold = int_param(v[kMaxHold]);
  p.vol_z = v[kVolZ];
  p.tr_z = v[kTrZ];
  p.cloc_min = v[kClocMin];
  p.atr_stop_mult = v[kAtrStopMult];
  p.reward_r = v[kRewardR];
  p.fee = v[kFeeBp] / 1e4;
  p.slip = v[kSlippageBp] / 1e4;
  p.first_valid = (p.atr_window > p.z_window ? p.atr_window : p.z_window) - 1;
  return p;
}

// ---- per-bar series (trial-independent ones are computed once per data set) ----------

/// EMA smoothing factor alpha = 2 / (span + 1).
TPEOPT_HD_INLINE double ema_alpha(int span) { return 2.0 / (static_cast<double>(span) + 1.0); }

/// One EMA step: e_{i-1} + alpha * (close_i - e_{i-1}).
TPEOPT_HD_INLINE double ema_step(double e, double alpha, double c) { return e + alpha * (c - e); }

/// e_0 = close_0, e_i = ema_step(e_{i-1}, alpha, close_i), sequentially in i. (The GPU runs
/// the same ema_step chain, 32 spans per warp, staging its output through shared memory.)
TPEOPT_HD_INLINE void ema_series(const double* close, int n, int span, double* out) {
  if (n <= 0) return;
  const double alpha = ema_alpha(span);
  double e = close[0];
  out[0] = e;
  for (int i = 1; i < n; ++i) {
    e = ema_step(e, alpha, close[i]);
    out[i] = e;
  }
}

/// TR_0 = high_0 - low_0; TR_i = max(high_i - low_i, |high_i - close_{i-1}|, |low_i - close_{i-1}|)
/// (strategies/candle_indicators.hpp).
using strategies::true_range;

/// (close - low) / (high - low), or 0.5 when high == low.
TPEOPT_HD_INLINE double close_location(double high, double low, double close) {
  if (high == low) return 0.5;
  return (close - low) / (high - low);
}

/// S_0 = 0, S_{k+1} = S_k + x_k; Q likewise of x_k * x_k; s and q have n + 1 entries.
TPEOPT_HD_INLINE void prefix_sums(const double* x, int n, double* s, double* q) {
  s[0] = 0.0;
  q[0] = 0.0;
  for (int k = 0; k < n; ++k) {
    s[k + 1] = s[k] + x[k];
    q[k + 1] = q[k] + x[k] * x[k];
  }
}

/// Mean of x over the w bars ending at i (needs i + 1 >= w): (S_{i+1} - S_{i+1-w}) / w.
TPEOPT_HD_INLINE double rolling_mean(const double* s, int i, int w) {
  return (s[i + 1] - s[i + 1 - w]) / static_cast<double>(w);
}

/// The z-score (x_i - mean) / sd over the w bars ending at i, or NaN when undefined:
/// i + 1 < w (warm-up), or var = (Q_{i+1} - Q_{i+1-w}) / w - mean^2 <= 0 (sd undefined).
TPEOPT_HD_INLINE double rolling_z(const double* s, const double* q, const double* x, int i, int w) {
  if (i + 1 < w) return NAN;
  const double mean = rolling_mean(s, i, w);
  const double var = (q[i + 1] - q[i + 1 - w]) / static_cast<double>(w) - mean * mean;
  if (!(var > 0.0)) return NAN;
  return (x[i] - mean) / sqrt(var);
}

/// The z-score series of one window: z[i] = rolling_z(..., i, w) for every bar.
TPEOPT_HD_INLINE void z_series(const double* s, const double* q, const double* x, int n, int w, double* z) {
  for (int i = 0; i < n; ++i) z[i] = rolling_z(s, q, x, i, w);
}

/// The trial-independent per-bar data (host or device pointers).
struct Bars {
  int n = 0;      ///< end of the bars walked: the walk's last bar is n - 1 (series hold at least n bars)
  int begin = 0;  ///< first bar walked (docs/strategies.md, "Data subsets": a block [begin, n) backtested on its own);
                  ///< indicators still read the full series, so warm-up comes from bars before it
  const double* open = nullptr;
  const double* high = nullptr;
  const double* low = nullptr;
  const double* close = nullptr;
  const double* cloc = nullptr;  ///< close_location per bar
  const double* s_tr = nullptr;  ///< prefix sums of TR (n + 1), for ATR
};

/// The bars of block [begin, end) (strategies/bar_block.hpp): the walk starts flat at begin
/// and its last bar is end - 1; indicators still read the full series.
using strategies::block_bars;

/// The series a trial reads that depend on one parameter each (shared by trials with the
/// same value): EMAs of its two spans, z-scores of volume and TR over its z_window.
struct TrialSeries {
  const double* ema_fast = nullptr;
  const double* ema_slow = nullptr;
  const double* vol_z = nullptr;  ///< NaN where undefined
  const double* tr_z = nullptr;   ///< NaN where undefined
};

/// Signal at bar i: i >= max(atr_window, z_window) - 1, both z-scores defined (not NaN),
/// ema_fast_i < ema_slow_i, vol_z_i > vol_z, tr_z_i > tr_z, cloc_i > cloc_min. Tested
/// cheapest and most selective first; the order does not change the answer.
TPEOPT_HD_INLINE bool is_signal(const Bars& b, const Params& p, const TrialSeries& t, int i) {
  if (i < p.first_valid) return false;
  if (!(b.cloc[i] > p.cloc_min)) return false;
  if (!(t.vol_z[i] > p.vol_z)) return false;  // false when NaN (sd undefined)
  if (!(t.ema_fast[i] < t.ema_slow[i])) return false;
  return t.tr_z[i] > p.tr_z;  // false when NaN
}

// ---- positions and trades ------------------------------------------------------------

enum ExitReason : int { kNoExit = 0, kGap = 1, kStop = 2, kTarget = 3, kTime = 4 };

struct Position {
  int signal_bar, entry_bar, last_bar;
  double entry;  ///< entry fill: open_{entry_bar} * (1 + slip)
  double stop, target, risk;
};

/// Opens the position of a signal at bar i (i <= n - 2). False when risk <= 0 (no trade).
/// The position's last bar is capped at n - 1: a position still open at the walk's last
/// bar (the end of the data, or of a block) is closed there at the close (kTime).
TPEOPT_HD_INLINE bool open_position(const Bars& b, const Params& p, int i, Position* pos) {
  const int e = i + 1;
  const double entry = b.open[e] * (1.0 + p.slip);
  const double atr = rolling_mean(b.s_tr, i, p.atr_window);
  const double stop = b.low[i] - p.atr_stop_mult * atr;
  const double risk = entry - stop;
  if (!(risk > 0.0)) return false;
  pos->signal_bar = i;
  pos->entry_bar = e;
  const long long last = static_cast<long long>(e) + p.max_hold - 1;
  pos->last_bar = last < b.n - 1 ? static_cast<int>(last) : b.n - 1;
  pos->entry = entry;
  pos->stop = stop;
  pos->target = entry + p.reward_r * risk;
  pos->risk = risk;
  return true;
}

/// Why the position exits at bar j (entry_bar <= j <= last_bar), or kNoExit.
TPEOPT_HD_INLINE int exit_reason(const Bars& b, const Position& pos, int j) {
  if (j > pos.entry_bar && b.open[j] <= pos.stop) return kGap;
  if (b.low[j] <= pos.stop) return kStop;
  if (b.high[j] >= pos.target) return kTarget;
  if (j == pos.last_bar) return kTime;
  return kNoExit;
}

struct Trade {
  int signal_bar = 0, entry_bar = 0, exit_bar = 0, reason = kNoExit;
  double entry_price = 0.0;  ///< fill, slippage included
  double exit_price = 0.0;   ///< fill, slippage included
  double ret = 0.0;          ///< (exit * (1 - f)) / (entry * (1 + f)) - 1
  double r_multiple = 0.0;   ///< (exit - entry) / risk
};

TPEOPT_HD_INLINE Trade close_position(const Bars& b, const Params& p, const Position& pos, int j, int reason) {
  double price = b.close[j];
  if (reason == kGap) price = b.open[j];
  else if (reason == kStop) price = pos.stop;
  else if (reason == kTarget) price = pos.target;
  Trade t;
  t.signal_bar = pos.signal_bar;
  t.entry_bar = pos.entry_bar;
  t.exit_bar = j;
  t.reason = reason;
  t.entry_price = pos.entry;
  t.exit_price = price * (1.0 - p.slip);
  t.ret = (t.exit_price * (1.0 - p.fee)) / (pos.entry * (1.0 + p.fee)) - 1.0;
  t.r_multiple = (t.exit_price - pos.entry) / pos.risk;
  return t;
}

/// Finds the first k in [from, to] with pred(k), or to + 1; one bar after another.
/// (The GPU's warp finder tests 32 bars at once and returns the same k.)
struct SequentialFinder {
  TPEOPT_HD_NO_CHECK
  template <typename Pred>
  TPEOPT_HD_INLINE int operator()(int from, int to, Pred&& pred) const {
    for (int k = from; k <= to; ++k)
      if (pred(k)) return k;
    return to + 1;
  }
};

/// The walk from scan position `from`, flat, opening positions only at signals before
/// `stop` (stop <= n - 1): scan i = from .. stop - 1 while flat; on a signal open a position
/// (none if risk <= 0: the scan goes on at i + 1), find its exit bar j, report it, go on
/// scanning at i = j (a signal on the exit bar re-enters at j + 1). `find(from, to, pred)`
/// must return the first k in [from, to] with pred(k) or to + 1. on_exit(const Position&,
/// int j) is called for each trade in trade order (close_position makes the trade); it may
/// return false to end the walk after that trade. Returns where the scan stands when the walk
/// ends: the exit bar of its last trade when that is >= stop or on_exit ended it, else stop.
/// The walk is a function of its scan position alone: two walks at the same position make
/// the same trades from there on (stitch_segments relies on it).
TPEOPT_HD_NO_CHECK
template <typename SignalFinder, typename ExitFinder, typename OnExit>
TPEOPT_HD_INLINE int walk_from(const Bars& b, const Params& p, const TrialSeries& t, int from, int stop,
                               SignalFinder&& find_signal, ExitFinder&& find_exit, OnExit&& on_exit) {
  const int last_signal = stop - 1;
  int i = from;
  while (i <= last_signal) {
    i = find_signal(i, last_signal, [&](int k) { return is_signal(b, p, t, k); });
    if (i > last_signal) break;
    Position pos;
    if (!open_position(b, p, i, &pos)) {
      ++i;
      continue;
    }
    const int j = find_exit(pos.entry_bar, pos.last_bar, [&](int k) { return exit_reason(b, pos, k) != kNoExit; });
    if constexpr (std::is_same_v<decltype(on_exit(pos, j)), bool>) {
      if (!on_exit(pos, j)) return j;
    } else {
      on_exit(pos, j);
    }
    i = j;
  }
  return i;
}

/// The backtest of one trial, one position at a time, over bars [begin, n): walk_from(begin,
/// n - 1); on_trade(const Trade&) is called in trade order.
/// The same walk with one finder for signals and another for exits (the GPU skips bars
/// that cannot signal with a filter of its own, then confirms each candidate with pred).
TPEOPT_HD_NO_CHECK
template <typename SignalFinder, typename ExitFinder, typename OnTrade>
TPEOPT_HD_INLINE void run_backtest(const Bars& b, const Params& p, const TrialSeries& t, SignalFinder&& find_signal,
                                   ExitFinder&& find_exit, OnTrade&& on_trade) {
  walk_from(b, p, t, b.begin, b.n - 1, find_signal, find_exit,
            [&](const Position& pos, int j) { on_trade(close_position(b, p, pos, j, exit_reason(b, pos, j))); });
}

TPEOPT_HD_NO_CHECK
template <typename Finder, typename OnTrade>
TPEOPT_HD_INLINE void run_backtest(const Bars& b, const Params& p, const TrialSeries& t, Finder&& find,
                                   OnTrade&& on_trade) {
  run_backtest(b, p, t, find, find, on_trade);
}

// ---- one walk as segments walked at once, then stitched -------------------------------
// strategies/segment_stitch.hpp says why the walk may be cut and how the stitch decides;
// walk_from is the walk (a function of its scan position alone while flat), and a recorded
// trade is made again from its bars (replay_trade: the functions the walk calls) and summed in
// trade order: same trades, same bits as run_backtest.

using segments::BarPair;
using segments::SegmentRecord;

/// The trade whose signal and exit bars the walk recorded, as the walk made it.
TPEOPT_HD_INLINE Trade replay_trade(const Bars& b, const Params& p, const BarPair& bars) {
  Position pos{};                          // open_position fills it; {} so that GCC 13 does not take a field as unset
  open_position(b, p, bars.signal, &pos);  // risk > 0: the walk opened it
  return close_position(b, p, pos, bars.exit, exit_reason(b, pos, bars.exit));
}

/// The walk over [b.begin, b.n - 1) from its segments' records: cut(g) gives c_g (cut(0) =
/// b.begin, cut(G) = b.n - 1, non-decreasing), record_of(g) segment g's record.
/// on_trade(const Trade&) receives the trades the stitch walks itself, adopt(record, k) the
/// record's trades k .. count - 1 (in order, before anything later): together, every trade of
/// run_backtest in trade order.
TPEOPT_HD_NO_CHECK
template <typename Cut, typename Records, typename SignalFinder, typename ExitFinder, typename OnTrade, typename Adopt>
TPEOPT_HD_INLINE void stitch_segments(const Bars& b, const Params& p, const TrialSeries& t, int G, Cut&& cut,
                                      Records&& record_of, SignalFinder&& find_signal, ExitFinder&& find_exit,
                                      OnTrade&& on_trade, Adopt&& adopt) {
  segments::stitch_segments_with(
      segments::walk_of(b, p, t, find_signal, find_exit), cut(0), G, cut, record_of,
      [&](const Position& pos, int j) { on_trade(close_position(b, p, pos, j, exit_reason(b, pos, j))); }, adopt);
}

// ---- scores ----------------------------------------------------------------------------

enum class Objective : int { TotalReturn = 0, MeanR = 1, Sharpe = 2, ProfitFactor = 3 };

/// A trial's trades summarized in trade order: strategies/trade_stats.hpp's statistics of the returns, plus the sum of R multiples.
struct Summary : ReturnStats {
  double sum_r = 0.0;  ///< sum of R multiples
};

TPEOPT_HD_INLINE void add_trade(Summary& s, const Trade& t) {
  add_return(s, t.ret);
  s.sum_r = s.sum_r + t.r_multiple;
}

using strategies::kProfitFactorCap;
using strategies::profit_factor;
using strategies::sharpe;

/// mean R multiple; 0 without trades.
TPEOPT_HD_INLINE double mean_r(const Summary& s) { return s.trades > 0 ? s.sum_r / s.trades : 0.0; }

TPEOPT_HD_INLINE double objective_value(const Summary& s, Objective o) {
  switch (o) {
    case Objective::MeanR:
      return mean_r(s);
    case Objective::Sharpe:
      return sharpe(s);
    case Objective::ProfitFactor:
      return profit_factor(s);
    case Objective::TotalReturn:
      break;
  }
  return s.total_return;
}

/// A blocked trial's score (docs/strategies.md, "Data subsets"): strategies/trade_stats.hpp's BlockedScore over
/// this strategy's summaries.
using BlockedScore = strategies::BlockedScore<Summary>;

TPEOPT_HD_INLINE void add_block_trade(BlockedScore& b, const Trade& t) { add_trade(b.block, t); }

/// Closes the current block: its objective value joins the score, and the next block starts empty.
TPEOPT_HD_INLINE void end_block(BlockedScore& b, Objective o) { close_block(b, objective_value(b.block, o)); }

/// Metric columns, in the order of ExhaustionStrategy::metric_names(): trade_stats.hpp's,
/// the fourth being mean_r.
enum Metric : int {
  kMTrades = kTradeMetricTrades,
  kMWins = kTradeMetricWins,
  kMTotalReturn = kTradeMetricTotalReturn,
  kMMeanR = kTradeMetricOwn,
  kMSharpe = kTradeMetricSharpe,
  kMProfitFactor = kTradeMetricProfitFactor,
  kMMaxDrawdown = kTradeMetricMaxDrawdown,
  kNumMetrics = kNumTradeMetrics
};

/// Writes the metrics and returns the score; *violation = min_trades - trades when fewer.
TPEOPT_HD_INLINE double finish(const Summary& s, Objective o, int min_trades, double* metrics, double* violation) {
  *violation = write_trade_metrics(s, mean_r(s), min_trades, metrics);
  return objective_value(s, o);
}

}  // namespace tpeopt::strategies::exhaustion
