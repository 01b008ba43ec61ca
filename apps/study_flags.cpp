#include "apps/study_flags.hpp"

#include "common/error.hpp"
#include "engine/python_objective.hpp"

namespace tpeopt::app {

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
  if (c.strategy == "python") throw Error(engine::python_objective_only_message(c));
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
