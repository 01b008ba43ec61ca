#include "engine/param_binding.hpp"

#include <cmath>

#include "config/given_params.hpp"

namespace tpeopt::engine {

ParamBinding::ParamBinding(const strategies::Strategy& strategy, const tpe::SearchSpace& space,
                           const std::map<std::string, double>& fixed)
    : n_axes_(space.size()) {
  const strategies::ParamList& slots = strategy.params();
  strategies::check_given_params(slots, io::given_params(space, fixed), strategy.name());
  source_axis_.assign(slots.size(), kConstant);
  constant_.assign(slots.size(), NAN);
  for (std::size_t s = 0; s < slots.size(); ++s) {
    const std::size_t a = space.find(slots[s].name);
    if (a != tpe::Axis::npos) source_axis_[s] = a;
    else if (auto it = fixed.find(slots[s].name); it != fixed.end()) constant_[s] = it->second;
    else constant_[s] = slots[s].fallback;  // check_given_params: not NaN
  }
}

}  // namespace tpeopt::engine
