#pragma once
// SIGINT / SIGTERM handling for long runs: the first signal asks the run to stop (the CPU
// executor abandons the batch it is evaluating within one trial, that batch is not told;
// the journal stays consistent and the process prints how to resume); a second one exits
// at once, printing the same hint (the journal is still consistent: every record is
// fsynced before it counts, and a torn last record is dropped on resume).
#include <string>

namespace tpeopt::engine {

class InterruptGuard {
 public:
  /// Installs the handlers; restores the previous ones (and forgets the signals seen) on
  /// destruction. `resume_hint` (e.g. "Continue with:\ntpeopt resume DIR") is written on
  /// lines of its own when a second signal ends the process; empty: no hint.
  explicit InterruptGuard(const std::string& resume_hint = {});
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

  /// True once SIGINT or SIGTERM arrived while a guard is installed. Async-signal-safe
  /// to set, cheap to poll (executors poll it between trials).
  static bool requested();
  /// The signal number that arrived first (0 if none).
  static int signal_number();
};

/// Thrown by an executor that abandoned a batch because InterruptGuard::requested():
/// the pipeline stops without telling that batch (PipelineSummary::stopped_early).
struct Interrupted {};

}  // namespace tpeopt::engine
