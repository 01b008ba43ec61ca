#include "strategies/exact_grid.hpp"

namespace tpeopt::strategies {

std::uint64_t SlotGrid::size() const {
  std::uint64_t n = 1;
  for (const auto& v : values) n *= v.size();
  return n;
}

void SlotGrid::slots_of(std::uint64_t combination, double* slots) const {
  for (std::size_t s = 0; s < values.size(); ++s) {
    const std::uint64_t radix = values[s].size();
    slots[s] = values[s][radix == 1 ? 0 : (combination / stride[s]) % radix];
  }
}

}  // namespace tpeopt::strategies
