// `--executor cuda` on a machine without a usable CUDA device is refused before the run
// directory exists (the CPU-only CI machine; skipped where a GPU is present).
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "gpu/cuda_executor.hpp"
#include "support/paths.hpp"
#include "support/process.hpp"

using namespace tpeopt;
namespace fs = std::filesystem;

TEST_CASE("run and verify with executor cuda and no CUDA device are refused before the run directory exists",
          "[cpu][cli]") {
  if (gpu::cuda_available()) {
    WARN("skipped: this machine has a CUDA device");
    return;
  }
  const std::string tmp = testing::make_process_temp_dir("executor_choice");
  const std::string config = testing::source_dir() + "/examples/functions_rastrigin.json";
  for (const char* command : {"run", "verify"}) {
    CAPTURE(command);
    const std::string dir = tmp + "/" + command;
    std::vector<std::string> args = {command, "-c", config, "--executor", "cuda"};
    if (std::string(command) != "verify") args.insert(args.end(), {"-o", dir});
    const auto r = testing::run_cli(args);
    INFO(r.output);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.output, Catch::Contains("--executor cuda: no usable CUDA device"));
    CHECK_FALSE(fs::exists(dir));
  }
}
