#pragma once
// SIGINT / SIGTERM handling for long runs: the first signal asks the run to stop
// after the batch being told (the journal stays consistent, the process prints how
// to resume); a second one exits at once (the journal is still consistent: every
// record is fsynced before it counts, and a torn last record is dropped on resume).

namespace tpeopt::engine {

class InterruptGuard {
 public:
  /// Installs the handlers; restores the previous ones on destruction.
  InterruptGuard();
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

  /// True once SIGINT or SIGTERM arrived. Async-signal-safe to set, cheap to poll.
  static bool requested();
  /// The signal number that arrived first (0 if none).
  static int signal_number();
};

}  // namespace tpeopt::engine
