#pragma once
// A config's parameters as strategies/params.hpp checks them: each search axis with the
// range of values it can take, then each fixed number. Header-only: the config loader and
// the engine's parameter binding list them the same way.
#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "strategies/params.hpp"
#include "tpe/search_space.hpp"

namespace tpeopt::io {

inline std::vector<strategies::GivenParam> given_params(const tpe::SearchSpace& space,
                                                        const std::map<std::string, double>& fixed) {
  std::vector<strategies::GivenParam> out;
  for (const auto& axis : space.axes) {
    double low = axis.low, high = axis.high;
    if (axis.kind == tpe::Axis::Kind::Categorical) {
      low = HUGE_VAL;
      high = -HUGE_VAL;
      for (double c : axis.choices) low = std::min(low, c), high = std::max(high, c);
    }
    out.push_back({axis.name, low, high});
  }
  for (const auto& [name, value] : fixed) out.push_back({name, value, value});
  return out;
}

}  // namespace tpeopt::io
