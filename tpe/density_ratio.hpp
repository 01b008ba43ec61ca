#pragma once
// Batch TPE's acquisition: log l(x) - log g(x) as a sum over axes (docs/tpe.md, "Batch TPE",
// "Screening"), tabulated once per ask and read by every candidate of the batch.
//
// Per numeric axis, l is the good trials' weighted Gaussian kernels and g the recent other
// trials' equal-weight kernels, both with the good set's Scott bandwidth h on that axis and
// each mixed with a uniform prior (weight 1 / (count + 1)). Both are tabulated on nodes
// h / 4 apart (at most 4096 cells) over the window [min - 6h, max + 6h] of the good trials'
// values, clipped to [0, 1], by linear binning and a Gaussian filter; a value is scored by
// linear interpolation. Outside the window l is its prior alone and g its prior plus a
// 64-bin histogram of the other trials. Categorical axes use l's choice probabilities
// (GoodSetModel) against the other trials' choice frequencies with the same prior.
#include <cstddef>
#include <vector>

#include "common/worker_pool.hpp"
#include "tpe/good_pool.hpp"
#include "tpe/good_set_model.hpp"
#include "tpe/unit_space.hpp"

namespace tpeopt::tpe {

class DensityRatio {
 public:
  /// g is built from the pool's recent trials that are not among the good set's size()
  /// best. Tables are built in parallel over axes on `pool_threads`.
  DensityRatio(const UnitSpace& space, const GoodSetModel& model, const GoodPool& pool, WorkerPool& workers);

  /// sum over axes of log l - log g at codes.
  double score(const double* codes) const;

 private:
  struct AxisTable {
    double low = 0.0, cell = 0.0;   // window start and node spacing (0: a single node)
    std::vector<double> node;       // log l - log g at the nodes
    double outside_l = 0.0;         // log l outside the window (its prior)
    std::vector<double> outside_g;  // log g outside the window, per histogram bin
    std::vector<double> choice;     // categorical: log l - log g per choice
  };
  void build_numeric(std::size_t c, const GoodSetModel& model, const std::vector<const double*>& others,
                     AxisTable& t) const;

  const UnitSpace* space_;
  std::vector<AxisTable> tables_;
};

}  // namespace tpeopt::tpe
