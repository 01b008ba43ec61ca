// [scale-out] on one host: a run spread over 2 GPUs (--devices 0,1) is the run on one
// GPU and on the CPU, bit for bit. Needs a machine with at least 2 CUDA devices.
#include <catch2/catch.hpp>

#include "gpu/cuda_executor.hpp"
#include "config/study_config.hpp"
#include "study/study.hpp"
#include "support/paths.hpp"

using namespace tpeopt;

TEST_CASE("a run on 2 GPUs equals the run on 1 GPU and on the CPU", "[gpu][scale-out]") {
  if (gpu::cuda_device_count() < 2) {
    WARN("fewer than 2 CUDA devices: run this on a 2-GPU machine (nvidia-h200-x2)");
    return;
  }
  io::StudyConfig config = io::load_study_config(testing::source_dir() + "/examples/exhaustion_eurusd.json");
  config.search.trials = 1500;
  config.search.batch = 300;  // batches cut over 2 devices, speeds re-measured after each
  auto digest = [&](const std::string& executor, std::vector<int> devices) {
    engine::RunOptions o;
    o.executor = executor;
    o.cuda_devices = std::move(devices);
    return engine::run_study(config, o).result.digest_hex();
  };
  const std::string one = digest("cuda", {0});
  REQUIRE(digest("cuda", {0, 1}) == one);
  REQUIRE(digest("cuda", {1, 0}) == one);
  REQUIRE(digest("cpu", {}) == one);
}
