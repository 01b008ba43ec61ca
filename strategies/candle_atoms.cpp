#include "strategies/candle_atoms.hpp"

#include <algorithm>
#include <limits>

#include "common/error.hpp"
#include "common/floor_div.hpp"

namespace tpeopt::strategies {

CandleAtoms::CandleAtoms(const CandleSet& set) {
  for (std::size_t s = 0; s < set.n_symbols(); ++s) {
    const auto b = set.bars.time_ms.begin() + static_cast<std::ptrdiff_t>(set.offset[s]);
    symbols_.emplace_back(b, b + static_cast<std::ptrdiff_t>(set.length[s]));
  }
  times_ms_ = set.bars.time_ms;
  std::sort(times_ms_.begin(), times_ms_.end());
  times_ms_.erase(std::unique(times_ms_.begin(), times_ms_.end()), times_ms_.end());
}

std::int64_t CandleAtoms::time_s(std::size_t k) const { return floor_div(times_ms_.at(k), 1000); }

std::vector<BarBlock> CandleAtoms::blocks(std::size_t symbol, const std::vector<AtomRange>& ranges) const {
  const std::vector<std::int64_t>& t = symbols_.at(symbol);
  std::vector<BarBlock> out;
  for (const AtomRange& r : ranges) {
    TPEOPT_ASSERT(r.begin <= r.end && r.end <= times_ms_.size(), "candle atoms: range outside the data");
    if (r.begin == r.end) continue;
    // The range's time span [first atom's time, next atom's time): the symbol's bars in it.
    const std::int64_t from = times_ms_[r.begin];
    const std::int64_t to = r.end < times_ms_.size() ? times_ms_[r.end] : std::numeric_limits<std::int64_t>::max();
    const auto b = std::lower_bound(t.begin(), t.end(), from) - t.begin();
    const auto e = std::lower_bound(t.begin(), t.end(), to) - t.begin();
    if (e > b) out.push_back({static_cast<int>(b), static_cast<int>(e)});
  }
  return out;
}

std::size_t CandleAtoms::first_bar(std::size_t symbol, std::size_t atom) const {
  const std::vector<std::int64_t>& t = symbols_.at(symbol);
  if (atom >= times_ms_.size()) return t.size();
  return static_cast<std::size_t>(std::lower_bound(t.begin(), t.end(), times_ms_[atom]) - t.begin());
}

}  // namespace tpeopt::strategies
