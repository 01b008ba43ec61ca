// `tpeopt export optuna DIR --storage URL`: a run's trials into an Optuna storage, through
// Optuna's own Python API: it runs `python3 -m tpeopt export optuna ...` (the tpeopt Python
// package, python/tpeopt/_optuna.py; docs/python.md), so that the storage is exactly what
// Optuna writes, whichever storage it is.
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "apps/commands.hpp"

namespace tpeopt::app {

namespace {

struct ExportOptunaCommand {
  std::string dir, storage, study_name;

  int operator()() const {
    const char* env = std::getenv("TPEOPT_PYTHON");
    const std::string python = env && *env ? env : "python3";
    std::vector<std::string> args = {python, "-m", "tpeopt", "export", "optuna", dir, "--storage", storage};
    if (!study_name.empty()) args.insert(args.end(), {"--study-name", study_name});
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    std::cout.flush();
    std::cerr.flush();
    ::execvp(argv[0], argv.data());
    std::cerr << fmt::format(
        "tpeopt export optuna: cannot run {}: {}; it needs a Python with the tpeopt package and optuna (pip install "
        ". optuna, docs/python.md); TPEOPT_PYTHON names another Python\n",
        python, std::strerror(errno));
    return 2;
  }
};

}  // namespace

void add_export_command(CLI::App& app, int& exit_code) {
  CLI::App* sub = app.add_subcommand("export", "Write a run into another tool's format");
  sub->require_subcommand(1);
  auto cmd = std::make_shared<ExportOptunaCommand>();
  CLI::App* optuna = sub->add_subcommand(
      "optuna",
      "Write a run's trials into an Optuna storage (journal file or RDB URL), for optuna.load_study, "
      "optuna.visualization and optuna-dashboard; runs `python3 -m tpeopt export optuna` (TPEOPT_PYTHON: another "
      "Python)");
  optuna->add_option("dir", cmd->dir, "The run directory")->required()->check(CLI::ExistingDirectory);
  optuna
      ->add_option("--storage", cmd->storage,
                   "A journal file (runs.log, or journal:PATH) or an RDB URL (sqlite:///runs.db)")
      ->required();
  optuna->add_option("--study-name", cmd->study_name, "The Optuna study's name (default: the run's folder name)");
  optuna->callback([cmd, &exit_code] { exit_code = (*cmd)(); });
}

}  // namespace tpeopt::app
