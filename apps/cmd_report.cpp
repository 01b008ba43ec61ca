// `tpeopt report RUN_DIR`: one self-contained HTML page (no network, no scripts) of a
// run directory: summary, optimization history, parameters of the top trials against
// all trials, a timeline of the last batches (sampler vs executor), the top trials with
// their metrics, the data and the best trial's equity curve. Works on an interrupted run
// too (what exists is reported) and on an exact grid's directory (no per-trial record).
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "apps/commands.hpp"
#include "common/cli_paths.hpp"
#include "reports/report_html.hpp"
#include "reports/run_report_data.hpp"
#include "reports/walk_forward_html.hpp"
#include "storage/run_directory.hpp"
#include "storage/walk_forward.hpp"
#include "study/study.hpp"

namespace tpeopt::app {

namespace {

struct ReportCommand {
  std::string run_dir;
  std::string out;
  std::size_t last_batches = 20;

  int operator()() const {
    // A walk-forward parent (docs/strategies.md, "Data subsets"): the folds' table; each fold has its own report.
    // Told by its config, as resume tells it (walk_forward.json only exists once a fold ended).
    if (std::filesystem::exists(std::filesystem::path(run_dir) / "config.json")) {
      const io::StudyConfig config = engine::load_run_config(run_dir);
      if (config.walk_forward.is_parent()) {
        const auto strategy = engine::make_strategy(config);
        const io::Json table = engine::write_walk_forward_table(run_dir, config, *strategy);
        const std::filesystem::path path =
            out.empty() ? std::filesystem::path(run_dir) / "report.html" : std::filesystem::path(out);
        engine::write_report_file(path,
                                  engine::render_walk_forward_html(table,
                                                                   std::filesystem::path(run_dir).filename().string()));
        std::cout << fmt::format("wrote {} ({} walk-forward folds)\n", path.string(), table["folds"].get<int>());
        return 0;
      }
    }
    const engine::RunReportData run = engine::load_run_report_data(run_dir);
    engine::ReportOptions options;
    options.last_batches = last_batches;
    const std::filesystem::path path =
        out.empty() ? std::filesystem::path(run_dir) / "report.html" : std::filesystem::path(out);
    engine::write_report_file(path, engine::render_report_html(run, options));
    const std::string interrupted = run.totals.from_summary && run.totals.complete ? "" : ", interrupted run";
    if (run.grid)
      std::cout << fmt::format("wrote {} (exact grid: {} combinations, {} segment{}, top {}{})\n", path.string(),
                               run.totals.trials, run.totals.batches, run.totals.batches == 1 ? "" : "s",
                               run.top.size(), interrupted);
    else
      std::cout << fmt::format("wrote {} ({} trials, {} batches{})\n", path.string(), run.trials.size(),
                               run.batches.size(), interrupted);
    if (!run.data.error.empty()) std::cerr << "tpeopt report: the data could not be loaded: " << run.data.error << '\n';
    return 0;
  }
};

}  // namespace

void add_report_command(CLI::App& app, int& exit_code) {
  auto cmd = std::make_shared<ReportCommand>();
  CLI::App* sub = app.add_subcommand(
      "report", "Write a self-contained HTML report of a run directory: history, top parameters, pipeline timeline");
  sub->add_option("run_dir", cmd->run_dir, "The run directory (from `tpeopt run --out`)")->required();
  sub->add_option("-o,--out", cmd->out, "The HTML file to write (default RUN_DIR/report.html)")
      ->check(cli::output_file());
  sub->add_option("--last-batches", cmd->last_batches, "Batches shown on the timeline (default 20)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{100000}));
  sub->callback([cmd, &exit_code] { exit_code = (*cmd)(); });
}

}  // namespace tpeopt::app
