#include "apps/study_flags.hpp"

#include <iostream>

#include <fmt/format.h>

#include "common/error.hpp"
#include "common/host_memory.hpp"
#include "io/data_log.hpp"
#include "study/memory_check.hpp"

namespace tpeopt::app {

std::unique_ptr<strategies::Strategy> load_strategy(const io::StudyConfig& config, std::uint64_t* data_bytes) {
  engine::check_scored_by_tpeopt(config);  // before any data is read or any folder written
  return engine::load_strategy(config, &std::cerr, data_bytes);
}

void check_study_memory(const io::StudyConfig& config, const strategies::Strategy& strategy,
                        const engine::RunOptions& options, std::uint64_t data_bytes) {
  engine::check_memory(config, strategy, options, data_bytes, available_host_memory());
}

void StudyFlags::add_to(CLI::App& cmd) {
  cmd.add_option("-c,--config", config, "Study config (JSON); see examples/ and docs/user-guide.md")
      ->required()
      ->check(CLI::ExistingFile);
  cmd.add_option("--trials", trials, "Total number of trials (overrides search.trials)");
  cmd.add_option("--batch", batch, "Trials per batch (overrides search.batch)");
  cmd.add_option("--depth", depth, "Batches in flight, D >= 1 (overrides search.depth; 1 = no overlap)");
  cmd.add_option("--seed", seed, "Study seed (overrides search.seed)");
  cmd.add_option("--executor", executor,
                 "cpu, cuda or auto (overrides the config's executor; auto = cuda if a GPU is usable)")
      ->check(CLI::IsMember({"cpu", "cuda", "auto"}));
  cmd.add_option("--threads", threads, "CPU executor threads (0 = all cores)");
  cmd.add_option("--block-size", block_size, "CUDA threads per block (results do not depend on it)")
      ->check(CLI::Range(32, 1024));
  cmd.add_option("--devices", devices,
                 "CUDA devices to spread each batch over: all, or a list like 0,1 (default 0); results do not "
                 "depend on it");
}

io::StudyConfig StudyFlags::load() const {
  io::StudyConfig c = io::load_study_config(config);
  io::apply_overrides(c, {trials, batch, depth, seed, executor}, "--");
  return c;
}

engine::RunOptions StudyFlags::run_options(const io::StudyConfig& c) const {
  engine::RunOptions o;
  o.executor = c.executor;
  o.cpu_threads = threads;
  o.cuda_block_size = block_size;
  o.cuda_devices = engine::parse_devices(devices);
  return o;
}

}  // namespace tpeopt::app
