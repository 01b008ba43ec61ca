#pragma once
// The atoms of a candle data set for data subsets (Strategy::n_atoms, docs/strategies.md, "Data subsets"): the
// distinct bar times of all its symbols, in increasing order. A part of the data, a list of
// atom ranges, is a time span per range; each symbol keeps its bars inside the spans, as
// blocks of its own bars (strategies/bar_block.hpp). One series' atoms are its bars, so its
// blocks are the ranges themselves. Symbols of different lengths and dates are cut at the
// same times: a hold-out keeps the last part of the calendar out of sample for every symbol.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/candles.hpp"
#include "strategies/bar_block.hpp"
#include "strategies/strategy.hpp"

namespace tpeopt::strategies {

class CandleAtoms {
 public:
  CandleAtoms() = default;
  explicit CandleAtoms(const CandleSet& set);

  std::size_t size() const { return times_ms_.size(); }
  /// Atom k's time, seconds since 1970 (UTC; floor of the bar's milliseconds).
  std::int64_t time_s(std::size_t k) const;
  /// Symbol s's bars inside `ranges` (increasing, disjoint), one block per range that holds
  /// any, in time order; empty when the symbol has no bar in them.
  std::vector<BarBlock> blocks(std::size_t symbol, const std::vector<AtomRange>& ranges) const;
  /// Symbol s's first bar at or after atom a's time (its bar count for a == size()).
  std::size_t first_bar(std::size_t symbol, std::size_t atom) const;

 private:
  std::vector<std::int64_t> times_ms_;              ///< distinct bar times, increasing
  std::vector<std::vector<std::int64_t>> symbols_;  ///< each symbol's bar times
};

}  // namespace tpeopt::strategies
