#pragma once
// Flags shared by the subcommands that run a study (run, verify, ...): each one
// overrides the config key of the same name.
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "engine/study.hpp"
#include "io/study_config.hpp"

namespace tpeopt::app {

struct StudyFlags {
  std::string config;
  std::optional<std::uint64_t> trials, batch, depth, seed;
  std::string executor;
  unsigned threads = 0;
  int block_size = 128;
  std::string devices;

  /// Registers --config, --trials, --batch, --depth, --seed, --executor, --threads.
  void add_to(CLI::App& cmd);
  /// Loads the config and applies the overrides (validated like config keys).
  io::StudyConfig load() const;
  /// Run options for the engine from the flags and the config.
  engine::RunOptions run_options(const io::StudyConfig& config) const;
};

}  // namespace tpeopt::app
