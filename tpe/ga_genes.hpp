#pragma once
// The genetic sampler's per-parameter operators (docs/samplers.md, "Mutation" and
// "Crossover"): each axis is moved in the internal coordinate where its values are evenly
// spread (log space for log axes, a range widened by half a step for stepped axes, as in
// TPE's internal space of docs/tpe.md), and the result is mapped back onto the axis'
// domain, so a child's value is always one the axis allows.
#include "tpe/search_space.hpp"
#include "tpe/trial_rng.hpp"

namespace tpeopt::tpe::ga {

/// How one axis is moved.
struct Gene {
  enum class Type {
    Fixed,        ///< a single value (low == high, one choice): never changed
    Continuous,   ///< float, log float
    Discrete,     ///< int, stepped float, log int: continuous moves snapped to the grid
    Categorical,  ///< two or more choices
  };
  Type type = Type::Fixed;
  bool log = false;
  double low = 0.0, high = 0.0;  ///< internal range (discrete: widened by half a step each side)
  double step = 0.0;             ///< discrete: the external distance between neighbours

  static Gene of(const Axis& axis);
  bool searched() const { return type != Type::Fixed; }
  /// Numeric genes: the internal coordinate of an external value (log for log axes).
  double to_internal(double external) const;
  /// The axis' value nearest to internal coordinate x (clamped, snapped to the grid;
  /// for categoricals x is a choice index).
  double to_external(const Axis& axis, double x) const;
};

/// Gaussian mutation of one value: internal x moves by N(0, sigma) truncated to the internal
/// range, sigma = scale * (internal range). A discrete value that snaps back onto itself
/// moves one step instead (towards the draw, or away from the bound it sits on); a
/// categorical takes one of its other choices uniformly.
double mutate(const Gene& gene, const Axis& axis, double value, double scale, TrialEngine& engine);

/// Blend crossover (BLX-alpha) of two parents' values: uniform over the parents' internal
/// interval widened by alpha times its length on each side, reflected into the internal
/// range. Categoricals take either parent's choice with probability 1/2. Equal parents give
/// that value unchanged (after the same one uniform draw, so draw counts do not depend on it).
double blend(const Gene& gene, const Axis& axis, double a, double b, double alpha, TrialEngine& engine);

/// x folded into [low, high] by reflection at the bounds (period 2 (high - low)).
double reflect_into(double x, double low, double high);

}  // namespace tpeopt::tpe::ga
