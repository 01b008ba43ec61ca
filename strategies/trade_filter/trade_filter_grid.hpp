#pragma once
// Exhaustive search of the trade_filter strategy over a grid of values: the layout of
// the grid (TPEOPT_HD: the CUDA kernels decode combinations from their index with it)
// and the CPU search. The GPU twin is trade_filter_grid_device.hpp.
//
// Combination order: the config's axes, last one fastest (tpe/grid_sampler.hpp's
// order); a combination's parameters are computed from its index, never stored.
//
// The cell method (exact): the outcome of a trade depends only on (target, stop), and
// a trade is kept by a combination of minimums exactly when, on every filter axis, its
// cell coordinate (trade_filter.hpp: cell_coordinate) exceeds the number `lo` of the
// axis' values strictly below the combination's value. So for each (target, stop)
// pair, adding each trade's q(outcome) to its cell and taking the 5-D suffix sum gives
// every filter combination's score in one lookup: trades + cells work instead of
// combinations x trades. Sums are int64, so the result is exact.
#include <array>
#include <cstdint>
#include <vector>

#include "common/hd.hpp"
#include "strategies/exact_grid.hpp"
#include "strategies/trade_filter/trade_filter.hpp"

namespace tpeopt::strategies {
class TradeFilterStrategy;
}

namespace tpeopt::strategies::trade_filter {

/// The grid's shape, shared by host and device code.
struct GridLayout {
  std::uint64_t size = 1;             ///< combinations
  std::uint64_t stride[kSlots] = {};  ///< combination-index stride of each slot (1 when radix is 1)
  std::uint32_t radix[kSlots] = {};   ///< number of values of each slot
  std::uint32_t offset[kSlots] = {};  ///< slot s's values are values[offset[s] .. offset[s] + radix[s])
  // cell method
  std::uint64_t cell_stride[kFilterSlots] = {};  ///< cell table strides (dims radix + 1, slot 0 slowest)
  std::uint64_t n_cells = 1;
  std::uint64_t n_filter = 1;           ///< filter combinations per (target, stop) pair
  int filter_order[kFilterSlots] = {};  ///< filter slots by decreasing stride (enumeration order)
};

/// Value index of slot s in combination `combo`.
TPEOPT_HD_INLINE std::uint32_t grid_index(const GridLayout& g, int s, std::uint64_t combo) {
  return static_cast<std::uint32_t>((combo / g.stride[s]) % g.radix[s]);
}

/// The float32 parameters of combination `combo`.
TPEOPT_HD_INLINE Params grid_params(const GridLayout& g, const float* fvalues, std::uint64_t combo) {
  Params p;
  for (int s = 0; s < kFilterSlots; ++s) p.min[s] = fvalues[g.offset[s] + grid_index(g, s, combo)];
  p.target = fvalues[g.offset[kTargetPct] + grid_index(g, kTargetPct, combo)];
  p.stop = fvalues[g.offset[kStopPct] + grid_index(g, kStopPct, combo)];
  return p;
}

/// Number of (target, stop) pairs; pair = target index * radix[stop] + stop index.
TPEOPT_HD_INLINE std::uint64_t grid_pairs(const GridLayout& g) {
  return static_cast<std::uint64_t>(g.radix[kTargetPct]) * g.radix[kStopPct];
}

/// The combination index of filter combination f (in [0, n_filter)) of pair `pair`,
/// and its cell (the suffix-sum entry that scores it). Increasing f gives increasing
/// combination indices within one pair.
TPEOPT_HD_INLINE std::uint64_t grid_filter_combo(const GridLayout& g, const std::uint32_t* lo, std::uint64_t pair,
                                                 std::uint64_t f, std::uint64_t* cell) {
  const std::uint64_t it = pair / g.radix[kStopPct], is = pair % g.radix[kStopPct];
  std::uint64_t combo = it * g.stride[kTargetPct] + is * g.stride[kStopPct];
  std::uint64_t c = 0;
  for (int j = kFilterSlots - 1; j >= 0; --j) {
    const int s = g.filter_order[j];
    const std::uint64_t idx = f % g.radix[s];
    f /= g.radix[s];
    combo += idx * g.stride[s];
    c += (lo[g.offset[s] + idx] + 1) * g.cell_stride[s];
  }
  *cell = c;
  return combo;
}

/// The pair and the cell (the suffix-sum entry that scores it) of combination `combo`.
TPEOPT_HD_INLINE std::uint64_t grid_combo_cell(const GridLayout& g, const std::uint32_t* lo, std::uint64_t combo,
                                               std::uint64_t* pair) {
  std::uint64_t c = 0;
  for (int s = 0; s < kFilterSlots; ++s) c += (lo[g.offset[s] + grid_index(g, s, combo)] + 1) * g.cell_stride[s];
  *pair = std::uint64_t{grid_index(g, kTargetPct, combo)} * g.radix[kStopPct] + grid_index(g, kStopPct, combo);
  return c;
}

/// Trade i's cell (its coordinates on the five filter axes).
TPEOPT_HD_INLINE std::uint64_t grid_trade_cell(const GridLayout& g, const float* fvalues, const TradeArrays& a,
                                               std::uint64_t i) {
  std::uint64_t c = 0;
  for (int s = 0; s < kFilterSlots; ++s)
    c += cell_coordinate(fvalues + g.offset[s], g.radix[s], a.metric[s][i]) * g.cell_stride[s];
  return c;
}

/// The fixed-point totals of one trial by record bisection (exact; the same as the
/// linear walk of TradeFilterStrategy::evaluate).
TPEOPT_HD_INLINE Tally tally_trades(const TradeArrays& a, const Params& p, std::uint64_t begin, std::uint64_t end) {
  Tally t;
  for (std::uint64_t i = begin; i < end; ++i)
    if (trade_kept(a, i, p)) tally_add(t, trade_outcome_q(a, i, p.target, p.stop));
  return t;
}

/// One entry of a grid's top K. Entries are ordered by (key, combination).
struct GridHit {
  std::uint64_t key = 0;          ///< rank_key: smaller is better
  std::uint64_t combination = 0;  ///< combination index
  friend bool operator<(const GridHit& a, const GridHit& b) {
    return a.key != b.key ? a.key < b.key : a.combination < b.combination;
  }
  friend bool operator==(const GridHit& a, const GridHit& b) = default;
};

/// A grid in the strategy's slots, built from per-slot value lists.
class TradeFilterGrid {
 public:
  /// values[s]: slot s's values in grid order (one value for a fixed slot);
  /// stride[s]: the combination-index stride of slot s (any value when it has one value).
  /// Throws Error when the grid has no combination or a slot no value.
  TradeFilterGrid(std::array<std::vector<double>, kSlots> values, std::array<std::uint64_t, kSlots> stride);

