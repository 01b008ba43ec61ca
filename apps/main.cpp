// tpeopt: finds the best parameters of a trading strategy by backtesting batches of
// trials on a GPU (or the CPU) while a TPE sampler proposes the next ones.
#include <iostream>

#include <CLI/CLI.hpp>

#include "apps/commands.hpp"
#include "common/error.hpp"
#include "engine/mpi_ranks.hpp"

int main(int argc, char** argv) {
  // Under mpirun: rank 0 runs the command, the other ranks serve its batches.
  tpeopt::engine::mpi::Session mpi_session(argc, argv);
  if (tpeopt::engine::mpi::rank() > 0) return tpeopt::engine::mpi::serve_jobs();
  CLI::App app{
      "tpeopt: GPU-parallel parameter optimization of trading strategies.\n"
      "A sampler thread (TPE, random or grid) proposes batches of trials while an executor\n"
      "(CUDA or CPU) backtests earlier ones; pipelined and serial runs agree bit for bit.\n"
      "Start with: tpeopt run --config examples/<one of them>.json (docs/user-guide.md)"};
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
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const tpeopt::Error& e) {
    std::cerr << "tpeopt: error: " << e.what() << '\n';
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "tpeopt: unexpected error: " << e.what() << '\n';
    return 3;
  }
  return exit_code;
}
