// `tpeopt run`: one study, written to its own run directory.
#include <iostream>
#include <memory>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "apps/commands.hpp"
#include "apps/recorded_run.hpp"
#include "apps/study_flags.hpp"
#include "common/cli_paths.hpp"
#include "storage/run_directory.hpp"
#include "study/data_subsets.hpp"
#include "study/study.hpp"

namespace tpeopt::app {

namespace {

struct RunCommand {
  StudyFlags flags;
  bool serial = false;
  std::string out;
  bool quiet = false;

  int operator()() const {
    const io::StudyConfig config = flags.load();
    engine::RunOptions options = flags.run_options(config);
    options.serial = serial;
    options.log = quiet ? nullptr : &std::cerr;
    options.executor = engine::resolve_executor(options.executor);

    std::uint64_t data_bytes = 0;
    auto strategy = load_strategy(config, &data_bytes);
    const std::filesystem::path dir = out.empty() ? engine::default_run_dir(config) : std::filesystem::path(out);
    // Before any run directory exists:
    engine::check_data_subsets(*strategy, config);
    check_study_memory(config, *strategy, options, data_bytes);
    if (config.walk_forward.is_parent()) return run_walk_forward(config, *strategy, options, dir, false);
    auto recorder = engine::RunRecorder::create(dir, config, *strategy, options.executor);
    std::cerr << fmt::format(
        "tpeopt run: strategy {} | sampler {} | {} trials in batches of {} | depth {} | {} | "
        "executor {} | out {}\n",
        config.strategy, config.search.sampler, engine::study_trial_count(config), config.search.batch,
        config.search.depth, serial ? "serial" : "pipelined",
        options.executor + (options.cuda_devices.size() > 1
                                ? fmt::format(" on devices {}", fmt::join(options.cuda_devices, ","))
                                : std::string()),
        dir.string());
    return run_recorded(config, *strategy, options, *recorder, {});
  }
};

}  // namespace

void add_run_command(CLI::App& app, int& exit_code) {
  auto cmd = std::make_shared<RunCommand>();
  CLI::App* sub = app.add_subcommand("run", "Run an optimization study from a config and write its run directory");
  cmd->flags.add_to(*sub);
  sub->add_flag("--serial", cmd->serial, "Run the same schedule on one thread (no overlap); same results");
  sub->add_option("-o,--out", cmd->out, "Run directory (default: runs/<time>-<strategy>); must be new or empty")
      ->check(cli::output_folder());
  sub->add_flag("-q,--quiet", cmd->quiet, "No per-batch log lines");
  sub->callback([cmd, &exit_code] { exit_code = (*cmd)(); });
}

}  // namespace tpeopt::app
