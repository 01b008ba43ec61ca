#include "engine/cpu_executor.hpp"

#include <atomic>

#include "common/error.hpp"
#include "engine/interrupt.hpp"

namespace tpeopt::engine {

CpuExecutor::CpuExecutor(const strategies::Strategy& strategy, ParamBinding binding, unsigned threads)
    : strategy_(strategy), binding_(std::move(binding)), pool_(threads) {}

BatchResult CpuExecutor::evaluate(const BatchRequest& request) {
  TPEOPT_ASSERT(request.n_axes == binding_.n_axes(), "request has the wrong number of axes");
  BatchResult result;
  result.timings.begin = Clock::now();
  result.batch_index = request.batch_index;
  result.first_trial = request.first_trial;
  result.n_trials = request.n_trials;
  result.n_metrics = strategy_.metric_names().size();
  result.scores.resize(request.n_trials);
  result.violations.resize(request.n_trials);
  result.metrics.resize(request.n_trials * result.n_metrics);
  // A signal abandons the batch within one trial per thread (a 4096-trial batch may take
  // minutes): the batch is not told, and a resume evaluates it again.
  std::atomic<bool> interrupted{false};
  pool_.parallel_for(request.n_trials, [&](std::size_t begin, std::size_t end) {
    std::vector<double> slots(binding_.n_slots());
    for (std::size_t i = begin; i < end; ++i) {
      if (InterruptGuard::requested()) {
        interrupted.store(true, std::memory_order_relaxed);
        return;
      }
      binding_.fill(&request.values[i * request.n_axes], slots.data());
      const auto s = strategy_.evaluate(slots.data(), result.metrics.data() + i * result.n_metrics);
      result.scores[i] = s.score;
      result.violations[i] = s.violation;
    }
  });
  if (interrupted.load()) throw Interrupted{};
  result.timings.end = Clock::now();
  result.timings.busy_ms = std::chrono::duration<double, std::milli>(result.timings.end - result.timings.begin).count();
  return result;
}

}  // namespace tpeopt::engine
