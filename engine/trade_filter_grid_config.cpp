// Builds a trade_filter grid from a study config (see trade_filter_grid_config.hpp).
#include "engine/trade_filter_grid_config.hpp"

#include "common/error.hpp"
#include "engine/param_binding.hpp"
#include "tpe/grid_sampler.hpp"

namespace tpeopt::engine {

namespace tf = strategies::trade_filter;

tf::TradeFilterGrid make_trade_filter_grid(const io::StudyConfig& config, const strategies::Strategy& strategy) {
  engine::ParamBinding check(strategy, config.space, config.fixed);  // names, required slots, ranges
  std::vector<std::uint64_t> radix;
  for (const auto& a : config.space.axes) {
    const std::uint64_t r = a.kind == tpe::Axis::Kind::Categorical ? a.n_choices() : a.n_steps();
    if (r == 0) throw make_error("params.{}: a grid needs a list of values or a stepped range", a.name);
    radix.push_back(r);
  }
  tpe::GridSampler sampler(config.space);
  std::array<std::vector<double>, tf::kSlots> values;
  std::array<std::uint64_t, tf::kSlots> stride{};
  const auto& names = strategy.param_names();
  const auto defaults = strategy.param_defaults();
  for (int s = 0; s < tf::kSlots; ++s) {
    const std::size_t a = config.space.find(names[s]);
    if (a != tpe::Axis::npos) {
      for (std::uint64_t i = 0; i < radix[a]; ++i) values[s].push_back(sampler.value(a, i));
      stride[s] = 1;
      for (std::size_t b = a + 1; b < radix.size(); ++b) stride[s] *= radix[b];
    } else if (auto it = config.fixed.find(names[s]); it != config.fixed.end()) {
      values[s] = {it->second};
    } else {
      values[s] = {defaults[s]};
    }
  }
  return tf::TradeFilterGrid(values, stride);
}

}  // namespace tpeopt::engine
