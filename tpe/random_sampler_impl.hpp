#pragma once
// Template body of sample_uniform (included by random_sampler.hpp).
#include <cmath>

#include <boost/random/uniform_int_distribution.hpp>
#include <boost/random/uniform_real_distribution.hpp>

namespace tpeopt::tpe {

template <typename Engine>
double sample_uniform(const Axis& axis, Engine& engine) {
  using boost::random::uniform_int_distribution;
  using boost::random::uniform_real_distribution;
  switch (axis.kind) {
    case Axis::Kind::Categorical: {
      uniform_int_distribution<std::size_t> pick(0, axis.n_choices() - 1);
      return axis.choice_value(pick(engine));
    }
    case Axis::Kind::Int:
    case Axis::Kind::Float:
      // A single-valued range has its value and takes no draw: boost's uniform_real_distribution
      // over [a, a] never returns (it redraws until a value falls below its upper bound), and
      // a one-point uniform_int_distribution takes no draw either.
      if (axis.low == axis.high) return axis.low;
      if (axis.log) {
        uniform_real_distribution<double> u(std::log(axis.low), std::log(axis.high));
        return axis.snap(std::exp(u(engine)));
      }
      if (axis.step > 0.0) {
        uniform_int_distribution<std::uint64_t> pick(0, axis.n_steps() - 1);
        return axis.snap(axis.low + static_cast<double>(pick(engine)) * axis.step);
      }
      return uniform_real_distribution<double>(axis.low, axis.high)(engine);
  }
  return axis.low;
}

}  // namespace tpeopt::tpe
