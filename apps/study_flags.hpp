#pragma once
// Flags shared by the subcommands that run a study (run, verify, ...): each one
// overrides the config key of the same name.
#include <memory>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "config/study_config.hpp"
#include "strategies/strategy.hpp"
#include "study/study.hpp"

namespace tpeopt::app {

/// Builds the config's strategy (loading its data) and prints what was loaded, a line per
/// file or symbol, to standard error ("tpeopt: loaded FILE: N bars, FIRST .. LAST").
/// `data_bytes` (optional) receives the host bytes of the loaded data. Refuses a study
/// whose trials only its caller can score (engine::check_scored_by_tpeopt): every command
/// that evaluates trials loads its strategy here.
std::unique_ptr<strategies::Strategy> load_strategy(const io::StudyConfig& config, std::uint64_t* data_bytes = nullptr);

/// Refuses a study whose batches, sampler or data would not fit in memory
/// (study/memory_check.hpp), before anything starts: call it before the run directory
/// is created. `options.executor` must be resolved.
void check_study_memory(const io::StudyConfig& config, const strategies::Strategy& strategy,
                        const engine::RunOptions& options, std::uint64_t data_bytes);

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
