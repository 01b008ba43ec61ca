#pragma once
// The `donchian` strategy: Donchian channel breakout, long and short, with an optional ATR
// stop, fees and slippage (docs/strategies.md, "donchian"). Its per-trial logic, written ONCE
// as TPEOPT_HD code for the long/short walk (strategies/long_short.hpp): the CPU reference
// (strategies/signal_strategy.hpp) and the CUDA twin (donchian_device.cu) run it.
//
// At the close of bar t: a close above the highest high of the `channel` bars before t
// enters long, one below their lowest low enters short; a long leaves on a close below the
// lowest low of the `exit_channel` bars before t, a short on a close above their highest
// high (the turtle rules). Signals act at the next bar's open.
#include <cmath>

#include "common/hd.hpp"
#include "strategies/candle_indicators.hpp"
#include "strategies/signal_backtest.hpp"

namespace tpeopt::strategies::donchian {

/// Parameter slots, in the order of the registry's list (donchian_register.cpp).
enum Slot : int { kChannel = 0, kExitChannel, kAtrWindow, kAtrStop, kFeeBp, kSlippageBp, kNumSlots };

/// Series kinds: the highest high and the lowest low of the n bars before each bar, the ATR.
enum Kind : int { kHighest = 0, kLowest, kAtrKind };
/// The series a trial reads, in this order.
enum Series : int { kEntryHigh = 0, kEntryLow, kExitHigh, kExitLow, kAtr, kNumSeries };

struct Logic {
  static constexpr int kNumSlots = donchian::kNumSlots;
  static constexpr int kNumSeries = donchian::kNumSeries;
  static constexpr int kAtrSeries = kAtr;

  struct Params {
    long_short::Costs costs;
    int first_valid;  ///< max(channel, exit_channel, atr_window - 1): the first bar whose channels and ATR exist
    int channel, exit_channel, atr_window;
  };

  TPEOPT_HD_INLINE static Params unpack(const double* v) {
    Params p;
    p.channel = round_param(v[kChannel]);
    p.exit_channel = round_param(v[kExitChannel]);
    p.atr_window = round_param(v[kAtrWindow]);
    p.costs.stop_mult = v[kAtrStop];
    p.costs.fee = v[kFeeBp] / 1e4;
    p.costs.slip = v[kSlippageBp] / 1e4;
    int f = p.channel > p.exit_channel ? p.channel : p.exit_channel;
    if (p.atr_window - 1 > f) f = p.atr_window - 1;
    p.first_valid = f;
    return p;
  }

  TPEOPT_HD_INLINE static void series_keys(const Params& p, SeriesKey* keys) {
    keys[kEntryHigh] = {kHighest, p.channel};
    keys[kEntryLow] = {kLowest, p.channel};
    keys[kExitHigh] = {kHighest, p.exit_channel};
    keys[kExitLow] = {kLowest, p.exit_channel};
    keys[kAtr] = {kAtrKind, p.atr_window};
  }

  /// At bar t: the highest high or lowest low of the n bars before it (NaN before bar n), or
  /// the ATR over n bars (NaN before bar n - 1).
  TPEOPT_HD_INLINE static double series_at(int kind, int n, const long_short::Bars& b, int t) {
    if (kind == kAtrKind) return t + 1 < n ? NAN : average_true_range(b.high, b.low, b.close, t, n);
    if (t < n) return NAN;
    return kind == kHighest ? highest_before(b.high, t, n) : lowest_before(b.low, t, n);
  }

  TPEOPT_HD_INLINE static long_short::Signals signals(const Params&, const long_short::Bars& b,
                                                      const double* const* series, int t) {
    const double c = b.close[t];
    long_short::Signals s;
    s.long_entry = c > series[kEntryHigh][t];
    s.short_entry = c < series[kEntryLow][t];
    s.long_exit = c < series[kExitLow][t];
    s.short_exit = c > series[kExitHigh][t];
    return s;
  }
};

}  // namespace tpeopt::strategies::donchian
