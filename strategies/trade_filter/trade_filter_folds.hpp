#pragma once
// The folds of the trade_filter strategy (Strategy::with_folds; docs/strategies.md, "Folds"),
// written once as TPEOPT_HD code for the CPU reference and the CUDA kernels: a kept trade
// joins the fold of its entry day (TradeFilterStrategy precomputes each trade's fold with
// strategies/folds.hpp's fold_of over trading days), and each fold keeps exact integer totals
// of its trades' fixed-point outcomes q (trade_filter.hpp): their count, their sum and their
// sum of squares. Integers add the same in any order, so the fold columns, like the score,
// do not depend on how the device splits and sums the trades.
#include <cstdint>

#include "common/hd.hpp"
#include "strategies/folds.hpp"
#include "strategies/trade_filter/trade_filter.hpp"
#include "strategies/trade_stats.hpp"

namespace tpeopt::strategies::trade_filter {

/// A fold's exact totals. q^2 needs up to 122 bits: preparation bounds the sum of |q| over all
/// trades below 2^61 (kMaxAbsSum), so the sum of q^2 over any trades is below (2^61)^2 = 2^122
/// and the two 64-bit words (sq_hi, sq_lo) of an unsigned 128-bit sum cannot overflow.
struct FoldTally {
  std::int64_t sum_q = 0;              ///< sum of q(outcome) of the fold's kept trades
  std::int64_t kept = 0;               ///< the fold's kept trades
  std::uint64_t sq_lo = 0, sq_hi = 0;  ///< sum of q^2, low and high 64 bits
};

/// Words per fold in the device's accumulators: sum_q, kept, sq_lo, sq_hi.
constexpr int kFoldTallyWords = 4;

#ifndef __CUDA_ARCH__
__extension__ typedef unsigned __int128 HostUint128;  // GCC and Clang; __extension__: no -Wpedantic warning
#endif

/// The high 64 bits of a * b.
TPEOPT_HD_INLINE std::uint64_t mul_hi64(std::uint64_t a, std::uint64_t b) {
#ifdef __CUDA_ARCH__
  return __umul64hi(a, b);
#else
  return static_cast<std::uint64_t>((static_cast<HostUint128>(a) * b) >> 64);
#endif
}

/// Adds the 128-bit value (hi, lo) to the sum (sq_hi, sq_lo).
TPEOPT_HD_INLINE void add_u128(FoldTally& t, std::uint64_t hi, std::uint64_t lo) {
  const std::uint64_t low = t.sq_lo + lo;
  t.sq_hi += hi + (low < lo ? 1u : 0u);
  t.sq_lo = low;
}

/// Adds one kept trade's fixed-point outcome q to its fold.
TPEOPT_HD_INLINE void fold_tally_add(FoldTally& t, std::int64_t q) {
  t.sum_q += q;
  t.kept += 1;
  const std::uint64_t a = q < 0 ? static_cast<std::uint64_t>(-q) : static_cast<std::uint64_t>(q);  // |q| < 2^61
  add_u128(t, mul_hi64(a, a), a * a);
}

/// Adds the totals `from` to `into`.
TPEOPT_HD_INLINE void fold_tally_merge(FoldTally& into, const FoldTally& from) {
  into.sum_q += from.sum_q;
  into.kept += from.kept;
  add_u128(into, from.sq_hi, from.sq_lo);
}

/// The sum of squares in percent^2: q is 1e-9 percent, so q^2 is 1e-18 percent^2. The 128-bit
/// integer becomes a double by the same operations on both sides (hi * 2^64 + lo, then / 1e18:
/// three roundings), so the CPU and CUDA give the same bits.
TPEOPT_HD_INLINE double sumsq_percent(const FoldTally& t) {
  return (static_cast<double>(t.sq_hi) * 18446744073709551616.0 + static_cast<double>(t.sq_lo)) / 1e18;
}

/// A fold's totals as strategies/trade_stats.hpp's finish_folds reads a Summary.
struct FoldTotals {
  double trades = 0.0;        ///< kept trades
  double total_return = 0.0;  ///< from_fixed_point(sum_q): the fold's score
};

/// A fold's objective value: its total percent return.
struct FoldTotalReturn {
  TPEOPT_HD_INLINE double operator()(const FoldTotals& f) const { return f.total_return; }
};

/// Writes the fold columns of K folds (strategies/folds.hpp's FoldColumn, from `out`):
/// fold{k}_score = fold{k}_sum = the fold's exact total percent return, fold{k}_n its kept
/// trades, fold{k}_sumsq the sum of its trades' squared percent returns; returns the trial's
/// score: `whole` for rule All, else the rule over the fold scores.
TPEOPT_HD_INLINE double finish_fold_tallies(const FoldTally* folds, int K, const FoldRule& rule, double whole,
                                            double* out) {
  FoldSummaries<FoldTotals> s;
  for (int k = 0; k < K; ++k) {
    s.fold[k].trades = static_cast<double>(folds[k].kept);
    s.fold[k].total_return = from_fixed_point(folds[k].sum_q);
    s.sumsq[k] = sumsq_percent(folds[k]);
  }
  return finish_folds(s.view(), K, rule, whole, FoldTotalReturn{}, out);
}

/// The totals of trades begin, begin + step, ... (below end) under p, as tally_trades gives
/// them, each kept trade also added to its fold (a.fold[i]; -1: none). A run of kept trades of
/// one fold is summed locally and handed to flush(k, const FoldTally&) when the fold changes
/// and at the end: a log in time order takes a few flushes per chunk of trades.
template <typename Flush>
TPEOPT_HD_INLINE Tally tally_trades_folded(const TradeArrays& a, const Params& p, std::uint64_t begin,
                                           std::uint64_t end, std::uint64_t step, Flush&& flush) {
  Tally t;
  FoldTally run;
  int run_fold = -1;
  for (std::uint64_t i = begin; i < end; i += step) {
    if (!trade_kept(a, i, p)) continue;
    const std::int64_t q = trade_outcome_q(a, i, p.target, p.stop);
    tally_add(t, q);
    const int k = a.fold[i];
    if (k != run_fold) {
      if (run.kept > 0) flush(run_fold, run);
      run = FoldTally{};
      run_fold = k;
    }
    if (k >= 0) fold_tally_add(run, q);
  }
  if (run.kept > 0) flush(run_fold, run);
  return t;
}

}  // namespace tpeopt::strategies::trade_filter
