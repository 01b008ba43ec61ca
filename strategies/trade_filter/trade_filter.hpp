#pragma once
// The per-trade logic of the trade_filter strategy (docs/strategies.md, "trade_filter"), written once
// as TPEOPT_HD code for the CPU reference, the CPU grid search and the CUDA kernels.
//
// Parity guarantee (docs/design.md, "Parity: CPU == CUDA"): every function here gives the same bits on
// the host and the device. Parameters are rounded to float32 before use and compared
// float32 against float32; outcomes become int64 fixed point (q(x) = llround(x * 1e9))
// and scores are int64 sums, which are exact, so the order of summation (threads,
// atomics, cells) cannot change a score.
#include <cmath>
#include <cstdint>

#include "common/hd.hpp"

namespace tpeopt::strategies::trade_filter {

/// Parameter slots, in the strategy's order.
enum Slot : int {
  kMinVolatility = 0,  ///< keep trades with Entry Volatility Percent >= this
  kMinRatio = 1,       ///< ... Entry Volatility Ratio >= this
  kMinAdx28 = 2,       ///< ... Entry Adx28 >= this
  kMinAdx14 = 3,       ///< ... Entry Adx14 >= this
  kMinAdx7 = 4,        ///< ... Entry Adx7 >= this
  kTargetPct = 5,      ///< take profit, percent (> 0; 0.5 = 0.5%)
  kStopPct = 6,        ///< stop loss, percent (< 0)
  kSlots = 7,
  kFilterSlots = 5,  ///< slots 0..4 are the entry-metric filters
};

/// One trial's parameters, each rounded to float32 (the only form ever compared).
struct Params {
  float min[kFilterSlots];  ///< indexed by Slot 0..4
  float target;
  float stop;
};

TPEOPT_HD_INLINE Params params_from_slots(const double* slots) {
  Params p;
  for (int s = 0; s < kFilterSlots; ++s) p.min[s] = static_cast<float>(slots[s]);
  p.target = static_cast<float>(slots[kTargetPct]);
  p.stop = static_cast<float>(slots[kStopPct]);
  return p;
}

/// The keep test: each entry metric >= its minimum, in float32 (a NaN metric is never kept).
TPEOPT_HD_INLINE bool keeps(const Params& p, float volatility, float ratio, float adx28, float adx14, float adx7) {
  return volatility >= p.min[0] && ratio >= p.min[1] && adx28 >= p.min[2] && adx14 >= p.min[3] && adx7 >= p.min[4];
}

/// How a kept trade ends.
enum Exit : int { kExitLogged = 0, kExitTarget = 1, kExitStop = 2 };

/// The reference walk: k upward over r[0..n); the first r_k >= target exits at the target,
/// the first r_k <= stop at the stop (target > 0 > stop, so both cannot hold at one k);
/// neither: the logged outcome.
TPEOPT_HD_INLINE int first_exit_linear(const float* r, std::uint64_t n, float target, float stop) {
  for (std::uint64_t k = 0; k < n; ++k) {
    if (r[k] >= target) return kExitTarget;
    if (r[k] <= stop) return kExitStop;
  }
  return kExitLogged;
}

constexpr std::uint32_t kNever = 0xFFFFFFFFu;

/// Position of the first record high >= target (= the first k with r_k >= target), or kNever.
/// value[0..n) increases strictly; bisection, ceil(log2(n + 1)) probes.
TPEOPT_HD_INLINE std::uint32_t first_up_crossing(const float* value, const std::uint32_t* pos, std::uint32_t n,
                                                 float target) {
  std::uint32_t lo = 0, len = n;
  while (len > 0) {
    const std::uint32_t half = len >> 1;
    if (value[lo + half] < target) {
      lo += half + 1;
      len -= half + 1;
    } else {
      len = half;
    }
  }
  return lo < n ? pos[lo] : kNever;
}

/// Position of the first record low <= stop (= the first k with r_k <= stop), or kNever.
/// value[0..n) decreases strictly.
TPEOPT_HD_INLINE std::uint32_t first_down_crossing(const float* value, const std::uint32_t* pos, std::uint32_t n,
                                                   float stop) {
  std::uint32_t lo = 0, len = n;
  while (len > 0) {
    const std::uint32_t half = len >> 1;
    if (value[lo + half] > stop) {
      lo += half + 1;
      len -= half + 1;
    } else {
      len = half;
    }
  }
  return lo < n ? pos[lo] : kNever;
}

/// The exit given the path position of the first target crossing `t` and of the first
/// stop crossing `s` (kNever when none): whichever comes first; neither: the logged exit.
TPEOPT_HD_INLINE int exit_from_crossings(std::uint32_t t, std::uint32_t s) {
  if (t < s) return kExitTarget;
  if (s < t) return kExitStop;
  return kExitLogged;  // both kNever (a position cannot cross both thresholds)
}

/// The same exit as first_exit_linear, from the record arrays (exact, not an approximation).
TPEOPT_HD_INLINE int first_exit_records(const float* up_value, const std::uint32_t* up_pos, std::uint32_t n_up,
                                        const float* down_value, const std::uint32_t* down_pos, std::uint32_t n_down,
                                        float target, float stop) {
  return exit_from_crossings(first_up_crossing(up_value, up_pos, n_up, target),
                             first_down_crossing(down_value, down_pos, n_down, stop));
}

/// q(x): x percent as an int64 count of 1e-9 percent; halves round away from zero.
TPEOPT_HD_INLINE std::int64_t fixed_point(double x) { return static_cast<std::int64_t>(llround(x * 1e9)); }

/// A fixed-point sum back in percent (the score): sum / 1e9, correctly rounded on both sides.
TPEOPT_HD_INLINE double from_fixed_point(std::int64_t sum) { return static_cast<double>(sum) / 1e9; }

/// The fixed-point outcome of a kept trade: the (float32) target or stop, or the logged outcome.
TPEOPT_HD_INLINE std::int64_t outcome_q(int exit, float target, float stop, std::int64_t logged_q) {
  if (exit == kExitTarget) return fixed_point(static_cast<double>(target));
  if (exit == kExitStop) return fixed_point(static_cast<double>(stop));
  return logged_q;
}

/// A trial's running totals: exact integers, so any order of addition gives the same values.
struct Tally {
  std::int64_t sum_q = 0;   ///< sum of the kept trades' q(outcome)
  std::int64_t kept = 0;    ///< kept trades
  std::int64_t wins = 0;    ///< kept trades with q(outcome) > 0
  std::int64_t losses = 0;  ///< kept trades with q(outcome) < 0
};

/// Adds a kept trade's q(outcome) to running totals: a Tally, or a fold run's RunTally
/// (trade_filter_folds.hpp), whose counts are 32-bit.
template <typename Totals>
TPEOPT_HD_INLINE void tally_add(Totals& t, std::int64_t q) {
  t.sum_q += q;
  t.kept += 1;
  t.wins += q > 0 ? 1 : 0;
  t.losses += q < 0 ? 1 : 0;
}

/// min_trades as a constraint: 0 when feasible, else how many kept trades are missing.
TPEOPT_HD_INLINE double violation_of(std::int64_t kept, std::int64_t min_trades) {
  return kept < min_trades ? static_cast<double>(min_trades - kept) : 0.0;
}

/// Largest |target_pct| and |stop_pct| accepted (percent): bounds the fixed-point sums.
constexpr double kMaxExitPct = 1000.0;

/// Bound on |sum_q| guaranteed by preparation (sum of |q| over all trades, any outcome),
/// so grid rank keys can hold a score in 62 bits.
constexpr std::int64_t kMaxAbsSum = (std::int64_t{1} << 61) - 1;

/// The total order of grid results as one uint64, smaller = better (ties: lower
/// combination index, handled by the caller): feasible trials by score (best first),
/// then infeasible ones by increasing violation. Matches engine::ranks_before for
/// scores that differ as doubles.
TPEOPT_HD_INLINE std::uint64_t rank_key(std::int64_t sum_q, std::int64_t kept, std::int64_t min_trades, bool maximize) {
  if (kept < min_trades) return (std::uint64_t{1} << 62) | static_cast<std::uint64_t>(min_trades - kept);
  const std::int64_t s = maximize ? kMaxAbsSum - sum_q : sum_q + kMaxAbsSum;  // in [0, 2^62)
  return static_cast<std::uint64_t>(s);
}

/// sum_q back from a feasible rank key.
TPEOPT_HD_INLINE std::int64_t sum_of_rank_key(std::uint64_t key, bool maximize) {
  const std::int64_t s = static_cast<std::int64_t>(key);
  return maximize ? kMaxAbsSum - s : s - kMaxAbsSum;
}

TPEOPT_HD_INLINE bool rank_key_feasible(std::uint64_t key) { return (key >> 62) == 0; }

/// Pointers to the trade arrays the fast methods need (all on the host or all on the
/// device); see trade_filter_data.hpp for their meaning.
struct TradeArrays {
  std::uint64_t n = 0;
  const float* metric[kFilterSlots] = {};  ///< volatility, ratio, adx28, adx14, adx7
  const std::int64_t* logged_q = nullptr;
  const std::uint64_t* up_offset = nullptr;
  const float* up_value = nullptr;
  const std::uint32_t* up_pos = nullptr;
  const std::uint64_t* down_offset = nullptr;
  const float* down_value = nullptr;
  const std::uint32_t* down_pos = nullptr;
  /// With folds (trade_filter_folds.hpp): the trades as runs of consecutive trades of one
  /// fold, run r being trades [fold_run_start[r], fold_run_start[r + 1]) of fold
  /// fold_run_fold[r] (-1: none); the n_fold_runs runs cover all n trades. A log in time order
  /// has a few runs per fold (its embargo and the days outside the folds), so a walk looks a
  /// trade's fold up once per run instead of once per trade. None without folds.
  std::uint64_t n_fold_runs = 0;
  const std::uint64_t* fold_run_start = nullptr;  ///< n_fold_runs + 1 entries
  const std::int8_t* fold_run_fold = nullptr;     ///< n_fold_runs entries
};

/// Trade i kept by p?
TPEOPT_HD_INLINE bool trade_kept(const TradeArrays& a, std::uint64_t i, const Params& p) {
  return keeps(p, a.metric[0][i], a.metric[1][i], a.metric[2][i], a.metric[3][i], a.metric[4][i]);
}

/// q(outcome) of trade i under (target, stop), by bisection over its records.
TPEOPT_HD_INLINE std::int64_t trade_outcome_q(const TradeArrays& a, std::uint64_t i, float target, float stop) {
  const std::uint64_t u0 = a.up_offset[i], d0 = a.down_offset[i];
  const int exit =
      first_exit_records(a.up_value + u0, a.up_pos + u0, static_cast<std::uint32_t>(a.up_offset[i + 1] - u0),
                         a.down_value + d0, a.down_pos + d0, static_cast<std::uint32_t>(a.down_offset[i + 1] - d0),
                         target, stop);
  return outcome_q(exit, target, stop, a.logged_q[i]);
}

/// Grid cell coordinate of a metric along one filter axis: how many of the axis' values
/// v (float32, any order) satisfy v <= metric. A combination whose value on this axis
/// has `lo` values strictly below it keeps the trade exactly when coordinate > lo.
TPEOPT_HD_INLINE std::uint32_t cell_coordinate(const float* values, std::uint32_t n, float metric) {
  std::uint32_t c = 0;
  for (std::uint32_t j = 0; j < n; ++j) c += values[j] <= metric ? 1u : 0u;
  return c;
}

}  // namespace tpeopt::strategies::trade_filter
