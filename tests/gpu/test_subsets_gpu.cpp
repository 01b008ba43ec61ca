// [subsets] on the GPU: the CUDA executor runs hold-out and successive-halving studies of
// trade_filter (rungs are day subsets of the data, each its own device upload) and of
// exhaustion (rungs and parts are blocks of bars) with the same bits as the CPU executor:
// every trial's score, violation and rung, the digest and the hold-out's rank correlation.
#include <catch2/catch.hpp>

#include <cstring>

#include "gpu/cuda_executor.hpp"
#include "study/study.hpp"
#include "support/bits.hpp"
#include "support/paths.hpp"
#include "support/trade_filter_fixture.hpp"

using namespace tpeopt;

namespace {

using tpeopt::testing::same_bits;

engine::StudyRun run_on(const io::StudyConfig& config, const strategies::Strategy& strategy,
                        const std::string& executor, bool serial) {
  engine::RunOptions o;
  o.executor = executor;
  o.serial = serial;
  o.keep_trials = true;
  return engine::run_study(config, strategy, o);
}

/// The CPU run (serial) and the CUDA run (pipelined) of one study, trial by trial.
void require_cuda_equals_cpu(const io::StudyConfig& config, bool halving) {
  const auto strategy = engine::make_strategy(config);
  const auto cpu = run_on(config, *strategy, "cpu", true);
  const auto cuda = run_on(config, *strategy, "cuda", false);
  REQUIRE(cuda.executor == "cuda");
  REQUIRE(cpu.result.trials().size() == cuda.result.trials().size());
  std::size_t pruned = 0, feasible = 0;
  for (std::size_t i = 0; i < cpu.result.trials().size(); ++i) {
    const auto& a = cpu.result.trials()[i];
    const auto& b = cuda.result.trials()[i];
    CAPTURE(i);
    REQUIRE(same_bits(a.score, b.score));
    REQUIRE(same_bits(a.violation, b.violation));
    REQUIRE(a.rung == b.rung);
    pruned += a.pruned ? 1 : 0;
    feasible += a.violation == 0.0 ? 1 : 0;
  }
  REQUIRE((pruned > 0) == halving);
  REQUIRE(feasible > 0);
  REQUIRE(cpu.result.digest_hex() == cuda.result.digest_hex());
  REQUIRE(cpu.holdout.has_value());
  REQUIRE(cuda.holdout.has_value());
  REQUIRE(same_bits(cpu.holdout->spearman, cuda.holdout->spearman));
}

}  // namespace

TEST_CASE("subsets GPU: hold-out and halving runs of trade_filter equal the CPU runs", "[gpu][subsets]") {
  REQUIRE(gpu::cuda_available());
  const auto cache = testing::trade_filter_cache(15, 1500, 23);
  auto config =
      testing::trade_filter_config(cache, testing::trade_filter_continuous_params(0.2, 3.0),
                                   R"({"sampler": "tpe", "trials": 600, "batch": 120, "depth": 2, "seed": 5, "top_k": 8,
          "tpe": {"n_startup_trials": 20}})",
                                   2);
  const bool halving = GENERATE(false, true);
  CAPTURE(halving);
  config.holdout.fraction = 0.25;
  config.search.halving.enabled = halving;
  config.search.halving.eta = 3;
  config.search.halving.min_slices = 1;
  require_cuda_equals_cpu(config, halving);
}

TEST_CASE("subsets GPU: hold-out and halving runs of exhaustion equal the CPU runs", "[gpu][subsets]") {
  REQUIRE(gpu::cuda_available());
  auto config = io::load_study_config(testing::source_dir() + "/examples/exhaustion_eurusd.json");
  const bool halving = GENERATE(false, true);
  CAPTURE(halving);
  config.search.trials = 600;
  config.search.batch = 150;
  config.holdout.fraction = 0.2;
  config.search.halving.enabled = halving;
  config.search.halving.eta = 3;
  config.search.halving.min_slices = 2;
  config.search.halving.slices = 12;
  require_cuda_equals_cpu(config, halving);
}
