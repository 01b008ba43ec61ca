#include "strategies/candle_checksum.hpp"

#include "common/digest.hpp"

namespace tpeopt::strategies {

std::string candle_set_checksum(const CandleSet& set) {
  Digest d;
  if (set.n_symbols() != 1) {
    d.add(std::string_view("symbols"));
    d.add(static_cast<std::uint64_t>(set.n_symbols()));
  }
  for (std::size_t s = 0; s < set.n_symbols(); ++s) {
    if (set.n_symbols() != 1) d.add(std::string_view(set.symbols[s]));
    const auto b = static_cast<std::size_t>(set.offset[s]), n = static_cast<std::size_t>(set.length[s]);
    d.add(static_cast<std::uint64_t>(n));
    const Candles& c = set.bars;
    for (std::size_t i = b; i < b + n; ++i) {
      d.add(static_cast<std::uint64_t>(c.time_ms[i]));
      for (const auto* v : {&c.open, &c.high, &c.low, &c.close, &c.volume}) d.add((*v)[i]);
    }
  }
  return "candles=" + d.hex();
}

}  // namespace tpeopt::strategies
