#include "tpe/ga_genes.hpp"

#include <algorithm>
#include <cmath>

#include <boost/random/uniform_01.hpp>
#include <boost/random/uniform_int_distribution.hpp>

#include "tpe/truncated_normal.hpp"

namespace tpeopt::tpe::ga {

namespace {

double uniform01(TrialEngine& engine) { return boost::random::uniform_01<double>()(engine); }

double to_internal_bound(double v, bool log) { return log ? std::log(v) : v; }

// The grid neighbour of a discrete value one step towards `up`, or the other way when that
// one lies outside the axis (a value on a bound can only move inwards).
double neighbour(const Axis& axis, double value, double step, bool up) {
  const double towards = value + (up ? step : -step);
  const double away = value - (up ? step : -step);
  const double slack = 0.5 * step;  // tolerate rounding in value +- step
  const bool inside = towards >= axis.low - slack && towards <= axis.high + slack;
  return axis.snap(inside ? towards : away);
}

}  // namespace

Gene Gene::of(const Axis& axis) {
  Gene g;
  if (axis.kind == Axis::Kind::Categorical) {
    g.type = axis.n_choices() > 1 ? Type::Categorical : Type::Fixed;
    g.low = 0.0;
    g.high = static_cast<double>(axis.n_choices()) - 1.0;
    return g;
  }
  if (axis.low == axis.high) return g;  // Fixed
  g.log = axis.log;
  // Int axes have step 1 (log int too: search_space.hpp); only continuous floats have none.
  const double step = axis.step > 0.0 ? axis.step : (axis.kind == Axis::Kind::Int ? 1.0 : 0.0);
  if (step > 0.0) {
    g.type = Type::Discrete;
    g.step = step;
    g.low = to_internal_bound(axis.low - 0.5 * step, g.log);
    g.high = to_internal_bound(axis.high + 0.5 * step, g.log);
  } else {
    g.type = Type::Continuous;
    g.low = to_internal_bound(axis.low, g.log);
    g.high = to_internal_bound(axis.high, g.log);
  }
  return g;
}

double Gene::to_internal(double external) const { return log ? std::log(external) : external; }

double Gene::to_external(const Axis& axis, double x) const {
  switch (type) {
    case Type::Fixed:
      return axis.kind == Axis::Kind::Categorical ? axis.choice_value(0) : axis.low;
    case Type::Categorical:  // x is a choice index
      return axis.choice_value(static_cast<std::size_t>(std::clamp(std::round(x), low, high)));
    case Type::Continuous:
    case Type::Discrete:
      return axis.snap(log ? std::exp(x) : x);  // snap rounds to the grid and clamps to [low, high]
  }
  return axis.low;
}

double reflect_into(double x, double low, double high) {
  const double width = high - low;
  if (!(width > 0.0)) return low;
  double y = std::fmod(x - low, 2.0 * width);
  if (y < 0.0) y += 2.0 * width;
  if (y > width) y = 2.0 * width - y;
  return std::clamp(low + y, low, high);
}

double mutate(const Gene& gene, const Axis& axis, double value, double scale, TrialEngine& engine) {
  switch (gene.type) {
    case Gene::Type::Fixed:
      return value;
    case Gene::Type::Categorical: {
      // One of the other choices, uniformly: pick among n - 1 and skip the current one.
      const std::size_t n = axis.n_choices();
      const std::size_t current = axis.choice_index(value);
      std::size_t pick = boost::random::uniform_int_distribution<std::size_t>(0, n - 2)(engine);
      if (current != Axis::npos && pick >= current) ++pick;
      return axis.choice_value(pick);
    }
    case Gene::Type::Continuous:
    case Gene::Type::Discrete: {
      // x + sigma z with z a standard normal truncated so that the result stays in range:
      // no mass piles up on the bounds, unlike clamping.
      const double x = gene.to_internal(value);
      const double sigma = scale * (gene.high - gene.low);
      const double z = truncnorm::ppf(uniform01(engine), (gene.low - x) / sigma, (gene.high - x) / sigma);
      const double moved = std::clamp(x + sigma * z, gene.low, gene.high);
      const double result = gene.to_external(axis, moved);
      // A small sigma on a coarse grid would often round back: a mutated gene always changes.
      if (gene.type == Gene::Type::Discrete && result == value) return neighbour(axis, value, gene.step, moved >= x);
      return result;
    }
  }
  return value;
}

double blend(const Gene& gene, const Axis& axis, double a, double b, double alpha, TrialEngine& engine) {
  const double u = uniform01(engine);
  if (a == b || gene.type == Gene::Type::Fixed) return a;
  if (gene.type == Gene::Type::Categorical) return u < 0.5 ? a : b;
  const double x = gene.to_internal(a), y = gene.to_internal(b);
  const double lo = std::min(x, y), hi = std::max(x, y), spread = alpha * (hi - lo);
  const double c = (lo - spread) + u * ((hi + spread) - (lo - spread));
  return gene.to_external(axis, reflect_into(c, gene.low, gene.high));
}

}  // namespace tpeopt::tpe::ga
