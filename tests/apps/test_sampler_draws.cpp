// Batch TPE's draws by version (docs/tpe.md, "Distinct trials"; docs/user-guide.md, resume):
// "distinct": false proposes the trials of sampler draws version 8, and the default those of
// version 9. A change to either set of draws must come with a new version, or resuming a run
// would mix two samplers' trials; these digests are what pins them.
#include <catch2/catch.hpp>

#include <fstream>
#include <string>

#include "io/json_fields.hpp"
#include "support/files.hpp"
#include "support/paths.hpp"
#include "support/process.hpp"

using namespace tpeopt;

namespace {

// The digest of examples/exhaustion_eurusd_holdout.json on the CPU, with search.tpe.distinct
// set to `distinct` (absent: the default).
std::string holdout_example_digest(const std::string& tmp, const char* name, const io::Json* distinct) {
  io::Json j = testing::read_json(testing::source_dir() + "/examples/exhaustion_eurusd_holdout.json");
  j["data"]["candles"] = testing::data_dir() + "/backtesting-py/EURUSD.csv";
  if (distinct) j["search"]["tpe"]["distinct"] = *distinct;
  const std::string config = tmp + "/" + name + ".json";
  std::ofstream(config) << j.dump(2);
  const std::string dir = tmp + "/" + name;
  const auto r = testing::run_cli({"run", "-c", config, "--executor", "cpu", "-q", "--out", dir});
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  return io::Json::parse(testing::read_text(dir + "/summary.json")).at("digest").get<std::string>();
}

}  // namespace

TEST_CASE("batch TPE's draws: distinct false is version 8's, the default version 9's", "[cpu][cli][tpe]") {
  const std::string tmp = testing::make_process_temp_dir("sampler_draws");
  const io::Json off = false;
  // Version 8's digest of this example (before distinct trials; docs/benchmarks.md, "Parity
  // and recovery on the GPU", quotes it on both executors).
  CHECK(holdout_example_digest(tmp, "v8", &off) == "2ff7c312a5456426");
  // Version 9's, the same on the H200's CUDA executor (bench/results/h200-examples-distinct.txt).
  CHECK(holdout_example_digest(tmp, "v9", nullptr) == "e5e52187c0f5b9f2");
  CHECK(testing::read_json(tmp + "/v8/run.json").at("sampler_draws") == 8);
  CHECK(testing::read_json(tmp + "/v9/run.json").at("sampler_draws") == 9);
}
