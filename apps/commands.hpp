#pragma once
// The subcommands of `tpeopt`. Each registers itself on the app and returns the
// callback's exit code through the shared int.
#include <CLI/CLI.hpp>

namespace tpeopt::app {

void add_run_command(CLI::App& app, int& exit_code);
void add_verify_command(CLI::App& app, int& exit_code);
void add_data_command(CLI::App& app, int& exit_code);
void add_grid_command(CLI::App& app, int& exit_code);
void add_backtest_command(CLI::App& app, int& exit_code);
void add_resume_command(CLI::App& app, int& exit_code);
void add_bench_command(CLI::App& app, int& exit_code);
void add_report_command(CLI::App& app, int& exit_code);
void add_strategies_command(CLI::App& app, int& exit_code);
void add_export_command(CLI::App& app, int& exit_code);

}  // namespace tpeopt::app
