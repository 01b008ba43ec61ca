#pragma once
#include <cstdint>
#include <string>

#include "tpe/sampler.hpp"
#include "tpe/search_space.hpp"

namespace tpeopt::tpe {

/// How many values a grid takes on axis `a`: a values list's or a categorical's choices,
/// a stepped range's points, 1 for a range with low == high; 0 for a continuous range,
/// which no grid can enumerate.
std::uint64_t grid_points(const Axis& a);

/// The one message for an axis a grid cannot enumerate (config checks and samplers alike).
std::string grid_axis_error(const Axis& a);

/// Exhaustive search: trial t is combination t of the cartesian product of the axes'
/// values (a values list, a categorical's choices, or a stepped range's grid points),
/// in the order the axes are written, the last axis fastest. Needs no memory per
/// combination, so grids of 1e10 combinations and more are fine.
class GridSampler final : public Sampler {
 public:
  explicit GridSampler(SearchSpace space);
  std::string name() const override { return "grid"; }
  void ask(std::uint64_t first_trial, std::size_t n, double* out) override;
  void tell(std::uint64_t, std::span<const TrialOutcome>) override {}

  /// Number of combinations (throws if it overflows 2^63).
  std::uint64_t size() const { return size_; }
  /// Values of axis a at grid position i.
  double value(std::size_t a, std::uint64_t i) const;

 private:
  SearchSpace space_;
  std::vector<std::uint64_t> radix_;
  std::uint64_t size_ = 1;
};

}  // namespace tpeopt::tpe
