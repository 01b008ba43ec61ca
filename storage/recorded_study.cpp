#include "storage/recorded_study.hpp"

#include <optional>

#include "common/error.hpp"
#include "engine/interrupt.hpp"

namespace tpeopt::engine {

StudyRun run_recorded_study(const io::StudyConfig& config, const strategies::Strategy& strategy,
                            const RunOptions& options, RunRecorder& recorder, std::vector<ReplayedBatch> replay,
                            bool handle_signals, const ResumeHint& hint) {
  // Signal handlers belong to the process: a caller off the main thread (Python) passes false.
  std::optional<InterruptGuard> interrupts;
  if (handle_signals) interrupts.emplace("Continue with:\n" + hint.command);
  const std::string dir = recorder.dir().string();
  StudyRun run = [&] {
    try {
      return run_study(config, strategy, options, &recorder, std::move(replay));
    } catch (const Error& e) {
      // Every batch told so far is in the journal (fsynced before it counted).
      throw make_error("{}\nthe run stopped; the trials told so far are safe in {}/journal.bin; continue with: {}{}",
                       e.what(), dir, hint.command, hint.advice);
    }
  }();
  recorder.finish(run.result, run.summary, run.holdout ? &*run.holdout : nullptr);
  return run;
}

}  // namespace tpeopt::engine
