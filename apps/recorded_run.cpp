#include "apps/recorded_run.hpp"

#include <unistd.h>

#include <iostream>

#include <fmt/format.h>

#include "common/error.hpp"
#include "engine/interrupt.hpp"

namespace tpeopt::app {

int run_recorded(const io::StudyConfig& config, const strategies::Strategy& strategy, engine::RunOptions options,
                 engine::RunRecorder& recorder, std::vector<engine::ReplayedBatch> replay) {
  engine::InterruptGuard interrupts;
  if (options.log && ::isatty(STDERR_FILENO)) options.progress_line = true;
  const std::string dir = recorder.dir().string();
  engine::StudyRun run = [&] {
    try {
      return engine::run_study(config, strategy, options, &recorder, std::move(replay));
    } catch (const Error& e) {
      // Every batch told so far is in the journal (fsynced before it counted).
      throw make_error("{}\nthe run stopped; the trials told so far are safe in {}/journal.bin; continue with: tpeopt "
                       "resume {}{}",
                       e.what(), dir, dir, options.executor == "cuda" ? " (add --executor cpu to continue on the CPU)" : "");
    }
  }();
  recorder.finish(run.result, run.summary);

  const auto& s = run.summary;
  std::cout << fmt::format("trials: {} in {:.3f} s ({:.0f} trials/s) | executor busy {:.1f}% | ask {:.1f} ms, {} "
                           "{:.1f} ms, tell {:.1f} ms, overlap {:.1f} ms, idle {:.1f} ms\n",
                           s.trials_told, s.wall_ms / 1000.0, s.trials_told / (s.wall_ms / 1000.0),
                           s.wall_ms > 0 ? 100.0 * s.exec_ms / s.wall_ms : 0.0, s.ask_ms,
                           run.executor == "cuda" ? "gpu" : "cpu", s.exec_ms, s.tell_ms, s.overlap_ms, s.idle_ms);
  if (!run.result.top().empty()) {
    const auto& best = run.result.top().front();
    std::cout << fmt::format("best: trial {} score {}", best.trial, best.score);
    for (std::size_t a = 0; a < config.space.size(); ++a)
      std::cout << fmt::format(" {}={}", config.space.axes[a].name,
                               engine::param_value_json(config.space.axes[a], best.params[a]).dump());
    std::cout << '\n';
  }
  if (s.stopped_early) {
    std::cerr << fmt::format("interrupted after {} trials; the journal is consistent. Continue with: tpeopt resume {}\n",
                             run.result.n_trials(), dir);
    return 130;
  }
  std::cout << fmt::format("digest {}\nresults in {}\n", run.result.digest_hex(), dir);
  return 0;
}

}  // namespace tpeopt::app
