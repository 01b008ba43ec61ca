// tpeopt: finds the best parameters of a trading strategy by backtesting batches of
// trials on a GPU (or the CPU) while a TPE sampler proposes the next ones.
#include <iostream>
#include <string>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "apps/commands.hpp"
#include "common/error.hpp"
#include "scaleout/mpi_ranks.hpp"
#include "study/study.hpp"

namespace {

/// `unknown command "X" (tpeopt data's commands: prepare, ...)` when the command line names
/// a command that does not exist where one is required (CLI11 would only say that an
/// argument was not expected); "" otherwise, and for anything else CLI11 judges.
std::string unknown_command(const CLI::App& app, int argc, const char* const* argv) {
  const CLI::App* at = &app;
  std::string path = "tpeopt";
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.empty() || arg[0] == '-' || at->get_require_subcommand_min() == 0) return {};
    const auto commands = at->get_subcommands([](const CLI::App*) { return true; });
    const CLI::App* next = nullptr;
    std::string names;
    for (const CLI::App* c : commands) {
      if (c->check_name(arg)) next = c;
      names += (names.empty() ? "" : ", ") + c->get_name();
    }
    if (!next) return fmt::format("unknown command \"{}\" ({}'s commands: {}; see {} --help)", arg, path, names, path);
    at = next;
    path += " " + arg;
  }
  return {};
}

}  // namespace

int main(int argc, char** argv) {
  // Under mpirun: rank 0 runs the command, the other ranks serve its batches.
  tpeopt::engine::mpi::Session mpi_session(argc, argv);
  if (tpeopt::engine::mpi::rank() > 0) return tpeopt::engine::serve_rank_jobs();
  CLI::App app{
      "tpeopt: GPU-parallel parameter optimization of trading strategies.\n"
      "A sampler thread (search.sampler: tpe, the default; ga, a genetic algorithm; random; grid)\n"
      "proposes batches of trials while an executor (CUDA or CPU) backtests earlier ones;\n"
      "pipelined and serial runs agree bit for bit.\n"
      "Start with docs/getting-started.md: tpeopt strategies -v, then tpeopt run --config examples/<one of them>.json"};
  app.require_subcommand(1);
  int exit_code = 0;
  tpeopt::app::add_run_command(app, exit_code);
  tpeopt::app::add_verify_command(app, exit_code);
  tpeopt::app::add_data_command(app, exit_code);
  tpeopt::app::add_grid_command(app, exit_code);
  tpeopt::app::add_backtest_command(app, exit_code);
  tpeopt::app::add_resume_command(app, exit_code);
  tpeopt::app::add_bench_command(app, exit_code);
  tpeopt::app::add_report_command(app, exit_code);
  tpeopt::app::add_strategies_command(app, exit_code);
  tpeopt::app::add_export_command(app, exit_code);
  try {
    if (const std::string unknown = unknown_command(app, argc, argv); !unknown.empty()) {
      std::cerr << "tpeopt: error: " << unknown << '\n';
      return 2;
    }
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help
    // A command-line error is a user error: 2, as documented (CLI11's own codes are 100 and up).
    std::cerr << "tpeopt: error: " << e.what() << "\nRun with --help for more information.\n";
    return 2;
  } catch (const tpeopt::Error& e) {
    std::cerr << "tpeopt: error: " << e.what() << '\n';
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "tpeopt: unexpected error: " << e.what() << '\n';
    return 3;
  }
  return exit_code;
}
