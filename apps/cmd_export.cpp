// `tpeopt export optuna DIR --storage URL`: a run's trials into an Optuna storage, through
// Optuna's own Python API: it runs the tpeopt Python package's `export optuna` in python3
// (python/tpeopt/__main__.py, python/tpeopt/_optuna.py; docs/python.md), so that the storage is
// exactly what Optuna writes, whichever storage it is.
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

/// What python3 runs: the package's command, or, where the package is missing, how to install
/// it (python3 -m tpeopt would say only "No module named tpeopt"). Exit 2, as the CLI's errors.
constexpr const char* kBootstrap = R"(import sys
try:
    from tpeopt.__main__ import main
except ModuleNotFoundError as e:
    if e.name != "tpeopt":
        raise
    print("tpeopt export optuna: the tpeopt Python package is not installed in " + sys.executable + ": install "
          "it, with Optuna, from the tpeopt repository's root: " + sys.executable + " -m pip install '.[optuna]' "
          "(docs/python.md); or set TPEOPT_PYTHON to a Python that has it", file=sys.stderr)
    sys.exit(2)
sys.exit(main(["export", "optuna", *sys.argv[1:]]))
)";

struct ExportOptunaCommand {
  std::string dir, storage, study_name;

  int operator()() const {
    const char* env = std::getenv("TPEOPT_PYTHON");
    const std::string python = env && *env ? env : "python3";
    std::vector<std::string> args = {python, "-c", kBootstrap, dir, "--storage", storage};
    if (!study_name.empty()) args.insert(args.end(), {"--study-name", study_name});
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    std::cout.flush();
    std::cerr.flush();
    ::execvp(argv[0], argv.data());
    std::cerr << fmt::format(
        "tpeopt export optuna: cannot run {}: {}; it needs a Python with the tpeopt package and Optuna (pip install "
        "'.[optuna]' from the tpeopt repository's root, docs/python.md); TPEOPT_PYTHON names another Python\n",
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
      "optuna.visualization and optuna-dashboard; runs the tpeopt Python package's `tpeopt export optuna` in python3 "
      "(TPEOPT_PYTHON: another Python)");
  optuna->add_option("dir", cmd->dir, "The run directory")->required()->check(CLI::ExistingDirectory);
  optuna
      ->add_option("--storage", cmd->storage,
                   "A journal file (runs.log, or journal:PATH) or an RDB URL (sqlite:///runs.db)")
      ->required();
  optuna->add_option("--study-name", cmd->study_name, "The Optuna study's name (default: the run's folder name)");
  optuna->callback([cmd, &exit_code] { exit_code = (*cmd)(); });
}

}  // namespace tpeopt::app
