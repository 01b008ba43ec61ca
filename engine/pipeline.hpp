#pragma once
// The ask/evaluate/tell schedule of docs/design.md, "Pipeline protocol", run pipelined (a sampler
// thread and an executor thread, D batches in flight) or serially (one thread, the
// very same schedule). Both give the same trials and scores bit for bit.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/batch_timings.hpp"
#include "engine/executor.hpp"
#include "engine/messages.hpp"
#include "tpe/sampler.hpp"

namespace tpeopt::engine {

/// Receives each batch once it is told, in batch order, on the sampler thread.
/// Throwing from on_batch stops the run with that error. Batch k is seen after ask(k+D)
/// was sent to the executor (docs/design.md, "Pipeline protocol").
class BatchObserver {
 public:
  virtual ~BatchObserver() = default;
  virtual void on_batch(const BatchRequest& request, const BatchResult& result, const BatchTimings& timings) = 0;
  /// Polled between batches on the sampler thread: true stops the run after the
  /// batch just told (batches in flight are dropped). Used for SIGINT handling.
  virtual bool stop_requested() { return false; }
};

/// A batch already evaluated in an earlier process (from the journal): its parameter
/// values and its result, replayed through adopt()/tell() instead of ask()/evaluate.
struct ReplayedBatch {
  BatchRequest request;
  BatchResult result;
};

struct PipelineSettings {
  std::uint64_t n_trials = 0;
  std::size_t batch_size = 1;
  std::size_t depth = 2;  ///< D: batches in flight (1 = classic ask/evaluate/tell loop)
  bool serial = false;    ///< run the same schedule on one thread
  /// Batches 0 .. replay.size()-1, replayed rather than evaluated (resume).
  std::vector<ReplayedBatch> replay;
};

struct PipelineSummary {
  std::uint64_t batches_told = 0;
  std::uint64_t trials_told = 0;
  bool stopped_early = false;  ///< observer asked to stop, or the executor was interrupted (engine/interrupt.hpp)
  double wall_ms = 0;
  double ask_ms = 0, exec_ms = 0, tell_ms = 0, overlap_ms = 0, idle_ms = 0;
  /// The evaluated batches' SM time (engine::ExecutorTimings): sm_busy_ms the SM time in which
  /// the device ran any of them (the sum of sm_union_busy_ms), sm_span_ms n_SMs x the union of
  /// their kernel spans (the sum of sm_new_span_ms): time in which two batches overlap on the
  /// device counts once in both. Device occupancy of the run =
  /// occupancy_fraction(sm_busy_ms, sm_span_ms), NaN when not measured.
  double sm_busy_ms = 0, sm_span_ms = 0;
};

/// What the sampler is told about trial i of a batch: its score and violation, and with
/// successive halving (result.rung not empty) whether it was pruned and its last rung.
tpe::TrialOutcome told_outcome(const BatchResult& result, std::size_t i);

/// Number of batches for n_trials in batches of batch_size (the last may be smaller).
std::uint64_t batch_count(std::uint64_t n_trials, std::size_t batch_size);

/// Runs the whole study. Exceptions from the sampler, the executor or the observer end
/// the run (both threads stopped, nothing left hanging) and are re-thrown here.
PipelineSummary run_pipeline(tpe::Sampler& sampler, Executor& executor, std::size_t n_axes,
                             const PipelineSettings& settings, BatchObserver& observer);

}  // namespace tpeopt::engine
