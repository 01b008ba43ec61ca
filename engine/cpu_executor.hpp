#pragma once
#include <memory>

#include "common/worker_pool.hpp"
#include "engine/executor.hpp"
#include "engine/param_binding.hpp"
#include "strategies/strategy.hpp"

namespace tpeopt::engine {

/// The CPU reference executor: each trial evaluated by Strategy::evaluate, trials
/// spread over a worker pool. A trial's result depends only on its parameters and the
/// data, so results are the same for every thread count and batch split.
class CpuExecutor final : public Executor {
 public:
  /// threads == 0: all hardware threads.
  CpuExecutor(const strategies::Strategy& strategy, ParamBinding binding, unsigned threads = 0);
  std::string name() const override { return "cpu"; }
  BatchResult evaluate(const BatchRequest& request) override;

 private:
  const strategies::Strategy& strategy_;
  ParamBinding binding_;
  WorkerPool pool_;
};

}  // namespace tpeopt::engine
