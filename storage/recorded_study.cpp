#include "storage/recorded_study.hpp"

#include <memory>
#include <optional>

#include "common/error.hpp"
#include "engine/interrupt.hpp"
#include "study/selection_pass.hpp"
#include "study/selection_sample.hpp"

namespace tpeopt::engine {

StudyRun run_recorded_study(const io::StudyConfig& config, const strategies::Strategy& strategy,
                            const RunOptions& options, RunRecorder& recorder, std::vector<ReplayedBatch> replay,
                            bool handle_signals, const ResumeHint& hint) {
  // Signal handlers belong to the process: a caller off the main thread (Python) passes false.
  std::optional<InterruptGuard> interrupts;
  if (handle_signals) interrupts.emplace("Continue with:\n" + hint.command);
  const std::string dir = recorder.dir().string();
  // Collects the trials the selection-bias pass re-evaluates, the journal first (study/selection_sample.hpp).
  SelectionSample sample(SelectionSettings{}.top, SelectionSettings{}.sample, config.search.seed,
                         config.objective.direction, &recorder);
  StudyRun run = [&] {
    try {
      return run_study(config, strategy, options, &sample, std::move(replay));
    } catch (const Error& e) {
      // Every batch told so far is in the journal (fsynced before it counted).
      throw make_error("{}\nthe run stopped; the trials told so far are safe in {}/journal.bin; continue with: {}{}",
                       e.what(), dir, hint.command, hint.advice);
    }
  }();
  if (!run.summary.stopped_early)
    run.selection = std::make_shared<SelectionBias>(selection_bias(config, strategy, sample, options));
  recorder.finish(run.result, run.summary, run.holdout ? &*run.holdout : nullptr, run.selection.get());
  return run;
}

}  // namespace tpeopt::engine
