#pragma once
// The files every run directory has, whatever wrote it (`run`, `resume`, `grid`):
// creating the directory and its description files, appending to its CSV tables
// with clear errors, and the Prometheus metrics text.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>

#include "io/json_fields.hpp"
#include "config/study_config.hpp"
#include "strategies/strategy.hpp"

namespace tpeopt::engine {

/// Which proposals a sampler makes for a seed and a history: bumped whenever a sampler's
/// draws change (TPE's fast acquisition drew its candidates differently before version 2).
/// run.json records it; a run is resumed only by a tpeopt with the same version, since a
/// resumed run must be the very run that was started.
int sampler_draws_version(const io::StudyConfig& config);

/// Creates `dir` (refusing one that exists and is not empty) and writes, durably,
/// config.json (the resolved config with `executor`), run.json (`extra` merged into
/// {base_dir, source, config_digest, sampler_draws}) and data.json (the data checksums).
void create_run_directory(const std::filesystem::path& dir, const io::StudyConfig& config,
                          const strategies::Strategy& strategy, const std::string& executor,
                          const io::Json& extra = io::Json::object());

/// Rewrites config.json with `executor` (a resume may change only the executor).
void rewrite_run_config(const std::filesystem::path& dir, const io::StudyConfig& config, const std::string& executor);

/// Creates (truncates) a CSV table and writes its header line. Throws Error naming the file.
std::FILE* open_table(const std::filesystem::path& path, const std::string& header);

/// Appends and flushes; throws Error naming the file and the cause (disk full, ...).
void append_or_throw(std::FILE* f, const std::string& text, const std::filesystem::path& path);

/// Parses a JSON file of a run directory; errors name the file.
io::Json read_json_file(const std::filesystem::path& path);

/// The gauges of metrics.prom, for a node_exporter textfile collector.
struct RunGauges {
  std::uint64_t trials_done = 0;
  std::optional<double> best_score;  ///< absent while nothing feasible was scored
  double executor_busy = 0.0;        ///< executor busy time over wall time
  double trials_per_second = 0.0;
};

/// Rewrites dir/metrics.prom atomically.
void write_metrics_file(const std::filesystem::path& dir, const RunGauges& gauges);

}  // namespace tpeopt::engine
