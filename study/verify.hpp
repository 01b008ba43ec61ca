#pragma once
// `tpeopt verify` and tpeopt.verify: the same study pipelined and serial, compared bit for bit.
#include <cstdint>
#include <string>

#include "study/study.hpp"

namespace tpeopt::engine {

struct Verification {
  bool identical = false;
  std::uint64_t n_trials = 0;  ///< trials of the pipelined run
  std::string digest;          ///< the pipelined run's digest
  std::string serial_digest;
  /// The first difference ("trial 812: score differs: pipelined ... vs serial ..."), or
  /// "digests differ"; empty when identical.
  std::string difference;
};

/// Runs the study pipelined, then serially (options.serial is ignored), keeping every trial,
/// and compares parameters, scores, violations and metrics bit for bit.
Verification verify_study(const io::StudyConfig& config, const strategies::Strategy& strategy, RunOptions options);

}  // namespace tpeopt::engine
