#include "apps/recorded_run.hpp"

#include <unistd.h>

#include <cmath>
#include <iostream>

#include <fmt/format.h>

#include "common/error.hpp"
#include "engine/batch_timings.hpp"
#include "storage/recorded_study.hpp"
#include "storage/run_files.hpp"
#include "storage/walk_forward.hpp"

namespace tpeopt::app {

std::string resume_hint(const std::filesystem::path& dir) { return "Continue with:\ntpeopt resume " + dir.string(); }

int run_recorded(const io::StudyConfig& config, const strategies::Strategy& strategy, engine::RunOptions options,
                 engine::RunRecorder& recorder, std::vector<engine::ReplayedBatch> replay,
                 const std::filesystem::path& resume_dir) {
  const std::string dir = recorder.dir().string();
  const std::string resume = resume_dir.empty() ? dir : resume_dir.string();
  if (options.log && ::isatty(STDERR_FILENO)) options.progress_line = true;
  const engine::StudyRun run =
      engine::run_recorded_study(config, strategy, options, recorder, std::move(replay), true,
                                 {"tpeopt resume " + resume,
                                  options.executor == "cuda" ? " (add --executor cpu to continue on the CPU)" : ""});

  const auto& s = run.summary;
  std::cout << fmt::format(
      "trials: {} in {:.3f} s ({:.0f} trials/s) | executor busy {:.1f}% | ask {:.1f} ms, {} "
      "{:.1f} ms, tell {:.1f} ms, overlap {:.1f} ms, idle {:.1f} ms\n",
      s.trials_told, s.wall_ms / 1000.0, s.trials_told / (s.wall_ms / 1000.0),
      s.wall_ms > 0 ? 100.0 * s.exec_ms / s.wall_ms : 0.0, s.ask_ms, run.executor == "cuda" ? "gpu" : "cpu", s.exec_ms,
      s.tell_ms, s.overlap_ms, s.idle_ms);
  if (const double occupancy = engine::occupancy_fraction(s.sm_busy_ms, s.sm_span_ms); !std::isnan(occupancy))
    std::cout << fmt::format("device occupancy: {:.1f}% of SM time during the batches' kernels\n", 100.0 * occupancy);
  const engine::TrialCounts& counts = run.result.counts();
  const bool none_feasible = counts.feasible == 0 && run.result.n_trials() > 0;
  if (none_feasible) {
    std::string closest;
    if (!run.result.top().empty() && run.result.top().front().violation > 0.0) {
      const double short_by = run.result.top().front().violation;
      closest = fmt::format("; the closest, trial {}, is short by {} trade{}", run.result.top().front().trial, short_by,
                            short_by == 1.0 ? "" : "s");
    }
    std::cerr << fmt::format(
        "tpeopt: no feasible trial{}: {}{} (top.json ranks them by how far they missed; lower "
        "objective.min_trades, or change the parameter ranges or the data)\n",
        s.stopped_early ? " so far" : "", engine::describe_counts(counts, engine::min_trades_of(config, strategy)),
        closest);
  } else if (!run.result.top().empty()) {
    const auto& best = run.result.top().front();
    std::cout << fmt::format("best: trial {} score {}", best.trial, best.score);
    for (std::size_t a = 0; a < config.space.size(); ++a)
      std::cout << fmt::format(" {}={}", config.space.axes[a].name,
                               engine::param_value_json(config.space.axes[a], best.params[a]).dump());
    std::cout << '\n';
  }
  if (run.holdout && !run.result.top().empty()) {
    const auto& h = *run.holdout;
    std::cout << fmt::format(
        "hold-out: {} in-sample and {} out-of-sample {}; best trial out of sample: {}; rank "
        "correlation of the top {} (Spearman): {}\n",
        h.in_sample_atoms, h.out_of_sample_atoms, h.unit, h.scores.front(), h.scores.size(), h.spearman);
  }
  if (s.stopped_early) {
    // On lines of their own, also after a progress line left without its newline.
    std::cerr << fmt::format("{}interrupted after {} trials; the journal is consistent. {}\n",
                             options.progress_line ? "\n" : "", run.result.n_trials(), resume_hint(resume));
    return 130;
  }
  if (run.selection) std::cout << engine::selection_bias_line(*run.selection) << '\n';
  std::cout << fmt::format("digest {}\nresults in {}\n", run.result.digest_hex(), dir);
  return none_feasible ? kExitNoFeasibleTrial : 0;
}

int run_walk_forward(const io::StudyConfig& config, const strategies::Strategy& strategy,
                     const engine::RunOptions& options, const std::filesystem::path& dir, bool resume) {
  namespace fs = std::filesystem;
  if (!resume) engine::create_run_directory(dir, config, strategy, options.executor);
  std::uint64_t folds_without_feasible = 0;
  for (std::uint64_t f = 0; f < config.walk_forward.folds; ++f) {
    const io::StudyConfig fold = engine::fold_config(config, f);
    const fs::path fdir = engine::fold_dir(dir, f);
    std::vector<engine::ReplayedBatch> replay;
    std::unique_ptr<engine::RunRecorder> recorder;
    if (fs::exists(fdir / "journal.bin"))
      recorder = engine::RunRecorder::resume(fdir, fold, strategy, options.executor, replay);
    else recorder = engine::RunRecorder::create(fdir, fold, strategy, options.executor);
    std::cerr << fmt::format("walk-forward fold {} of {}: {}{}\n", f + 1, config.walk_forward.folds, fdir.string(),
                             replay.empty() ? ""
                                            : fmt::format(" (continuing: {} batches in the journal)", replay.size()));
    const int code = run_recorded(fold, strategy, options, *recorder, std::move(replay), dir);
    engine::write_walk_forward_table(dir, config, strategy);
    // A fold without a feasible trial is complete: the other folds still run.
    if (code == kExitNoFeasibleTrial) {
      folds_without_feasible += 1;
    } else if (code != 0) {
      return code;
    }
  }
  const io::Json table = engine::write_walk_forward_table(dir, config, strategy);
  std::cout << fmt::format(
      "walk-forward: {} folds ({})\nfold  in-sample window            out-of-sample window       "
      "best trial  in-sample  out-of-sample\n",
      config.walk_forward.folds, table["unit"].get<std::string>());
  for (const auto& r : table["fold_results"]) {
    auto w = [](const io::Json& x) {
      return fmt::format("{} .. {}", x["first"].get<std::string>(), x["last"].get<std::string>());
    };
    std::cout << fmt::format("{:<5} {:<26} {:<26} {:<11} {:<10} {}\n", r["fold"].get<int>(), w(r["in_sample"]),
                             w(r["out_of_sample"]), r["best_trial"].dump(), r["in_sample_score"].dump(),
                             r["out_of_sample_score"].dump());
  }
  std::cout << fmt::format("folds in {}/fold-N; table in {}/walk_forward.csv\n", dir.string(), dir.string());
  if (folds_without_feasible > 0) {
    std::cerr << fmt::format("tpeopt: {} of {} folds found no feasible trial\n", folds_without_feasible,
                             config.walk_forward.folds);
    return kExitNoFeasibleTrial;
  }
  return 0;
}

}  // namespace tpeopt::app
