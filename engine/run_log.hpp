#pragma once
#include <iosfwd>
#include <string>

#include "engine/batch_timings.hpp"

namespace tpeopt::engine {

/// The per-batch line of docs/design.md, "Pipeline protocol":
/// `[tpe] 8192/20000 | ask=5.2ms gpu=8.8ms tell=0.1ms overlap=5.2ms idle=0.0ms`
/// (`cpu=` instead of `gpu=` for the CPU executor).
std::string format_batch_line(const std::string& sampler, const std::string& executor, std::uint64_t done,
                              std::uint64_t total, const BatchTimings& t);

/// The terminal progress line: trials done of total, trials per second, best score
/// so far, ETA and executor busy percentage.
std::string format_progress_line(std::uint64_t done, std::uint64_t total, double trials_per_s, double best,
                                 double busy_fraction);

}  // namespace tpeopt::engine
