#include "tpe/grid_sampler.hpp"

#include <fmt/format.h>

#include "common/error.hpp"

namespace tpeopt::tpe {

std::uint64_t grid_points(const Axis& a) {
  if (a.kind == Axis::Kind::Categorical) return a.n_choices();
  // A range with low == high is one point, stepped or not (what every other sampler gives it).
  return a.low == a.high ? 1 : a.n_steps();
}

std::string grid_axis_error(const Axis& a) {
  return fmt::format("params.{}: a grid needs a list of values or a stepped range", a.name);
}

GridSampler::GridSampler(SearchSpace space) : space_(std::move(space)) {
  for (const auto& a : space_.axes) {
    const std::uint64_t r = grid_points(a);
    if (r == 0) throw Error(grid_axis_error(a));
    if (size_ > (std::uint64_t{1} << 62) / r)
      throw make_error("params: the grid has more than 2^62 combinations; narrow it");
    radix_.push_back(r);
    size_ *= r;
  }
}

double GridSampler::value(std::size_t a, std::uint64_t i) const {
  const Axis& axis = space_.axes[a];
  if (axis.kind == Axis::Kind::Categorical) return axis.choice_value(i);
  return axis.snap(axis.low + static_cast<double>(i) * axis.step);
}

void GridSampler::ask(std::uint64_t first_trial, std::size_t n, double* out) {
  const std::size_t d = space_.size();
  for (std::size_t t = 0; t < n; ++t) {
    std::uint64_t rest = first_trial + t;
    if (rest >= size_) throw make_error("search: trial {} is beyond the grid's {} combinations", rest, size_);
    for (std::size_t a = d; a-- > 0;) {
      out[t * d + a] = value(a, rest % radix_[a]);
      rest /= radix_[a];
    }
  }
}

}  // namespace tpeopt::tpe
