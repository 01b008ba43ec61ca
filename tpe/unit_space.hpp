#pragma once
// The coordinates batch TPE models a trial in (docs/tpe.md, "Batch TPE"): one code per
// searched axis (an axis with more than one value). A numeric axis' code is its unit
// coordinate, TPE's internal value (log space for log axes, the range widened by half a step
// for stepped ones; tpe/ga_genes.hpp) scaled to [0, 1]; a categorical axis' code is the
// index of its choice. Single-valued axes have no code and always take their value.
#include <cstddef>
#include <vector>

#include "tpe/ga_genes.hpp"
#include "tpe/search_space.hpp"

namespace tpeopt::tpe {

class UnitSpace {
 public:
  explicit UnitSpace(const SearchSpace& space);

  /// Searched axes: the axis index of code c, and whether it is categorical.
  std::size_t n_codes() const { return axis_.size(); }
  std::size_t axis(std::size_t c) const { return axis_[c]; }
  bool categorical(std::size_t c) const { return genes_[c].type == ga::Gene::Type::Categorical; }
  /// The numeric codes (not categorical), in code order: what the joint kernel and the evolve
  /// operator's distribution draw.
  const std::vector<std::size_t>& numeric_codes() const { return numeric_; }
  const ga::Gene& gene(std::size_t c) const { return genes_[c]; }
  /// Numeric codes: the unit distance between neighbouring grid values (0: continuous or log).
  double unit_step(std::size_t c) const { return unit_step_[c]; }
  std::size_t n_choices(std::size_t c) const { return space_->axes[axis_[c]].n_choices(); }

  /// Codes of one trial's external values (row of space.size() values).
  void to_codes(const double* external, double* codes) const;
  /// External values of one trial from its codes: numeric codes are snapped to their axis
  /// (rounded to the grid, clamped), single-valued axes take their value.
  void to_external(const double* codes, double* external) const;
  /// One code's axis value, and back.
  double value(std::size_t c, double code) const;
  double code(std::size_t c, double value) const;
  const Axis& axis_of(std::size_t c) const { return space_->axes[axis_[c]]; }

  /// The unit code of the axis value nearest to unit coordinate u (its grid point's code for
  /// stepped axes), so that what is scored is what is proposed.
  double snap_code(std::size_t c, double u) const;

 private:
  const SearchSpace* space_;
  std::vector<std::size_t> axis_;
  std::vector<ga::Gene> genes_;
  std::vector<double> unit_step_;
  std::vector<double> fixed_;  // per axis: the value of a single-valued axis
  std::vector<std::size_t> numeric_;
};

}  // namespace tpeopt::tpe
