#pragma once
// engine/: the pipeline (docs/design.md, "Pipeline protocol"). Messages between the sampler thread
// and the executor thread: plain movable structs.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>
#include <vector>

namespace tpeopt::engine {

using Clock = std::chrono::steady_clock;

/// A batch of trials to evaluate: trials first_trial .. first_trial + n_trials - 1.
struct BatchRequest {
  std::uint64_t batch_index = 0;
  std::uint64_t first_trial = 0;
  std::size_t n_trials = 0;
  std::size_t n_axes = 0;
  std::vector<double> values;  ///< n_trials x n_axes, row-major: the sampler's external values
};

/// When and for how long the executor worked on one batch, on the host's steady clock.
/// For the CUDA executor, begin/end are the device events mapped onto the host clock
/// and busy_ms is measured with device events.
struct ExecutorTimings {
  Clock::time_point begin{};
  Clock::time_point end{};
  double busy_ms = 0.0;
  /// Device occupancy (strategies/device/occupancy.hpp): SM-ms in which an SM ran a block of the batch,
  /// and n_SMs x the span of the batch's kernels. Both 0 when not measured (the CPU
  /// executor; a strategy whose kernels carry no probe). Batches split over rungs or
  /// devices add both.
  double sm_busy_ms = 0.0, sm_span_ms = 0.0;
  /// n_SMs x the part of the batch's kernel span that earlier batches' spans on the same device
  /// did not cover (strategies/device/occupancy.hpp, uncovered_span_ns): summed over a run, the
  /// SM time of the union of the spans, the denominator of the run's device occupancy (batches
  /// on several streams overlap; sm_span_ms would count that time twice). Batches split over
  /// rungs or devices add it.
  double sm_new_span_ms = 0.0;
  /// SM-ms in which an SM ran a block of any batch of the device (strategies/device/occupancy.hpp,
  /// DeviceProbeLayout), counted since the last batch that completed with no other batch
  /// running (0 for a batch that completes while another runs: its time is counted at the next
  /// such batch). Summed over a run: the numerator of the run's device occupancy.
  double sm_union_busy_ms = 0.0;
};

/// The outcome of a BatchRequest, in trial order.
struct BatchResult {
  std::uint64_t batch_index = 0;
  std::uint64_t first_trial = 0;
  std::size_t n_trials = 0;
  std::vector<double> scores;      ///< NaN = failed trial
  std::vector<double> violations;  ///< 0 = feasible
  std::size_t n_metrics = 0;
  std::vector<double> metrics;  ///< n_trials x n_metrics, row-major
  /// Successive halving (engine/halving_executor.hpp); empty when the run does not halve.
  /// rung[i]: the last rung trial i was evaluated on; a trial with rung[i] < n_rungs - 1
  /// was pruned there, and its score, violation and metrics are that rung's.
  std::vector<std::int32_t> rung;
  std::int32_t n_rungs = 0;
  ExecutorTimings timings;

  /// Whether trial i was pruned by successive halving (false when the run does not halve).
  bool pruned(std::size_t i) const { return !rung.empty() && rung[i] + 1 < n_rungs; }
};

/// Sampler -> executor. (A plain struct rather than a std::variant: GCC 12 warns
/// falsely about variant moves through the queue.)
struct ToExecutor {
  enum class Kind {
    Batch,        ///< evaluate `request`
    EndOfStream,  ///< no more requests: finish what is in flight, then stop
    StopNow,      ///< the sampler failed or was interrupted: stop, drop what is in flight
  };
  Kind kind = Kind::Batch;
  BatchRequest request;
};

/// Executor -> sampler: a result, or the error that ended the executor.
struct FromExecutor {
  BatchResult result;
  std::exception_ptr error;  ///< set when the executor failed; the run ends with it
};

}  // namespace tpeopt::engine
