// Builds a slot grid from a study config (see slot_grid_config.hpp).
#include "study/slot_grid_config.hpp"

#include "common/error.hpp"
#include "engine/param_binding.hpp"
#include "tpe/grid_sampler.hpp"

namespace tpeopt::engine {

strategies::SlotGrid make_slot_grid(const io::StudyConfig& config, const strategies::Strategy& strategy) {
  engine::ParamBinding check(strategy, config.space, config.fixed);  // names, required slots, ranges
  std::vector<std::uint64_t> radix;
  for (const auto& a : config.space.axes) {
    const std::uint64_t r = tpe::grid_points(a);
    if (r == 0) throw Error(tpe::grid_axis_error(a));
    radix.push_back(r);
  }
  tpe::GridSampler sampler(config.space);
  const auto& names = strategy.param_names();
  const auto defaults = strategy.param_defaults();
  strategies::SlotGrid grid;
  grid.values.resize(names.size());
  grid.stride.assign(names.size(), 0);
  for (std::size_t s = 0; s < names.size(); ++s) {
    const std::size_t a = config.space.find(names[s]);
    if (a != tpe::Axis::npos) {
      for (std::uint64_t i = 0; i < radix[a]; ++i) grid.values[s].push_back(sampler.value(a, i));
      grid.stride[s] = 1;
      for (std::size_t b = a + 1; b < radix.size(); ++b) grid.stride[s] *= radix[b];
    } else if (auto it = config.fixed.find(names[s]); it != config.fixed.end()) {
      grid.values[s] = {it->second};
    } else {
      grid.values[s] = {defaults[s]};
    }
  }
  return grid;
}

}  // namespace tpeopt::engine
