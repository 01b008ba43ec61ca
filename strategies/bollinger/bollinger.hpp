#pragma once
// The `bollinger` strategy: Bollinger-band mean reversion, long and short, with an optional
// ATR stop, fees and slippage (docs/strategies.md, "bollinger"). Its per-trial logic, written
// ONCE as TPEOPT_HD code for the long/short walk (strategies/long_short.hpp): the CPU
// reference (strategies/signal_strategy.hpp) and the CUDA twin (bollinger_device.cu) run it.
//
// At the close of bar t, over the `window` bars ending at t: mid = their mean, sd = their
// population standard deviation (strategies/candle_indicators.hpp, two passes), upper =
// mid + num_std * sd, lower = mid - num_std * sd. A close below the lower band enters long, one
// above the upper band enters short; a long leaves when the close is back at or above mid, a
// short when it is at or below mid. Signals act at the next bar's open.
#include <cmath>

#include "common/hd.hpp"
#include "strategies/candle_indicators.hpp"
#include "strategies/signal_backtest.hpp"

namespace tpeopt::strategies::bollinger {

/// Parameter slots, in the order of the registry's list (bollinger_register.cpp).
enum Slot : int { kWindow = 0, kNumStd, kAtrWindow, kAtrStop, kFeeBp, kSlippageBp, kNumSlots };

/// The series a trial reads, in this order (their kinds are their positions).
enum Series : int { kMid = 0, kSd, kAtr, kNumSeries };

struct Logic {
  static constexpr int kNumSlots = bollinger::kNumSlots;
  static constexpr int kNumSeries = bollinger::kNumSeries;
  static constexpr int kAtrSeries = kAtr;

  struct Params {
    long_short::Costs costs;
    int first_valid;  ///< max(window, atr_window) - 1: the first bar whose bands and ATR exist
    int window, atr_window;
    double num_std;
  };

  TPEOPT_HD_INLINE static Params unpack(const double* v) {
    Params p;
    p.window = round_param(v[kWindow]);
    p.atr_window = round_param(v[kAtrWindow]);
    p.num_std = v[kNumStd];
    p.costs.stop_mult = v[kAtrStop];
    p.costs.fee = v[kFeeBp] / 1e4;
    p.costs.slip = v[kSlippageBp] / 1e4;
    p.first_valid = (p.window > p.atr_window ? p.window : p.atr_window) - 1;
    return p;
  }

  TPEOPT_HD_INLINE static void series_keys(const Params& p, SeriesKey* keys) {
    keys[kMid] = {kMid, p.window};
    keys[kSd] = {kSd, p.window};
    keys[kAtr] = {kAtr, p.atr_window};
  }

  /// At bar t: mid or sd of the `w` bars ending there, or the ATR over w bars; NaN before bar w - 1.
  TPEOPT_HD_INLINE static double series_at(int kind, int w, const long_short::Bars& b, int t) {
    if (t + 1 < w) return NAN;
    if (kind == kAtr) return average_true_range(b.high, b.low, b.close, t, w);
    double mid = 0.0, sd = 0.0;
    window_mean_sd(b.close, t, w, &mid, &sd);
    return kind == kMid ? mid : sd;
  }

  TPEOPT_HD_INLINE static long_short::Signals signals(const Params& p, const long_short::Bars& b,
                                                      const double* const* series, int t) {
    const double mid = series[kMid][t], sd = series[kSd][t];
    const double upper = mid + p.num_std * sd;
    const double lower = mid - p.num_std * sd;
    const double c = b.close[t];
    long_short::Signals s;
    s.long_entry = c < lower;
    s.long_exit = c >= mid;
    s.short_entry = c > upper;
    s.short_exit = c <= mid;
    return s;
  }
};

}  // namespace tpeopt::strategies::bollinger
