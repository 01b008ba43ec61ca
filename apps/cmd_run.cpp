// `tpeopt run`: one study, written to its own run directory.
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "apps/commands.hpp"
#include "apps/study_flags.hpp"
#include "engine/run_directory.hpp"
#include "engine/study.hpp"

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
    const std::string executor = engine::resolve_executor(options.executor);
    options.executor = executor;

    auto strategy = engine::make_strategy(config);
    const std::filesystem::path dir = out.empty() ? engine::default_run_dir(config) : std::filesystem::path(out);
    engine::RunDirectoryWriter writer(dir, config, strategy->metric_names(), executor);
    std::cerr << fmt::format("tpeopt run: strategy {} | sampler {} | {} trials in batches of {} | depth {} | {} | "
                             "executor {} | out {}\n",
                             config.strategy, config.search.sampler, engine::study_trial_count(config),
                             config.search.batch, config.search.depth, serial ? "serial" : "pipelined", executor,
                             dir.string());
    engine::StudyRun run = engine::run_study(config, options, &writer);
    writer.finish(run.result, run.summary);

    const auto& s = run.summary;
    std::cout << fmt::format("trials: {} in {:.3f} s ({:.0f} trials/s) | executor busy {:.1f}% | ask {:.1f} ms, {} "
                             "{:.1f} ms, tell {:.1f} ms, overlap {:.1f} ms, idle {:.1f} ms\n",
                             s.trials_told, s.wall_ms / 1000.0, s.trials_told / (s.wall_ms / 1000.0),
                             100.0 * s.exec_ms / s.wall_ms, s.ask_ms, executor == "cuda" ? "gpu" : "cpu", s.exec_ms,
                             s.tell_ms, s.overlap_ms, s.idle_ms);
    if (!run.result.top().empty()) {
      const auto& best = run.result.top().front();
      std::cout << fmt::format("best: trial {} score {}", best.trial, best.score);
      for (std::size_t a = 0; a < config.space.size(); ++a)
        std::cout << fmt::format(" {}={}", config.space.axes[a].name,
                                 engine::param_value_json(config.space.axes[a], best.params[a]).dump());
      std::cout << '\n';
    }
    std::cout << fmt::format("digest {}\nresults in {}\n", run.result.digest_hex(), dir.string());
    return 0;
  }
};

}  // namespace

void add_run_command(CLI::App& app, int& exit_code) {
  auto cmd = std::make_shared<RunCommand>();
  CLI::App* sub = app.add_subcommand("run", "Run an optimization study from a config and write its run directory");
  cmd->flags.add_to(*sub);
  sub->add_flag("--serial", cmd->serial, "Run the same schedule on one thread (no overlap); same results");
  sub->add_option("-o,--out", cmd->out, "Run directory (default: runs/<time>-<strategy>); must be new or empty");
  sub->add_flag("-q,--quiet", cmd->quiet, "No per-batch log lines");
  sub->callback([cmd, &exit_code] { exit_code = (*cmd)(); });
}

}  // namespace tpeopt::app
