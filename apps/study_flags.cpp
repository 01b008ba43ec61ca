#include "apps/study_flags.hpp"

#include <iostream>

#include <fmt/format.h>

#include "common/error.hpp"
#include "common/host_memory.hpp"
#include "study/memory_check.hpp"
#include "io/data_log.hpp"

namespace tpeopt::app {

std::unique_ptr<strategies::Strategy> load_strategy(const io::StudyConfig& config, std::uint64_t* data_bytes) {
  io::take_data_loads();  // only this config's loads
  auto strategy = engine::make_strategy(config);
  const auto loads = io::take_data_loads();
  if (data_bytes) {
    *data_bytes = 0;
    for (const auto& l : loads) *data_bytes += l.bytes;
  }
  constexpr std::size_t kShown = 20;  // a data set of many symbols: the first ones, then a count
  for (std::size_t i = 0; i < loads.size() && i < kShown; ++i)
    std::cerr << "tpeopt: " << io::describe_data_load(loads[i]) << '\n';
  if (loads.size() > kShown) {
    std::uint64_t rows = 0;
    for (const auto& l : loads) rows += l.rows;
    std::cerr << fmt::format("tpeopt: ... and {} more ({} series, {} {} in all)\n", loads.size() - kShown,
                             loads.size(), rows, loads.front().unit);
  }
  return strategy;
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
  cmd.add_option("--executor", executor, "cpu, cuda or auto (overrides the config's executor; auto = cuda if a GPU is usable)")
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
  if (trials) {
    if (*trials == 0) throw make_error("--trials: must be at least 1");
    c.search.trials = *trials;
  }
  if (batch) {
    if (*batch == 0) throw make_error("--batch: must be at least 1");
    c.search.batch = *batch;
  }
  if (depth) {
    if (*depth == 0) throw make_error("--depth: must be at least 1");
    c.search.depth = *depth;
  }
  if (seed) c.search.seed = *seed;
  if (!executor.empty()) c.executor = executor;
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
