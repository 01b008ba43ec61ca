// `tpeopt grid`: exhaustive search over a grid of values, written to its own run
// directory like `run`, and resumable with `tpeopt resume DIR`. A strategy with an exact
// grid (the registry's capability, strategies/exact_grid.hpp) runs it segment by segment
// (storage/grid_run.hpp); other strategies run the grid sampler through the pipeline,
// journaled per batch.
#include <filesystem>
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "apps/commands.hpp"
#include "apps/grid_runner.hpp"
#include "apps/recorded_run.hpp"
#include "apps/study_flags.hpp"
#include "common/cli_paths.hpp"
#include "common/error.hpp"
#include "io/config_errors.hpp"
#include "config/study_config.hpp"
#include "storage/grid_run.hpp"
#include "storage/run_directory.hpp"
#include "study/data_subsets.hpp"
#include "study/study.hpp"
#include "tpe/grid_sampler.hpp"

namespace tpeopt::app {

namespace fs = std::filesystem;

namespace {

struct GridCommand {
  std::string config_path, executor = "", out;
  std::size_t top = 10;
  unsigned threads = 0;
  std::size_t memory_mb = 0;
  std::uint64_t segment_combinations = std::uint64_t{1} << 28;
  bool quiet = false;

  int operator()() const {
    io::StudyConfig config = io::load_study_config(config_path);
    // A grid takes every value of each axis: continuous ranges are config errors, all of
    // them reported before the data is read.
    io::ConfigErrors errors;
    for (const auto& a : config.space.axes)
      if (tpe::grid_points(a) == 0) errors.add(tpe::grid_axis_error(a));
    errors.throw_if_any(config.source);
    if (!executor.empty()) config.executor = executor;
    const std::string exec = engine::resolve_executor(config.executor);
    std::uint64_t data_bytes = 0;
    auto strategy = load_strategy(config, &data_bytes);
    const fs::path dir = out.empty() ? engine::default_run_dir(config) : fs::path(out);
    // Refused before any run directory exists (as `tpeopt run` does).
    if (config.walk_forward.is_parent())
      throw make_error(
          "{}: data.walk_forward: a walk-forward study runs its folds with `tpeopt run`, not `tpeopt grid`",
          config.source);
    engine::check_data_subsets(*strategy, config);
    const strategies::ExactGrid& exact = config.entry->exact_grid;
    // An exact grid reads the whole data and scores the whole span: data subsets and folds go
    // through the pipeline.
    if (!exact.available() || config.has_parts() || config.walk_forward.enabled() || config.search.halving.enabled ||
        config.folds.enabled())
      return generic(config, *strategy, exec, dir, data_bytes);

    engine::GridRunSettings s;
    s.top_k = top;
    s.segment_combinations = segment_combinations;
    s.search.threads = threads;
    s.search.memory_budget = grid_memory_budget(exec, memory_mb);
    auto run = engine::GridRun::create(dir, config, *strategy, exec, s);
    std::cerr << fmt::format(
        "tpeopt grid: strategy {} | {} combinations in {} segments x {} | top {} | executor {} | "
        "out {}\n",
        config.strategy, run->grid().size(), run->segment_count(), exact.data_summary(*strategy), top, exec,
        dir.string());
    return run_grid_recorded(*run, *strategy, exec, quiet);
  }

  /// Other strategies: the grid sampler through the pipeline (no per-combination memory).
  int generic(io::StudyConfig config, const strategies::Strategy& strategy, const std::string& exec,
              const fs::path& dir, std::uint64_t data_bytes) const {
    config.search.sampler = "grid";
    config.search.top_k = top;
    engine::RunOptions options;
    options.executor = exec;
    options.cpu_threads = threads;
    options.log = quiet ? nullptr : &std::cerr;
    check_study_memory(config, strategy, options, data_bytes);  // before the run directory exists
    auto recorder = engine::RunRecorder::create(dir, config, strategy, exec);
    std::cerr << fmt::format("tpeopt grid: strategy {} | {} combinations in batches of {} | executor {} | out {}\n",
                             config.strategy, engine::study_trial_count(config), config.search.batch, exec,
                             dir.string());
    return run_recorded(config, strategy, options, *recorder, {});
  }
};

}  // namespace

void add_grid_command(CLI::App& app, int& exit_code) {
  auto cmd = std::make_shared<GridCommand>();
  CLI::App* sub = app.add_subcommand("grid", "Exhaustive search over the config's value lists, keeping the top K");
  sub->add_option("-c,--config", cmd->config_path, "Study config (JSON) whose params are value lists")
      ->required()
      ->check(CLI::ExistingFile);
  sub->add_option("--top", cmd->top, "How many best combinations to keep (default 10)")->check(CLI::Range(1, 16384));
  sub->add_option("--executor", cmd->executor, "cpu, cuda or auto (overrides the config)")
      ->check(CLI::IsMember({"cpu", "cuda", "auto"}));
  sub->add_option("--threads", cmd->threads, "CPU threads (0 = all cores)");
  sub->add_option("--memory-mb", cmd->memory_mb,
                  "Memory for cell tables (default: 1 GiB on the CPU, a quarter of free GPU memory)");
  sub->add_option("--segment-combinations", cmd->segment_combinations,
                  "Exact grids: combinations per journaled segment, at most (default 2^28); smaller segments lose "
                  "less work to a crash and cost a pass over the data each")
      ->check(CLI::PositiveNumber);
  sub->add_option("-o,--out", cmd->out, "Run directory (default: runs/<time>-<strategy>); must be new or empty")
      ->check(cli::output_folder());
  sub->add_flag("-q,--quiet", cmd->quiet, "No per-segment log lines");
  sub->callback([cmd, &exit_code] { exit_code = (*cmd)(); });
}

}  // namespace tpeopt::app
