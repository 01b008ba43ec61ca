#include "tpe/unit_space.hpp"

#include <algorithm>
#include <cmath>

namespace tpeopt::tpe {

UnitSpace::UnitSpace(const SearchSpace& space) : space_(&space) {
  for (std::size_t a = 0; a < space.size(); ++a) {
    const Axis& axis = space.axes[a];
    const ga::Gene gene = ga::Gene::of(axis);
    fixed_.push_back(gene.to_external(axis, gene.low));
    if (!gene.searched()) continue;
    axis_.push_back(a);
    genes_.push_back(gene);
    unit_step_.push_back(gene.type == ga::Gene::Type::Discrete && !gene.log ? gene.step / (gene.high - gene.low) : 0.0);
    if (gene.type != ga::Gene::Type::Categorical) numeric_.push_back(axis_.size() - 1);
  }
}

double UnitSpace::value(std::size_t c, double code) const {
  const ga::Gene& g = genes_[c];
  const Axis& axis = space_->axes[axis_[c]];
  return g.type == ga::Gene::Type::Categorical ? g.to_external(axis, code)
                                               : g.to_external(axis, g.low + code * (g.high - g.low));
}

double UnitSpace::code(std::size_t c, double value) const {
  const ga::Gene& g = genes_[c];
  if (g.type == ga::Gene::Type::Categorical) return static_cast<double>(space_->axes[axis_[c]].choice_index(value));
  return std::clamp((g.to_internal(value) - g.low) / (g.high - g.low), 0.0, 1.0);
}

void UnitSpace::to_codes(const double* external, double* codes) const {
  for (std::size_t c = 0; c < axis_.size(); ++c) codes[c] = code(c, external[axis_[c]]);
}

void UnitSpace::to_external(const double* codes, double* external) const {
  std::copy(fixed_.begin(), fixed_.end(), external);
  for (std::size_t c = 0; c < axis_.size(); ++c) external[axis_[c]] = value(c, codes[c]);
}

double UnitSpace::snap_code(std::size_t c, double u) const {
  return genes_[c].type == ga::Gene::Type::Discrete ? code(c, value(c, u)) : u;
}

}  // namespace tpeopt::tpe
