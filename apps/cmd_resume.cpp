// `tpeopt resume DIR`: continue an interrupted run from its journal; the result is
// the very run an uninterrupted one would have given (same trials, scores, digest).
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "apps/commands.hpp"
#include "apps/grid_runner.hpp"
#include "apps/recorded_run.hpp"
#include "apps/study_flags.hpp"
#include "common/error.hpp"
#include "storage/grid_run.hpp"
#include "storage/run_directory.hpp"
#include "study/study.hpp"

namespace tpeopt::app {

namespace {

struct ResumeCommand {
  std::string dir;
  std::string executor;
  bool serial = false;
  bool quiet = false;
  unsigned threads = 0;
  int block_size = 128;
  std::string devices;

  int operator()() const {
    const io::StudyConfig config = engine::load_run_config(dir);
    engine::RunOptions options;
    options.executor = engine::resolve_executor(executor.empty() ? config.executor : executor);
    options.serial = serial;
    options.cpu_threads = threads;
    options.cuda_block_size = block_size;
    options.cuda_devices = engine::parse_devices(devices);
    options.log = quiet ? nullptr : &std::cerr;
    std::uint64_t data_bytes = 0;
    auto strategy = load_strategy(config, &data_bytes);
    if (engine::GridRun::is_grid_run(dir)) return resume_grid(config, *strategy, options.executor);
    check_study_memory(config, *strategy, options, data_bytes);
    if (config.walk_forward.is_parent()) return run_walk_forward(config, *strategy, options, dir, true);
    std::vector<engine::ReplayedBatch> replay;
    auto recorder = engine::RunRecorder::resume(dir, config, *strategy, options.executor, replay);
    const std::uint64_t total = engine::study_trial_count(config);
    std::uint64_t done = 0;
    for (const auto& b : replay) done += b.request.n_trials;
    std::cerr << fmt::format("tpeopt resume: {} | {} of {} trials in the journal{} | executor {} | {}\n", dir, done,
                             total, recorder->dropped_torn_tail() ? " (a torn last record was dropped)" : "",
                             options.executor, serial ? "serial" : "pipelined");
    return run_recorded(config, *strategy, options, *recorder, std::move(replay));
  }

  int resume_grid(const io::StudyConfig& config, const strategies::Strategy& strategy, const std::string& exec) const {
    if (!config.entry->exact_grid.available())
      throw make_error(
          "{}: grid_journal.bin belongs to an exact grid, but config.json names strategy {}, which has none", dir,
          config.strategy);
    engine::GridRunSettings s;
    s.search.threads = threads;
    s.search.memory_budget = grid_memory_budget(exec, 0);
    auto run = engine::GridRun::resume(dir, config, strategy, exec, s);
    std::cerr << fmt::format("tpeopt resume: {} | grid: {} of {} segments in the journal{} | executor {}\n", dir,
                             run->segments_journaled(), run->segment_count(),
                             run->dropped_torn_tail() ? " (a torn last record was dropped)" : "", exec);
    return run_grid_recorded(*run, strategy, exec, quiet);
  }
};

}  // namespace

void add_resume_command(CLI::App& app, int& exit_code) {
  auto cmd = std::make_shared<ResumeCommand>();
  CLI::App* sub = app.add_subcommand(
      "resume",
      "Continue an interrupted run from its journal (same trials, scores and digest as an uninterrupted run)");
  sub->add_option("dir", cmd->dir, "The run directory")->required()->check(CLI::ExistingDirectory);
  sub->add_option("--executor", cmd->executor, "cpu, cuda or auto (default: the run's); executors agree bit for bit")
      ->check(CLI::IsMember({"cpu", "cuda", "auto"}));
  sub->add_flag("--serial", cmd->serial, "Continue on one thread; same results");
  sub->add_option("--threads", cmd->threads, "CPU executor threads (0 = all cores)");
  sub->add_option("--block-size", cmd->block_size, "CUDA threads per block")->check(CLI::Range(32, 1024));
  sub->add_option("--devices", cmd->devices, "CUDA devices: all, or a list like 0,1 (default 0); same results");
  sub->add_flag("-q,--quiet", cmd->quiet, "No per-batch log lines");
  sub->callback([cmd, &exit_code] { exit_code = (*cmd)(); });
}

}  // namespace tpeopt::app
