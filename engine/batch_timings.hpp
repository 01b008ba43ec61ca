#pragma once
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
struct BatchTimings {
  std::uint64_t batch_index = 0;
  std::uint64_t first_trial = 0;
  std::size_t n_trials = 0;
  Interval ask, exec, tell;
  double ask_ms = 0, exec_ms = 0, tell_ms = 0, overlap_ms = 0, idle_ms = 0;
  double wall_ms = 0;  ///< since the run started, when this batch was told
  bool replayed = false;  ///< taken from a journal, not evaluated in this process
};

/// Accumulates executor busy intervals (which never overlap each other: one executor
/// runs its batches in order) and answers overlap and idle questions.
class ExecutorTimeline {
 public:
  explicit ExecutorTimeline(Clock::time_point start) : start_(start) {}

  /// Adds batch intervals in batch order.
  void add(const Interval& busy) { busy_.push_back(busy); }

  /// Total length of `span` covered by executor busy intervals.
  double covered_ms(const Interval& span) const;

  /// Gap between the end of the interval before `index` (or the start) and interval `index`.
  double idle_before_ms(std::size_t index) const;

  std::size_t size() const { return busy_.size(); }

 private:
  Clock::time_point start_;
  std::vector<Interval> busy_;
};

}  // namespace tpeopt::engine
