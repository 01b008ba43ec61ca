#pragma once
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/messages.hpp"

namespace tpeopt::engine {

/// A closed interval of host steady-clock time.
struct Interval {
  Clock::time_point begin{};
  Clock::time_point end{};
  double ms() const { return std::chrono::duration<double, std::milli>(end - begin).count(); }
};

/// Where the time of one batch went (the log line of docs/design.md, "Pipeline protocol", and one row
/// of timings.csv). Definitions (docs/user-guide.md, "Timings"):
///  - ask_ms: the sampler's ask() of this batch; tell_ms: its tell().
///  - exec_ms: the executor's busy time on this batch (device events for CUDA).
///  - overlap_ms: the part of this batch's ask() that ran while the executor was busy
///    with earlier batches: sampler work hidden behind the executor.
///  - idle_ms: the executor's idle gap right before this batch started, i.e. the time
///    it waited with nothing to run since the previous batch ended (for batch 0, since
///    the run started).
///  - exec_ms with batches that overlap on the device (CUDA, depth >= 2): the part of
///    the batch's device interval that no earlier batch covers, so that the exec_ms of a
///    run add up to the time the device was busy; busy_ms is the whole interval.
///  - device_occupancy: sm_busy_ms / sm_span_ms (engine::ExecutorTimings), NaN when the
///    executor does not measure it.
struct BatchTimings {
  std::uint64_t batch_index = 0;
  std::uint64_t first_trial = 0;
  std::size_t n_trials = 0;
  Interval ask, exec, tell;
  double ask_ms = 0, exec_ms = 0, tell_ms = 0, overlap_ms = 0, idle_ms = 0;
  double busy_ms = 0;  ///< the batch's whole executor interval (device events for CUDA)
  double sm_busy_ms = 0, sm_span_ms = 0;
  double device_occupancy = NAN;
  double wall_ms = 0;     ///< since the run started, when this batch was told
  bool replayed = false;  ///< taken from a journal, not evaluated in this process
};

/// The fraction of SM time doing work: sm_busy_ms / sm_span_ms, at most 1 (clock reads
/// and atomics of neighbouring blocks may cross by a few ns); NaN when not measured.
inline double occupancy_fraction(double sm_busy_ms, double sm_span_ms) {
  if (!(sm_span_ms > 0.0)) return NAN;
  const double f = sm_busy_ms / sm_span_ms;
  return f < 1.0 ? f : 1.0;
}

/// Accumulates executor busy intervals in batch order and answers overlap and idle
/// questions about their union: the intervals of batches that overlap on the device
/// (several streams) may overlap each other, and may end out of order.
class ExecutorTimeline {
 public:
  explicit ExecutorTimeline(Clock::time_point start) : start_(start) {}

  /// Adds the next batch's interval. Returns what it adds to the union: the time of the
  /// interval that no earlier one covers (the whole interval when none overlaps it).
  double add(const Interval& busy);

  /// Total length of `span` covered by the union of the intervals.
  double covered_ms(const Interval& span) const;

  /// The gap between the end of everything added before the last interval (or the start)
  /// and the last interval's begin: how long the executor waited for it, 0 if it overlaps.
  double idle_before_last_ms() const { return idle_before_last_ms_; }

  std::size_t size() const { return count_; }

 private:
  Clock::time_point start_;
  std::vector<Interval> union_;  ///< disjoint, in time order
  std::size_t count_ = 0;
  double idle_before_last_ms_ = 0.0;
};

}  // namespace tpeopt::engine
