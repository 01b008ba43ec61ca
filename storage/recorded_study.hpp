#pragma once
// A study run into its run directory, as `tpeopt run` / `tpeopt resume` and the Python package
// (tpeopt.run, tpeopt.resume, tpeopt.optimize) run it: signals handled, the journal written
// per batch, top.json and summary.json at the end (also after an interruption).
#include <string>
#include <vector>

#include "storage/run_directory.hpp"
#include "study/study.hpp"

namespace tpeopt::engine {

/// How to continue a run that stopped.
struct ResumeHint {
  std::string command;  ///< "tpeopt resume DIR", "tpeopt.resume('DIR', objective)"
  std::string advice;   ///< after an error, following the command (" (add --executor cpu ...)"); may be empty
};

/// Runs (or continues, with `replay` from RunRecorder::resume) the study `recorder`
/// records, then writes its top.json and summary.json. With `handle_signals` the first
/// SIGINT/SIGTERM stops the run (summary.stopped_early; the journal is consistent) and a
/// second one ends the process after printing "Continue with:" and the command
/// (engine/interrupt.hpp). A tpeopt::Error ends the run with the error, followed by where
/// the told trials are and how to continue.
StudyRun run_recorded_study(const io::StudyConfig& config, const strategies::Strategy& strategy,
                            const RunOptions& options, RunRecorder& recorder, std::vector<ReplayedBatch> replay,
                            bool handle_signals, const ResumeHint& hint);

}  // namespace tpeopt::engine
