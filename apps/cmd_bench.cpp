// `tpeopt bench`: where the time goes. Runs the same study serially at depth 1 and
// pipelined at depth 2 (and deeper if asked), checks that the pipelined and serial
// runs of each depth agree bit for bit, and prints wall time, throughput, executor
// busy fraction, ask / executor / tell / overlap / idle totals and the speedup over
// depth 1 serial.
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include <fmt/format.h>

#include "apps/commands.hpp"
#include "apps/study_flags.hpp"
#include "common/cli_paths.hpp"
#include "common/error.hpp"
#include "study/study.hpp"

namespace tpeopt::app {

namespace {

struct BenchRow {
  std::string mode;
  std::uint64_t depth;
  bool serial;
  engine::PipelineSummary s;
  std::string digest;
};

struct BenchCommand {
  StudyFlags flags;
  std::vector<std::uint64_t> depths{2};
  double sampler_ms = 0.0, executor_ms = 0.0;
  int repeats = 1;
  std::string json_out;

  int operator()() const {
    io::StudyConfig config = flags.load();
    engine::RunOptions options = flags.run_options(config);
    options.executor = engine::resolve_executor(options.executor);
    options.sampler_load_ms = sampler_ms;
    options.executor_load_ms = executor_ms;

    std::vector<std::uint64_t> modes_depths = {1};
    for (auto d : depths)
      if (d > 1) modes_depths.push_back(d);
    std::cerr << fmt::format(
        "tpeopt bench: {} trials, batch {}, executor {}, synthetic load: sampler +{} ms, executor +{} ms per batch\n",
        engine::study_trial_count(config), config.search.batch, options.executor, sampler_ms, executor_ms);

    std::uint64_t data_bytes = 0;
    const auto strategy = load_strategy(config, &data_bytes);  // the data, loaded once for every mode
    for (const std::uint64_t depth : modes_depths) {           // the deepest pipeline holds the most
      io::StudyConfig deepest = config;
      deepest.search.depth = depth;
      check_study_memory(deepest, *strategy, options, data_bytes);
    }
    auto measure = [&](std::uint64_t depth, bool serial) {
      BenchRow best;
      for (int r = 0; r < repeats; ++r) {
        config.search.depth = depth;
        options.serial = serial;
        const auto run = engine::run_study(config, *strategy, options);
        if (r == 0 || run.summary.wall_ms < best.s.wall_ms) best.s = run.summary;
        best.digest = run.result.digest_hex();
      }
      best.depth = depth;
      best.serial = serial;
      best.mode = fmt::format("D={} {}", depth, serial ? "serial" : "pipelined");
      return best;
    };

    std::vector<BenchRow> rows;
    bool all_identical = true;
    for (auto d : modes_depths) {
      BenchRow serial = measure(d, true);
      BenchRow pipelined = measure(d, false);
      if (serial.digest != pipelined.digest) {
        all_identical = false;
        std::cerr << fmt::format("depth {}: pipelined digest {} differs from serial {}\n", d, pipelined.digest,
                                 serial.digest);
      }
      rows.push_back(serial);
      rows.push_back(pipelined);
    }

    const double base = rows.front().s.wall_ms;
    std::cout << fmt::format("{:<16} {:>10} {:>11} {:>6} {:>10} {:>10} {:>9} {:>10} {:>9} {:>8}  {}\n", "mode",
                             "wall ms", "trials/s", "busy%", "ask ms", "exec ms", "tell ms", "overlap ms", "idle ms",
                             "speedup", "digest");
    io::Json out = io::Json::array();
    for (const auto& r : rows) {
      const auto& s = r.s;
      std::cout << fmt::format(
          "{:<16} {:>10.1f} {:>11.0f} {:>6.1f} {:>10.1f} {:>10.1f} {:>9.1f} {:>10.1f} {:>9.1f} {:>7.2f}x  {}\n", r.mode,
          s.wall_ms, s.trials_told / (s.wall_ms / 1000.0), 100.0 * s.exec_ms / s.wall_ms, s.ask_ms, s.exec_ms,
          s.tell_ms, s.overlap_ms, s.idle_ms, base / s.wall_ms, r.digest);
      out.push_back({{"mode", r.mode},
                     {"depth", r.depth},
                     {"serial", r.serial},
                     {"wall_ms", s.wall_ms},
                     {"trials", s.trials_told},
                     {"ask_ms", s.ask_ms},
                     {"exec_ms", s.exec_ms},
                     {"tell_ms", s.tell_ms},
                     {"overlap_ms", s.overlap_ms},
                     {"idle_ms", s.idle_ms},
                     {"speedup", base / s.wall_ms},
                     {"digest", r.digest}});
    }
    std::cout << (all_identical ? "pipelined == serial at every depth: identical digests\n"
                                : "DIFFERENT: pipelined and serial disagree (see above)\n");
    if (!json_out.empty()) {
      std::ofstream f(json_out);
      f << io::Json{{"executor", options.executor},
                    {"batch", config.search.batch},
                    {"trials", engine::study_trial_count(config)},
                    {"sampler_load_ms", sampler_ms},
                    {"executor_load_ms", executor_ms},
                    {"rows", out}}
               .dump(2)
        << '\n';
      if (!f) throw make_error("--json {}: cannot write the file", json_out);
    }
    return all_identical ? 0 : 1;
  }
};

}  // namespace

void add_bench_command(CLI::App& app, int& exit_code) {
  auto cmd = std::make_shared<BenchCommand>();
  CLI::App* sub = app.add_subcommand(
      "bench", "Time a study serial (depth 1) and pipelined (depth 2, deeper if asked): overlap, idle, speedup");
  cmd->flags.add_to(*sub);
  sub->add_option("--depths", cmd->depths, "Pipelined depths to run besides depth 1 (default 2), e.g. --depths 2,3")
      ->delimiter(',');
  sub->add_option("--sampler-ms", cmd->sampler_ms, "Synthetic extra ask() time per batch, ms (regime ask > executor)")
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--executor-ms", cmd->executor_ms,
                  "Synthetic extra executor time per batch, ms (regime ask < executor)")
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--repeats", cmd->repeats, "Runs per mode; the fastest is reported")->check(CLI::Range(1, 100));
  sub->add_option("--json", cmd->json_out, "Also write the table as JSON to this file")->check(cli::output_file());
  sub->callback([cmd, &exit_code] { exit_code = (*cmd)(); });
}

}  // namespace tpeopt::app
