#pragma once
// A config's parameters as strategies/params.hpp checks them: each search axis with the
// range of values a sampler can propose and the values the config writes (with their keys),
// then each fixed number. Header-only: the config loader and the engine's parameter binding
// list them the same way.
#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "strategies/params.hpp"
#include "tpe/search_space.hpp"

namespace tpeopt::io {

/// An axis as a given parameter: a range gives its two ends (params.x.low, params.x.high;
/// every value a sampler proposes lies between them: steps and log scales stay inside, an
/// int axis proposes integers), a list each of its values under `list_key` ("params.x" for
/// a bare list, "params.x.values", "params.x.choices"; a list of labels gives their indices,
/// which is what the strategy reads).
inline strategies::GivenParam given_param(const tpe::Axis& axis, std::string list_key = {}) {
  strategies::GivenParam g{axis.name, axis.low, axis.high, {}};
  if (axis.kind != tpe::Axis::Kind::Categorical) {
    g.values = {{"params." + axis.name + ".low", axis.low}, {"params." + axis.name + ".high", axis.high}};
    return g;
  }
  if (list_key.empty()) list_key = "params." + axis.name + (axis.choice_labels.empty() ? ".values" : ".choices");
  g.low = HUGE_VAL;
  g.high = -HUGE_VAL;
  for (std::size_t i = 0; i < axis.choices.size(); ++i) {
    const double c = axis.choices[i];
    g.low = std::min(g.low, c);
    g.high = std::max(g.high, c);
    g.values.push_back({list_key + "[" + std::to_string(i) + "]", c});
  }
  return g;
}

inline strategies::GivenParam given_fixed(const std::string& name, double value) {
  return {name, value, value, {{"params." + name, value}}};
}

inline std::vector<strategies::GivenParam> given_params(const tpe::SearchSpace& space,
                                                        const std::map<std::string, double>& fixed) {
  std::vector<strategies::GivenParam> out;
  for (const auto& axis : space.axes) out.push_back(given_param(axis));
  for (const auto& [name, value] : fixed) out.push_back(given_fixed(name, value));
  return out;
}

}  // namespace tpeopt::io
