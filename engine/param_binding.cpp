#include "engine/param_binding.hpp"

#include <cmath>

#include <fmt/ranges.h>

#include "common/error.hpp"

namespace tpeopt::engine {

ParamBinding::ParamBinding(const strategies::Strategy& strategy, const tpe::SearchSpace& space,
                           const std::map<std::string, double>& fixed)
    : n_axes_(space.size()) {
  const auto& names = strategy.param_names();
  const auto defaults = strategy.param_defaults();
  auto is_slot = [&](const std::string& n) { return std::find(names.begin(), names.end(), n) != names.end(); };
  for (const auto& axis : space.axes)
    if (!is_slot(axis.name))
      throw make_error("params.{}: not a parameter of strategy {} (its parameters: {})", axis.name, strategy.name(),
                       fmt::join(names, ", "));
  for (const auto& [name, value] : fixed)
    if (!is_slot(name))
      throw make_error("params.{}: not a parameter of strategy {} (its parameters: {})", name, strategy.name(),
                       fmt::join(names, ", "));

  source_axis_.assign(names.size(), kConstant);
  constant_.assign(names.size(), NAN);
  for (std::size_t s = 0; s < names.size(); ++s) {
    const std::size_t a = space.find(names[s]);
    if (a != tpe::Axis::npos) {
      source_axis_[s] = a;
      const auto& axis = space.axes[a];
      double low = axis.low, high = axis.high;
      if (axis.kind == tpe::Axis::Kind::Categorical) {
        low = HUGE_VAL;
        high = -HUGE_VAL;
        for (double c : axis.choices) low = std::min(low, c), high = std::max(high, c);
      }
      strategy.check_param_range(s, low, high);
    } else if (auto it = fixed.find(names[s]); it != fixed.end()) {
      constant_[s] = it->second;
      strategy.check_param_range(s, it->second, it->second);
    } else if (s < defaults.size() && !std::isnan(defaults[s])) {
      constant_[s] = defaults[s];
    } else {
      throw make_error("params.{}: required by strategy {} but not given (a range, a list of values or a number)",
                       names[s], strategy.name());
    }
  }
}

}  // namespace tpeopt::engine
