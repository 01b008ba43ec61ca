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

/// Adds the 128-bit value (hi, lo) to the 128-bit sum (sum_hi, sum_lo). On the device the
/// carry goes through the add's carry flag (a comparison per add otherwise); the same sum.
TPEOPT_HD_INLINE void add_u128(std::uint64_t& sum_hi, std::uint64_t& sum_lo, std::uint64_t hi, std::uint64_t lo) {
#ifdef __CUDA_ARCH__
  asm("add.cc.u64 %0, %0, %2;\n\taddc.u64 %1, %1, %3;" : "+l"(sum_lo), "+l"(sum_hi) : "l"(lo), "l"(hi));
#else
  const std::uint64_t low = sum_lo + lo;
  sum_hi += hi + (low < lo ? 1u : 0u);
  sum_lo = low;
#endif
}

/// Adds q^2 to the 128-bit sum (sum_hi, sum_lo). An outcome below 2^32 in magnitude (4.29
/// percent: most trades) squares in one 32 x 32 -> 64-bit multiply; a larger one takes the full
/// 64 x 64 -> 128-bit product. Both are the exact square.
TPEOPT_HD_INLINE void add_square(std::uint64_t& sum_hi, std::uint64_t& sum_lo, std::int64_t q) {
  const std::uint64_t a = q < 0 ? static_cast<std::uint64_t>(-q) : static_cast<std::uint64_t>(q);  // |q| < 2^61
  if ((a >> 32) == 0) {
    const auto a32 = static_cast<std::uint32_t>(a);
    add_u128(sum_hi, sum_lo, 0, static_cast<std::uint64_t>(a32) * a32);
  } else {
    add_u128(sum_hi, sum_lo, mul_hi64(a, a), a * a);
  }
}

/// Adds one kept trade's fixed-point outcome q to its fold.
TPEOPT_HD_INLINE void fold_tally_add(FoldTally& t, std::int64_t q) {
  t.sum_q += q;
  t.kept += 1;
  add_square(t.sq_hi, t.sq_lo, q);
}

/// Adds the totals `from` to `into`.
TPEOPT_HD_INLINE void fold_tally_merge(FoldTally& into, const FoldTally& from) {
  into.sum_q += from.sum_q;
  into.kept += from.kept;
  add_u128(into.sq_hi, into.sq_lo, from.sq_hi, from.sq_lo);
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

/// A walk's totals over one piece of a fold run (tally_trades_folded): the whole-span totals
/// of its kept trades, as tally_trades counts them, and the sum of their squared outcomes. A
/// piece spans at most 2^31 trades, so its counts fit 32 bits (fewer registers in a CUDA
/// thread's loop). For a run of fold k >= 0 they are also the fold's totals (fold_part).
struct RunTally {
  std::int64_t sum_q = 0;
  std::uint32_t kept = 0, wins = 0, losses = 0;
  std::uint64_t sq_hi = 0, sq_lo = 0;  ///< sum of q^2, high and low 64 bits
};

/// A piece spans at most this many trade indices (RunTally's 32-bit counts).
constexpr std::uint64_t kMaxRunPiece = std::uint64_t{1} << 31;

/// The whole-span totals of a piece.
TPEOPT_HD_INLINE Tally whole_part(const RunTally& r) {
  Tally t;
  t.sum_q = r.sum_q;
  t.kept = r.kept;
  t.wins = r.wins;
  t.losses = r.losses;
  return t;
}

/// The fold totals of a piece of one fold's run.
TPEOPT_HD_INLINE FoldTally fold_part(const RunTally& r) {
  FoldTally f;
  f.sum_q = r.sum_q;
  f.kept = r.kept;
  f.sq_lo = r.sq_lo;
  f.sq_hi = r.sq_hi;
  return f;
}

/// Walks trades begin, begin + step, ... (below end) under p run by run (a's fold runs) and
/// hands each piece of a run with kept trades to flush(k, const RunTally&), k the run's fold
/// (-1: none; its whole-span totals still count). Summed over the pieces, the whole-span parts
/// are tally_trades' totals and the fold parts each fold's totals. Within a run a kept trade
/// costs what it costs tally_trades plus the add of its square; the fold is looked up once per
/// run, and a log in time order has a few runs per fold.
template <typename Flush>
TPEOPT_HD_INLINE void tally_trades_folded(const TradeArrays& a, const Params& p, std::uint64_t begin, std::uint64_t end,
                                          std::uint64_t step, Flush&& flush) {
  std::uint64_t i = begin;
  while (i < end) {
    // The run of trade i: the first r whose run ends after it. A bisection over the runs per
    // piece (a few per chunk of trades) rather than a run index held through the walk, which a
    // stride of 32 would have to step over short runs with.
    std::uint64_t r = 0, len = a.n_fold_runs;
    while (len > 0) {
      const std::uint64_t half = len >> 1;
      if (a.fold_run_start[r + half + 1] <= i) {
        r += half + 1;
        len -= half + 1;
      } else {
        len = half;
      }
    }
    const int k = a.fold_run_fold[r];
    std::uint64_t piece_end = a.fold_run_start[r + 1] < end ? a.fold_run_start[r + 1] : end;
    if (piece_end - i > kMaxRunPiece) piece_end = i + kMaxRunPiece;
    RunTally run;
    for (; i < piece_end; i += step) {
      if (!trade_kept(a, i, p)) continue;
      const std::int64_t q = trade_outcome_q(a, i, p.target, p.stop);
      tally_add(run, q);
      add_square(run.sq_hi, run.sq_lo, q);
    }
    if (run.kept > 0) flush(k, run);
  }
}

}  // namespace tpeopt::strategies::trade_filter
