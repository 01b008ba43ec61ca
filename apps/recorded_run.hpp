#pragma once
// What `run` and `resume` share: run a study into its run directory, survive
// SIGINT/SIGTERM, print the summary and how to resume.
#include <filesystem>
#include <string>
#include <vector>

#include "storage/run_directory.hpp"
#include "study/study.hpp"

namespace tpeopt::app {

/// "Continue with:\ntpeopt resume DIR": what an interrupted run prints, the command on a line
/// of its own.
std::string resume_hint(const std::filesystem::path& dir);

/// The exit code of a complete study none of whose trials was feasible (docs/user-guide.md).
inline constexpr int kExitNoFeasibleTrial = 4;

/// Runs (or continues) the study recorded by `recorder`. Returns the exit code:
/// 0 complete, 4 complete without a feasible trial (said on stderr, counted in
/// summary.json's "outcomes"), 130 interrupted (the journal is consistent and the run
/// resumable).
/// `resume_dir`: the directory `tpeopt resume` continues (a walk-forward fold's parent);
/// empty = the recorder's.
int run_recorded(const io::StudyConfig& config, const strategies::Strategy& strategy, engine::RunOptions options,
                 engine::RunRecorder& recorder, std::vector<engine::ReplayedBatch> replay,
                 const std::filesystem::path& resume_dir = {});

/// Runs (or, with `resume`, continues) a walk-forward study in `dir` (docs/strategies.md, "Data subsets"): the
/// folds one after another, each in its own run directory dir/fold-N (continued from its
/// journal when it has one), then the folds' table (walk_forward.json / .csv). Returns the
/// exit code: 0 complete, 4 complete but a fold had no feasible trial, 130 interrupted
/// (resume the parent directory).
int run_walk_forward(const io::StudyConfig& config, const strategies::Strategy& strategy,
                     const engine::RunOptions& options, const std::filesystem::path& dir, bool resume);

}  // namespace tpeopt::app
