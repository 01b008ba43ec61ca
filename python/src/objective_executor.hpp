#pragma once
// The executor of a Python objective (tpeopt.optimize): evaluate() takes the GIL, hands the
// batch's parameters to the objective as a numpy array and copies its checked scores,
// violations and metrics into the BatchResult. It runs on the pipeline's executor thread
// (the calling thread in serial mode) while the sampler thread asks the next batch with
// the GIL released, so the objective overlaps TPE's ask as a built-in executor does.
#include <cstddef>
#include <string>

#include <nanobind/nanobind.h>

#include "engine/executor.hpp"

namespace tpeopt::python {

class ObjectiveExecutor final : public engine::Executor {
 public:
  /// `adapter(X, batch_index, first_trial)` (tpeopt/_objective.py) calls the user's objective
  /// and returns (scores, violations, metrics) as float64 arrays of n, n and n x n_metrics
  /// values, or raises, or returns None to stop the study before this batch (evaluate() then
  /// throws engine::Interrupted). Construct and destroy with the GIL held.
  ObjectiveExecutor(nanobind::object adapter, std::size_t n_metrics);

  std::string name() const override { return "python"; }
  engine::BatchResult evaluate(const engine::BatchRequest& request) override;

 private:
  nanobind::object adapter_;
  std::size_t n_metrics_;
};

}  // namespace tpeopt::python
