#pragma once
// The `atc` strategy (adaptive trend classification): six moving averages of the
// close (EMA, HMA, WMA, DEMA, LSMA, KAMA) at nine lengths each, a persistent crossover signal
// per average, a first layer that weights each type's nine signals by their own equity
// curves, a second layer that weights the six types' signals by theirs, and a long / short /
// flat position from the result. Written ONCE as TPEOPT_HD code, used by the CPU reference
// (atc_strategy.cpp) and the CUDA kernels (atc_device.cu); docs/strategies.md, section
// "atc", states the same rules in prose.
//
// Parity (docs/design.md, "Parity: CPU == CUDA"): only +, -, *, / and sqrt on doubles (IEEE on both sides),
// fabs and comparisons, contraction off on both compilers, the same operation order
// everywhere; the one exp (the growth factor, once per trial) is common/hd_math.hpp's.
// Every function is a pure function of its arguments and state.
#include <cmath>

#include "common/hd.hpp"
#include "common/hd_math.hpp"
#include "strategies/bar_block.hpp"
#include "strategies/trade_stats.hpp"

namespace tpeopt::strategies::atc {

/// The six moving averages, in the order of the second layer's sums.
enum MaType : int { kEma = 0, kHma, kWma, kDema, kLsma, kKama, kNumTypes };
constexpr int kVariants = 9;                     ///< lengths per type
constexpr int kStreams = kNumTypes * kVariants;  ///< 54 signals per trial and symbol
constexpr int kMaxLength = 1000;                 ///< longest moving average
constexpr int kHmaRing = 32;                     ///< > isqrt(kMaxLength): HMA's last stage window
constexpr double kEquityFloor = 0.25;            ///< equities never fall below this
constexpr double kKamaFast = 2.0 / 3.0;          ///< KAMA's fastest smoothing (2 / (2 + 1))
constexpr double kKamaSlow = 2.0 / 31.0;         ///< KAMA's slowest smoothing (2 / (30 + 1))

/// Parameter slots, in the order of AtcStrategy::param_names().
enum Slot : int {
  kEmaLen = 0,
  kHmaLen,
  kWmaLen,
  kDemaLen,
  kLsmaLen,
  kKamaLen,
  kRobustness,
  kLambda,
  kDecay,
  kLongThreshold,
  kShortThreshold,
  kCutout,
  kFeeBp,
  kNumSlots
};

/// Integer parameters arrive as doubles: k = floor(v + 0.5).
TPEOPT_HD_INLINE int int_param(double v) { return static_cast<int>(floor(v + 0.5)); }

struct Params {
  int base[kNumTypes];  ///< base length per type
  int robustness;       ///< step between a type's nine lengths
  int cutout;           ///< bars before this one are not traded
  double growth;        ///< q = exp(lambda / 1000): the return weight grows by q per bar
  double keep;          ///< 1 - decay / 100: an equity's factor per bar before the return
  double long_threshold, short_threshold;
  double fee;  ///< fee_bp / 1e4 per unit of position change
};

TPEOPT_HD_INLINE Params unpack_params(const double* v) {
  Params p;
  for (int m = 0; m < kNumTypes; ++m) p.base[m] = int_param(v[kEmaLen + m]);
  p.robustness = int_param(v[kRobustness]);
  p.cutout = int_param(v[kCutout]);
  p.growth = hd::exp(v[kLambda] / 1000.0);
  p.keep = 1.0 - v[kDecay] / 100.0;
  p.long_threshold = v[kLongThreshold];
  p.short_threshold = v[kShortThreshold];
  p.fee = v[kFeeBp] / 1e4;
  return p;
}

/// Length of variant k (0..8) of type m: base + (k - 4) * robustness, clamped to [1, kMaxLength].
TPEOPT_HD_INLINE int variant_length(int base, int robustness, int k) {
  long long L = static_cast<long long>(base) + static_cast<long long>(k - 4) * robustness;
  if (L < 1) L = 1;
  if (L > kMaxLength) L = kMaxLength;
  return static_cast<int>(L);
}

// ---- moving averages, streamed one bar at a time ------------------------------------------

/// Weighted moving average over the last L values pushed, weights 1 (oldest) .. L (newest),
/// by running sums: while filling, S = S + v and W = W + c * v (c = values so far, 1..L);
/// then W = (W - S) + L * v and S = (S + v) - v_out, v_out the value leaving the window.
struct Wma {
  int L = 1, count = 0;
  double S = 0.0, W = 0.0, denom = 1.0;
  TPEOPT_HD_INLINE void init(int length) {
    L = length;
    count = 0;
    S = 0.0;
    W = 0.0;
    denom = static_cast<double>(static_cast<long long>(L) * (L + 1) / 2);
  }
  /// `out` is read only once the window is full (count == L before the push).
  TPEOPT_HD_INLINE void push(double v, double out) {
    if (count < L) {
      count += 1;
      S = S + v;
      W = W + static_cast<double>(count) * v;
    } else {
      W = (W - S) + static_cast<double>(L) * v;
      S = (S + v) - out;
    }
  }
  TPEOPT_HD_INLINE bool ready() const { return count >= L; }
  TPEOPT_HD_INLINE double value() const { return W / denom; }
  TPEOPT_HD_INLINE double mean() const { return S / static_cast<double>(L); }
};

/// EMA seeded by the SMA of the first L values: e = (x_0 + ... + x_{L-1}) / L at bar L - 1,
/// then e = e + alpha * (x - e), alpha = 2 / (L + 1).
struct Ema {
  int L = 1, count = 0;
  double alpha = 1.0, sum = 0.0, e = 0.0;
  TPEOPT_HD_INLINE void init(int length) {
    L = length;
    count = 0;
    alpha = 2.0 / (static_cast<double>(L) + 1.0);
    sum = 0.0;
    e = 0.0;
  }
  TPEOPT_HD_INLINE void push(double v) {
    if (count < L) {
      count += 1;
      sum = sum + v;
      if (count == L) e = sum / static_cast<double>(L);
    } else {
      e = e + alpha * (v - e);
    }
  }
  TPEOPT_HD_INLINE bool ready() const { return count >= L; }
};

/// One moving average of type `kType` and length L over x, one bar at a time: push(x, t)
/// for t = 0, 1, ... in order; then ready() says whether MA_t is defined and value() is it.
template <int kType>
struct Ma;

template <>
struct Ma<kEma> {
  Ema e;
  TPEOPT_HD_INLINE void init(int L) { e.init(L); }
  TPEOPT_HD_INLINE void push(const double* x, int t) { e.push(x[t]); }
  TPEOPT_HD_INLINE bool ready() const { return e.ready(); }
  TPEOPT_HD_INLINE double value() const { return e.e; }
};

template <>
struct Ma<kWma> {
  Wma w;
  TPEOPT_HD_INLINE void init(int L) { w.init(L); }
  TPEOPT_HD_INLINE void push(const double* x, int t) { w.push(x[t], t >= w.L ? x[t - w.L] : 0.0); }
  TPEOPT_HD_INLINE bool ready() const { return w.ready(); }
  TPEOPT_HD_INLINE double value() const { return w.value(); }
};

/// LSMA: the least-squares line through the last L closes, at the newest bar; computed by
/// the identity LSMA = 3 * WMA - 2 * SMA (same window), as (3.0 * wma) - (2.0 * sma).
template <>
struct Ma<kLsma> {
  Wma w;
  TPEOPT_HD_INLINE void init(int L) { w.init(L); }
  TPEOPT_HD_INLINE void push(const double* x, int t) { w.push(x[t], t >= w.L ? x[t - w.L] : 0.0); }
  TPEOPT_HD_INLINE bool ready() const { return w.ready(); }
  TPEOPT_HD_INLINE double value() const { return 3.0 * w.value() - 2.0 * w.mean(); }
};

/// DEMA = 2 * e1 - e2: e1 the EMA of x, e2 the EMA of e1 with the same alpha, seeded by e1's
/// first value (no second SMA warm-up): defined from bar L - 1, where it equals e1.
template <>
struct Ma<kDema> {
  Ema e1;
  double e2 = 0.0;
  TPEOPT_HD_INLINE void init(int L) {
    e1.init(L);
    e2 = 0.0;
  }
  TPEOPT_HD_INLINE void push(const double* x, int t) {
    const bool was_ready = e1.ready();
    e1.push(x[t]);
    if (was_ready) e2 = e2 + e1.alpha * (e1.e - e2);
    else if (e1.ready()) e2 = e1.e;
  }
  TPEOPT_HD_INLINE bool ready() const { return e1.ready(); }
  TPEOPT_HD_INLINE double value() const { return 2.0 * e1.e - e2; }
};

/// HMA = WMA over r of y, y = 2 * WMA_h(x) - WMA_L(x), h = max(1, L / 2), r = max(1, isqrt(L));
/// y is defined from bar L - 1, the HMA from bar L + r - 2.
template <>
struct Ma<kHma> {
  Wma a, b, c;
  int ny = 0;
  double ring[kHmaRing];
  TPEOPT_HD_INLINE void init(int L) {
    const int h = L / 2 > 1 ? L / 2 : 1;
    int r = 1;
    while ((r + 1) * (r + 1) <= L) ++r;
    a.init(h);
    b.init(L);
    c.init(r);
    ny = 0;
  }
  TPEOPT_HD_INLINE void push(const double* x, int t) {
    a.push(x[t], t >= a.L ? x[t - a.L] : 0.0);
    b.push(x[t], t >= b.L ? x[t - b.L] : 0.0);
    if (!b.ready()) return;
    const double y = 2.0 * a.value() - b.value();
    const int slot = ny % c.L;
    c.push(y, ny >= c.L ? ring[slot] : 0.0);
    ring[slot] = y;
    ny += 1;
  }
  TPEOPT_HD_INLINE bool ready() const { return c.ready(); }
  TPEOPT_HD_INLINE double value() const { return c.value(); }
};

/// KAMA: k = x_{L-1} at bar L - 1; from bar L, er = change / vol (0 when vol <= 0) with
/// change = |x_t - x_{t-L}| and vol the running sum of the last L |x_i - x_{i-1}| (vol =
/// vol + d_t while t <= L, then (vol + d_t) - d_{t-L}), sc = (er * (fast - slow) + slow)^2,
/// k = k + sc * (x_t - k).
template <>
struct Ma<kKama> {
  int L = 1;
  bool defined = false;
  double k = 0.0, vol = 0.0;
  TPEOPT_HD_INLINE void init(int length) {
    L = length;
    defined = false;
    k = 0.0;
    vol = 0.0;
  }
  TPEOPT_HD_INLINE void push(const double* x, int t) {
    if (t >= 1) {
      const double d = fabs(x[t] - x[t - 1]);
      if (t <= L) vol = vol + d;
      else vol = (vol + d) - fabs(x[t - L] - x[t - L - 1]);
    }
    if (t < L - 1) return;
    if (t == L - 1) {
      k = x[t];
      defined = true;
      return;
    }
    const double change = fabs(x[t] - x[t - L]);
    const double er = vol > 0.0 ? change / vol : 0.0;
    double sc = er * (kKamaFast - kKamaSlow) + kKamaSlow;
    sc = sc * sc;
    k = k + sc * (x[t] - k);
  }
  TPEOPT_HD_INLINE bool ready() const { return defined; }
  TPEOPT_HD_INLINE double value() const { return k; }
};

// ---- signals ------------------------------------------------------------------------------

/// 32 bars of one signal: bit b of word w is bar 32 w + b; pos: signal +1, neg: signal -1.
struct alignas(8) SignalWord {
  unsigned pos, neg;
};

/// Words per symbol of n bars.
TPEOPT_HD_INLINE int signal_words(int n) { return (n + 31) / 32; }

/// The persistent crossover signal of close x against its moving average, packed in
/// words (signal_words(n) of them): 0 until the first crossing; +1 from a bar where
/// x_t > MA_t and x_{t-1} <= MA_{t-1} (both defined); -1 from a bar where x_t < MA_t and
/// x_{t-1} >= MA_{t-1}; else the previous bar's signal.
TPEOPT_HD_NO_CHECK
template <int kType>
TPEOPT_HD_INLINE void ma_signal_words_t(const double* x, int n, int L, SignalWord* out) {
  Ma<kType> ma;
  ma.init(L);
  bool have_prev = false;
  double prev_x = 0.0, prev_ma = 0.0;
  int sig = 0;
  unsigned pos = 0u, neg = 0u;
  for (int t = 0; t < n; ++t) {
    ma.push(x, t);
    if (ma.ready()) {
      const double m = ma.value();
      if (have_prev) {
        if (x[t] > m && prev_x <= prev_ma) sig = 1;
        else if (x[t] < m && prev_x >= prev_ma) sig = -1;
      }
      have_prev = true;
      prev_x = x[t];
      prev_ma = m;
    }
    const unsigned bit = 1u << (t & 31);
    if (sig > 0) pos |= bit;
    if (sig < 0) neg |= bit;
    if ((t & 31) == 31 || t == n - 1) {
      out[t >> 5] = SignalWord{pos, neg};
      pos = 0u;
      neg = 0u;
    }
  }
}

TPEOPT_HD_INLINE void ma_signal_words(int type, const double* x, int n, int L, SignalWord* out) {
  switch (type) {
    case kEma:
      ma_signal_words_t<kEma>(x, n, L, out);
      break;
    case kHma:
      ma_signal_words_t<kHma>(x, n, L, out);
      break;
    case kWma:
      ma_signal_words_t<kWma>(x, n, L, out);
      break;
    case kDema:
      ma_signal_words_t<kDema>(x, n, L, out);
      break;
    case kLsma:
      ma_signal_words_t<kLsma>(x, n, L, out);
      break;
    default:
      ma_signal_words_t<kKama>(x, n, L, out);
      break;
  }
}

/// The moving average itself (for tests and docs): out[t] = MA_t, NaN where undefined.
TPEOPT_HD_NO_CHECK
template <int kType>
TPEOPT_HD_INLINE void ma_series_t(const double* x, int n, int L, double* out) {
  Ma<kType> ma;
  ma.init(L);
  for (int t = 0; t < n; ++t) {
    ma.push(x, t);
    out[t] = ma.ready() ? ma.value() : NAN;
  }
}

TPEOPT_HD_INLINE void ma_series(int type, const double* x, int n, int L, double* out) {
  switch (type) {
    case kEma:
      ma_series_t<kEma>(x, n, L, out);
      break;
    case kHma:
      ma_series_t<kHma>(x, n, L, out);
      break;
    case kWma:
      ma_series_t<kWma>(x, n, L, out);
      break;
    case kDema:
      ma_series_t<kDema>(x, n, L, out);
      break;
    case kLsma:
      ma_series_t<kLsma>(x, n, L, out);
      break;
    default:
      ma_series_t<kKama>(x, n, L, out);
      break;
  }
}

/// The signal of one variant at bar 32 w + b, as a double: +1, -1 or 0.
TPEOPT_HD_INLINE double signal_at(const SignalWord& w, int b) {
  return ((w.pos >> b) & 1u) ? 1.0 : (((w.neg >> b) & 1u) ? -1.0 : 0.0);
}

// ---- the two layers ------------------------------------------------------------------------

/// One type's state: the signals of its nine variants at the current bar, their equities,
/// the equity of the type's layer-1 signal, and that signal at the current bar.
struct TypeState {
  double sig[kVariants];
  double e[kVariants];
  double E;
  double l1;
};

/// An equity never falls below 0.25: fmax (IEEE maxNum, the same on both sides; a NaN
/// becomes 0.25).
TPEOPT_HD_INLINE double floored(double v) { return fmax(v, kEquityFloor); }

/// sum_k sig_k * e_k / sum_k e_k, k = 0..8 left to right.
TPEOPT_HD_INLINE double layer1_signal(const TypeState& s) {
  double num = s.sig[0] * s.e[0];
  double den = s.e[0];
  for (int k = 1; k < kVariants; ++k) {
    num = num + s.sig[k] * s.e[k];
    den = den + s.e[k];
  }
  return num / den;
}

/// At the cutout bar (bit b of the nine words w): every equity 1, the signals and the
/// layer-1 signal of this bar.
TPEOPT_HD_INLINE void type_begin(TypeState& s, const SignalWord* w, int b) {
  for (int k = 0; k < kVariants; ++k) {
    s.sig[k] = signal_at(w[k], b);
    s.e[k] = 1.0;
  }
  s.E = 1.0;
  s.l1 = layer1_signal(s);
}

/// A bar after the cutout: each variant's equity moves by keep * (1 + sig_prev * rg)
/// (floored), the type's equity by keep * (1 + l1_prev * rg) (floored), then this bar's
/// signals and layer-1 signal.
TPEOPT_HD_INLINE void type_step(TypeState& s, const SignalWord* w, int b, double rg, double keep) {
  for (int k = 0; k < kVariants; ++k) {
    s.e[k] = floored(s.e[k] * (keep * (1.0 + s.sig[k] * rg)));
    s.sig[k] = signal_at(w[k], b);
  }
  s.E = floored(s.E * (keep * (1.0 + s.l1 * rg)));
  s.l1 = layer1_signal(s);
}

/// The final signal: sum_m P_m / sum_m E_m, m = 0..5 left to right, P_m = l1_m * E_m,
/// accumulated one type at a time (first(), then add() in type order).
struct Combiner {
  double num, den;
  TPEOPT_HD_INLINE void first(double P, double E) {
    num = P;
    den = E;
  }
  TPEOPT_HD_INLINE void add(double P, double E) {
    num = num + P;
    den = den + E;
  }
  TPEOPT_HD_INLINE double value() const { return num / den; }
};

TPEOPT_HD_INLINE double combine(const double* P, const double* E) {
  Combiner c;
  c.first(P[0], E[0]);
  for (int m = 1; m < kNumTypes; ++m) c.add(P[m], E[m]);
  return c.value();
}

// ---- positions, returns, metrics ---------------------------------------------------------

/// Positions and the running summary of one symbol's per-bar returns.
struct TradeState {
  int p1 = 0, p2 = 0;  ///< positions decided at the previous bar and the one before
  int trades = 0;
  long long bars = 0, in_market = 0;
  double total = 0.0, sumsq = 0.0;
  double equity = 1.0, peak = 1.0, trough = 1.0, max_dd = 0.0;
};

/// Bar t > cutout: the return of the position held over bar t, p1 (decided at t - 1), with
/// the cost of changing to it from p2: r = (p1 * R_t) - fee * |p1 - p2|. Returns r.
TPEOPT_HD_INLINE double trade_realize(TradeState& s, double R, double fee) {
  const int p = s.p1;
  const double gross = p > 0 ? R : (p < 0 ? -R : 0.0);
  const int dp = p > s.p2 ? p - s.p2 : s.p2 - p;
  const double r = gross - fee * static_cast<double>(dp);
  s.bars += 1;
  s.total = s.total + r;
  s.sumsq = s.sumsq + r * r;
  if (p != 0) {
    s.in_market += 1;
    if (p != s.p2) s.trades += 1;
  }
  s.equity = s.equity * (1.0 + r);
  if (s.equity > s.peak) {
    // the drawdown of the stretch since the last peak is decided: 1 - trough / peak
    const double dd = 1.0 - s.trough / s.peak;
    if (dd > s.max_dd) s.max_dd = dd;
    s.peak = s.equity;
    s.trough = s.equity;
  } else if (s.equity < s.trough) {
    s.trough = s.equity;
  }
  return r;
}

/// Bar t >= cutout: the position from the final signal A_t.
TPEOPT_HD_INLINE void trade_decide(TradeState& s, double A, const Params& p) {
  const int pos = A > p.long_threshold ? 1 : (A < p.short_threshold ? -1 : 0);
  s.p2 = s.p1;
  s.p1 = pos;
}

enum class Objective : int { TotalReturn = 0, Sharpe = 1 };

/// Metric columns, in the order of AtcStrategy::metric_names().
enum Metric : int { kMTrades = 0, kMTotalReturn, kMSharpe, kMMaxDrawdown, kMExposure, kNumMetrics };

/// The Sharpe ratio of `bars` per-bar returns of sum `total` and sum of squares `sumsq`
/// (0 without bars): a symbol's over all its return bars, a fold's over its own.
TPEOPT_HD_INLINE double bar_sharpe(long long bars, double total, double sumsq) {
  if (bars <= 0) return 0.0;
  const double n = static_cast<double>(bars);
  const double mean = total / n;
  const double var = sumsq / n - mean * mean;
  return sharpe_ratio(mean, var, n);
}

/// Writes a symbol's metrics, its final equity, and returns its objective value.
TPEOPT_HD_INLINE double finish_symbol(const TradeState& s, Objective o, double* metrics, double* equity) {
  double max_dd = s.max_dd;
  const double last = 1.0 - s.trough / s.peak;
  if (last > max_dd) max_dd = last;
  const double sharpe = bar_sharpe(s.bars, s.total, s.sumsq);
  metrics[kMTrades] = static_cast<double>(s.trades);
  metrics[kMTotalReturn] = s.total;
  metrics[kMSharpe] = sharpe;
  metrics[kMMaxDrawdown] = max_dd;
  metrics[kMExposure] = s.bars > 0 ? static_cast<double>(s.in_market) / static_cast<double>(s.bars) : 0.0;
  *equity = s.equity;
  return o == Objective::Sharpe ? sharpe : s.total;
}

// ---- folds (strategies/folds.hpp; docs/strategies.md, "Folds") ------------------------------

/// A fold's per-bar returns: a return belongs to the fold of its bar (fold_of; none in an
/// embargo); their sum of squares is kept beside (FoldView's sumsq).
struct FoldStats {
  long long bars = 0;
  double total = 0.0;   ///< sum of the returns
  double equity = 1.0;  ///< prod(1 + return): the fold's compound return + 1
};

/// No folds (run_symbol's and run_symbol_blocks' default).
TPEOPT_HD_INLINE FoldView<FoldStats> no_fold_stats() { return {nullptr, nullptr}; }

/// A return r added to a fold's statistics.
TPEOPT_HD_INLINE void add_bar_return(FoldStats& s, double r) {
  s.bars += 1;
  s.total = s.total + r;
  s.equity = s.equity * (1.0 + r);
}

/// Bar t's return r joins its fold (if any), added in bar order.
TPEOPT_HD_INLINE void add_fold_return(FoldView<FoldStats> f, const FoldBars& bars, int t, double r) {
  if (bars.n <= 0) return;
  add_fold_trade(f, bars, t, r, [&](FoldStats& s) { add_bar_return(s, r); });
}

/// add_fold_return through a cursor that holds the current fold (strategies::FoldCursor):
/// the same adds in the same order, so the same bits, with the storage read and written once
/// per fold instead of once per bar (the CUDA grouped kernel keeps the cursor in shared memory
/// and the storage is global scratch).
TPEOPT_HD_INLINE void add_fold_return(FoldCursor<FoldStats>& c, FoldView<FoldStats> f, const FoldBars& bars, int t,
                                      double r) {
  if (bars.n <= 0) return;
  add_fold_trade(c, f, bars, t, r, [&](FoldStats& s) { add_bar_return(s, r); });
}

/// A symbol's fold columns (FoldColumn, K folds from `out`): fold{k}_score the objective over
/// the fold's returns as finish_symbol computes it over all (under the portfolio aggregate,
/// their compound return), then their count, sum and sum of squares.
TPEOPT_HD_INLINE void write_fold_columns(FoldView<FoldStats> f, int K, Objective o, bool portfolio, double* out) {
  for (int k = 0; k < K; ++k) {
    const FoldStats& s = f.fold[k];
    const double value =
        portfolio ? s.equity - 1.0 : (o == Objective::Sharpe ? bar_sharpe(s.bars, s.total, f.sumsq[k]) : s.total);
    out[k * kFoldColumns + kFoldScore] = value;
    out[k * kFoldColumns + kFoldN] = static_cast<double>(s.bars);
    out[k * kFoldColumns + kFoldSum] = s.total;
    out[k * kFoldColumns + kFoldSumSq] = f.sumsq[k];
  }
}

/// What run_symbol tells after each return bar by default: nothing.
struct NoBarObserver {
  TPEOPT_HD_INLINE void operator()(int, const TradeState&) const {}
};

/// The whole backtest of one symbol for one trial, one thread, bar by bar (the CPU
/// reference; the GPU spreads the six types over six lanes and calls the same functions in
/// the same order per value). R: returns (R_0 = 0, R_t = x_t / x_{t-1} - 1); words[m * 9 + k]:
/// the signal words of type m's variant k. `observe(t, state)` is called after bar t's
/// return is realized (the trades export, atc_export.cpp, follows the positions with it; the
/// backtest's own arithmetic does not depend on it). With `folds`, each return also joins its
/// fold in `fold_stats` (reset by the caller).
TPEOPT_HD_NO_CHECK
template <typename Observer = NoBarObserver>
TPEOPT_HD_INLINE TradeState run_symbol(const Params& p, const double* R, int n, const SignalWord* const* words,
                                       Observer observe = Observer{}, const FoldBars& folds = FoldBars{},
                                       FoldView<FoldStats> fold_stats = no_fold_stats()) {
  TypeState st[kNumTypes];
  TradeState tr;
  double G = 1.0;
  for (int t = 0; t < n; ++t) {
    const double rg = R[t] * G;
    G = G * p.growth;
    if (t < p.cutout) continue;
    const int w = t >> 5, b = t & 31;
    Combiner c;
    for (int m = 0; m < kNumTypes; ++m) {
      SignalWord cur[kVariants];
      for (int k = 0; k < kVariants; ++k) cur[k] = words[m * kVariants + k][w];
      if (t == p.cutout) type_begin(st[m], cur, b);
      else type_step(st[m], cur, b, rg, p.keep);
      const double P = st[m].l1 * st[m].E;
      if (m == 0) c.first(P, st[m].E);
      else c.add(P, st[m].E);
    }
    const double A = c.value();
    if (t > p.cutout) {
      add_fold_return(fold_stats, folds, t, trade_realize(tr, R[t], p.fee));
      observe(t, static_cast<const TradeState&>(tr));
    }
    trade_decide(tr, A, p);
  }
  return tr;
}

/// The backtest of one symbol over blocks of its bars (docs/strategies.md, "Data subsets"; strategies/bar_block.hpp;
/// increasing, disjoint). The moving averages, signals and both layers run over the symbol's
/// bars as in run_symbol (they are indicators: from the cutout on, whatever the blocks); only
/// the positions and returns are per block: each block starts flat, decides positions at its
/// bars t >= max(cutout, begin) and realizes returns at its bars after that first one, so its
/// first return bar pays for opening the first position. Returns 0.0 plus each block's
/// objective value (finish_symbol of the block's own TradeState) in block order; *all receives
/// the TradeState of every block's returns taken together (metrics and equity). One block over
/// the whole series gives run_symbol's objective and state, bit for bit. With `folds`, each
/// return also joins its fold in `fold_stats` (reset by the caller).
TPEOPT_HD_INLINE double run_symbol_blocks(const Params& p, const double* R, const SignalWord* const* words,
                                          const BarBlock* blocks, int n_blocks, Objective o, TradeState* all,
                                          const FoldBars& folds = FoldBars{},
                                          FoldView<FoldStats> fold_stats = no_fold_stats()) {
  TypeState st[kNumTypes];
  TradeState block;
  *all = TradeState{};
  double score = 0.0;
  double G = 1.0;
  int k = 0;  // the block of the current bar, or the next one
  auto close_block = [&]() {
    double m[kNumMetrics];
    double equity = 0.0;
    score = score + finish_symbol(block, o, m, &equity);
    block = TradeState{};
    all->p1 = 0;  // the next block starts flat
    all->p2 = 0;
    ++k;
  };
  const int end = n_blocks > 0 ? blocks[n_blocks - 1].end : 0;
  for (int t = 0; t < end; ++t) {
    const double rg = R[t] * G;
    G = G * p.growth;
    while (k < n_blocks && t >= blocks[k].end) close_block();
    if (t < p.cutout) continue;
    const int w = t >> 5, b = t & 31;
    Combiner c;
    for (int m = 0; m < kNumTypes; ++m) {
      SignalWord cur[kVariants];
      for (int v = 0; v < kVariants; ++v) cur[v] = words[m * kVariants + v][w];
      if (t == p.cutout) type_begin(st[m], cur, b);
      else type_step(st[m], cur, b, rg, p.keep);
      const double P = st[m].l1 * st[m].E;
      if (m == 0) c.first(P, st[m].E);
      else c.add(P, st[m].E);
    }
    if (k >= n_blocks || t < blocks[k].begin) continue;
    const double A = c.value();
    const int first = p.cutout > blocks[k].begin ? p.cutout : blocks[k].begin;
    if (t > first) {
      trade_realize(block, R[t], p.fee);
      add_fold_return(fold_stats, folds, t, trade_realize(*all, R[t], p.fee));
    }
    trade_decide(block, A, p);
    trade_decide(*all, A, p);
  }
  while (k < n_blocks) close_block();
  return score;
}

}  // namespace tpeopt::strategies::atc
