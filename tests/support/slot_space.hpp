#pragma once
// A search space whose axes are a strategy's parameter slots, in slot order, so that a
// request's values are the slots themselves (tests and benchmarks that feed executors raw
// slot rows).
#include <array>
#include <stdexcept>
#include <vector>

#include "strategies/strategy.hpp"
#include "tpe/search_space.hpp"

namespace tpeopt::testing {

/// One axis per slot of `s`, with bounds[k] as slot k's [low, high] (wide enough for the rows fed).
inline tpe::SearchSpace slot_space(const strategies::Strategy& s, const std::vector<std::array<double, 2>>& bounds) {
  if (bounds.size() != s.param_names().size()) throw std::invalid_argument("slot_space: one [low, high] per slot");
  tpe::SearchSpace space;
  for (std::size_t k = 0; k < s.param_names().size(); ++k) {
    tpe::Axis a;
    a.name = s.param_names()[k];
    a.low = bounds[k][0];
    a.high = bounds[k][1];
    space.axes.push_back(a);
  }
  return space;
}

}  // namespace tpeopt::testing