  const GridLayout& layout() const { return layout_; }
  std::uint64_t size() const { return layout_.size; }
  const std::vector<double>& values() const { return values_; }
  const std::vector<float>& fvalues() const { return fvalues_; }
  /// lo of each filter value (same offsets as values; 0 for target/stop slots).
  const std::vector<std::uint32_t>& lo() const { return lo_; }
  /// The (double) parameter slots of combination `combo`.
  void slots_of(std::uint64_t combo, double* slots) const;

 private:
  GridLayout layout_;
  std::vector<double> values_;
  std::vector<float> fvalues_;
  std::vector<std::uint32_t> lo_;
};

/// Keeps the best K hits by (key, combination); deterministic whatever the insertion order.
class TopK {
 public:
  explicit TopK(std::size_t k) : k_(k) {}
  void add(const GridHit& h);
  /// Best first.
  std::vector<GridHit> sorted() const;

 private:
  std::size_t k_;
  std::vector<GridHit> heap_;  // max-heap on operator<
};

/// The settings of a search (strategies/exact_grid.hpp: the registry's exact grid).
using GridSearchSettings = ::tpeopt::strategies::GridSearchSettings;

struct GridSearchOutcome {
  std::vector<GridHit> top;    ///< best first
  std::vector<Tally> tallies;  ///< the totals of each top entry (score, kept, wins, losses)
  const char* method = "";     ///< "cells", "cells by pair" or "direct"
};

/// The CPU grid search: the cell method when its tables fit the budget, else every
/// combination by record bisection. Both exact; the top K is the same either way.
GridSearchOutcome grid_search_cpu(const TradeFilterStrategy& strategy, const TradeFilterGrid& grid,
                                  const GridSearchSettings& settings);

/// Bytes of the cell tables for `pairs` (target, stop) pairs at once.
inline std::size_t cell_table_bytes(const GridLayout& g, std::uint64_t pairs) {
  return static_cast<std::size_t>(g.n_cells) * 8 * (pairs + 1);
}

}  // namespace tpeopt::strategies::trade_filter
