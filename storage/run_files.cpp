#include "storage/run_files.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#include "common/atomic_file.hpp"
#include "common/error.hpp"
#include "storage/run_directory.hpp"

namespace tpeopt::engine {

namespace fs = std::filesystem;

int sampler_draws_version(const io::StudyConfig& config) {
  // Version 2: TPE's fast acquisition draws candidates from tables. Version 3: from 256
  // observations on, its g is kept as running sums with weights ramped over trial order.
  // Version 4: multivariate TPE takes Optuna 4.9+'s bandwidths (either acquisition).
  // Version 5: the fast acquisition keeps g as running sums on int and stepped axes too.
  // Version 6: multivariate "auto" (the joint model while it is cheap, then one per axis):
  // version 4's draws, then version 5's (fast) or 1's (exact); a change to either is a new
  // version for "auto" too. Version 7: batch TPE (the "batch" preset, the default). Version 8:
  // batch TPE's evolve operator on by default, a stale block's steps carried into C's frame.
  // Version 9: batch TPE draws a repeated row again (search.tpe.distinct, on by default; off,
  // the draws are version 8's).
  if (config.search.sampler != "tpe") return 1;
  if (config.search.tpe.preset == tpe::Preset::Batch) return config.search.tpe.batch.distinct ? 9 : 8;
  if (config.search.tpe.multivariate == tpe::Multivariate::Auto) return 6;
  if (config.search.tpe.multivariate == tpe::Multivariate::On) return 4;
  return config.search.tpe.acquisition == tpe::Acquisition::Fast ? 5 : 1;
}

namespace {

/// config.json must load again (tpeopt resume, tpeopt.load): the executor it records is a config
/// value, not the name of whatever executor ran (a caller's function has a name of its own).
void check_recorded_executor(const std::string& executor) {
  if (executor != "cpu" && executor != "cuda" && executor != "auto")
    throw std::logic_error("run directory: executor \"" + executor + "\" is not a config value (cpu, cuda, auto)");
}

}  // namespace

void create_run_directory(const fs::path& dir, const io::StudyConfig& config, const strategies::Strategy& strategy,
                          const std::string& executor, const io::Json& extra) {
  check_recorded_executor(executor);  // before the directory exists
  std::error_code ec;
  if (fs::exists(dir) && !fs::is_empty(dir))
    throw make_error("--out {}: the directory exists and is not empty; choose a new one (or `tpeopt resume {}`)",
                     dir.string(), dir.string());
  fs::create_directories(dir, ec);
  if (ec) throw make_error("--out {}: cannot create the directory: {}", dir.string(), ec.message());
  rewrite_run_config(dir, config, executor);
  io::Json run = {{"base_dir", fs::absolute(config.base_dir).lexically_normal().string()},
                  {"source", config.source},
                  {"config_digest", config_digest(config)},
                  {"sampler_draws", sampler_draws_version(config)}};
  run.update(extra);
  write_file_atomically(dir / "run.json", run.dump(2) + "\n", true);
  write_file_atomically(dir / "data.json", io::Json{{"checksums", strategy.data_checksums()}}.dump(2) + "\n", true);
}

void rewrite_run_config(const fs::path& dir, const io::StudyConfig& config, const std::string& executor) {
  check_recorded_executor(executor);
  io::Json resolved = config.resolved();
  resolved["executor"] = executor;
  write_file_atomically(dir / "config.json", resolved.dump(2) + "\n", true);
}

std::FILE* open_table(const fs::path& p, const std::string& header) {
  std::FILE* f = std::fopen(p.c_str(), "wb");
  if (!f) throw make_error("{}: cannot create the file: {}", p.string(), std::strerror(errno));
  if (std::fwrite(header.data(), 1, header.size(), f) != header.size() || std::fflush(f) != 0) {
    const int err = errno;
    std::fclose(f);
    throw make_error("{}: write failed: {}", p.string(), std::strerror(err));
  }
  return f;
}

void append_or_throw(std::FILE* f, const std::string& s, const fs::path& p) {
  if (std::fwrite(s.data(), 1, s.size(), f) != s.size() || std::fflush(f) != 0)
    throw make_error("{}: write failed: {}", p.string(), std::strerror(errno));
}

io::Json read_json_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw make_error("{}: cannot open (is this a tpeopt run directory?)", p.string());
  std::stringstream text;
  text << in.rdbuf();
  return io::parse_json_text(text.str(), p.string());
}

void write_metrics_file(const fs::path& dir, const RunGauges& g) {
  const std::string run = dir.filename().string();
  std::string text;
  text += "# HELP tpeopt_trials_done Trials evaluated and told so far.\n# TYPE tpeopt_trials_done gauge\n";
  text += fmt::format("tpeopt_trials_done{{run=\"{}\"}} {}\n", run, g.trials_done);
  if (g.best_score) {
    text += "# HELP tpeopt_best_score Best score so far (see objective.direction).\n# TYPE tpeopt_best_score gauge\n";
    text += fmt::format("tpeopt_best_score{{run=\"{}\"}} {}\n", run, *g.best_score);
  }
  text +=
      "# HELP tpeopt_executor_busy_ratio Executor (GPU) busy time over wall time since the run (re)started.\n"
      "# TYPE tpeopt_executor_busy_ratio gauge\n";
  text += fmt::format("tpeopt_executor_busy_ratio{{run=\"{}\"}} {:.6f}\n", run, g.executor_busy);
  text += "# HELP tpeopt_trials_per_second Throughput of the last batch.\n# TYPE tpeopt_trials_per_second gauge\n";
  text += fmt::format("tpeopt_trials_per_second{{run=\"{}\"}} {:.3f}\n", run, g.trials_per_second);
  write_file_atomically(dir / "metrics.prom", text, false);
}

}  // namespace tpeopt::engine
