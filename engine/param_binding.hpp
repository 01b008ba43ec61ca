#pragma once
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "strategies/strategy.hpp"
#include "tpe/search_space.hpp"

namespace tpeopt::engine {

/// Maps a trial's axis values (the sampler's columns) and the config's fixed values
/// onto a strategy's parameter slots. Built once per study; fill() is thread-safe.
class ParamBinding {
 public:
  /// Throws tpeopt::Error naming the key when a config parameter is not one of the
  /// strategy's, a required slot is missing, or an axis' range is invalid for its slot.
  ParamBinding(const strategies::Strategy& strategy, const tpe::SearchSpace& space,
               const std::map<std::string, double>& fixed);

  std::size_t n_slots() const { return source_axis_.size(); }
  std::size_t n_axes() const { return n_axes_; }

  /// slots[s] = axis value or constant, for s in [0, n_slots()).
  void fill(const double* axis_values, double* slots) const {
    for (std::size_t s = 0; s < source_axis_.size(); ++s)
      slots[s] = source_axis_[s] == kConstant ? constant_[s] : axis_values[source_axis_[s]];
  }

 private:
  static constexpr std::size_t kConstant = static_cast<std::size_t>(-1);
  std::size_t n_axes_ = 0;
  std::vector<std::size_t> source_axis_;
  std::vector<double> constant_;
};

}  // namespace tpeopt::engine
