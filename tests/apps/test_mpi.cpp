// [scale-out] across hosts: `mpirun -n N tpeopt run` gives the same digest for 1, 2 and
// 3 CPU-executor ranks, and a rank that dies ends the run with mpirun's error naming
// it, a consistent journal, and a resume on fewer ranks that ends identical.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "io/json_fields.hpp"
#include "scaleout/mpi_ranks.hpp"
#include "storage/journal.hpp"
#include "support/process.hpp"

using namespace tpeopt;
namespace fs = std::filesystem;

namespace {

std::string digest_of(const std::string& run_dir) {
  std::ifstream in(run_dir + "/summary.json");
  std::stringstream s;
  s << in.rdbuf();
  return io::Json::parse(s.str()).at("digest");
}

/// mpirun as CI runs it: as root, more ranks than cores.
testing::ProcessResult mpirun(int ranks, std::vector<std::string> args) {
  ::setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
  ::setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
  std::vector<std::string> cmd = {"/usr/bin/mpirun", "--oversubscribe", "-n", std::to_string(ranks),
                                  testing::cli_path()};
  cmd.insert(cmd.end(), args.begin(), args.end());
  return testing::run_process(cmd);
}

std::string write_config(const std::string& dir) {
  io::Json j = {{"strategy", "functions"},
                {"function", "styblinski_tang"},
                {"search", {{"sampler", "tpe"}, {"trials", 600}, {"batch", 50}, {"depth", 2}, {"seed", 21}}}};
  io::Json params = io::Json::object();
  for (int i = 0; i < 5; ++i) params["x" + std::to_string(i)] = {{"type", "float"}, {"low", -5.0}, {"high", 5.0}};
  params["n"] = {{"type", "int"}, {"low", -3}, {"high", 3}};
  j["params"] = params;
  std::ofstream(dir + "/study.json") << j.dump(2);
  return dir + "/study.json";
}

}  // namespace

TEST_CASE("1, 2 and 3 MPI ranks give the same digest, a dead rank leaves a journal that resumes on fewer ranks",
          "[cpu][scale-out][mpi]") {
  if (!engine::mpi::built_with_mpi()) {
    WARN("this tpeopt was built without MPI (no Open MPI at configure time): nothing to test");
    return;
  }
  REQUIRE(fs::exists("/usr/bin/mpirun"));
  const std::string tmp = testing::make_temp_dir("mpi");
  const std::string config = write_config(tmp);
  const auto plain =
      testing::run_process({testing::cli_path(), "run", "-c", config, "--executor", "cpu", "-q", "-o", tmp + "/plain"});
  REQUIRE(plain.exit_code == 0);
  const std::string expected = digest_of(tmp + "/plain");

  for (int ranks : {1, 2, 3}) {
    const std::string dir = tmp + "/ranks" + std::to_string(ranks);
    const auto r = mpirun(ranks, {"run", "-c", config, "--executor", "cpu", "-q", "-o", dir});
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    REQUIRE(digest_of(dir) == expected);
  }

  // Rank 2 dies (SIGKILL) when batch 4 reaches it.
  const std::string dir = tmp + "/killed";
  ::setenv("TPEOPT_MPI_KILL_RANK_AT_BATCH", "2:4", 1);
  const auto killed = mpirun(3, {"run", "-c", config, "--executor", "cpu", "-q", "-o", dir});
  ::unsetenv("TPEOPT_MPI_KILL_RANK_AT_BATCH");
  INFO(killed.output);
  REQUIRE(killed.exit_code != 0);
  REQUIRE_THAT(killed.output, Catch::Contains("rank 2") && Catch::Contains("signal 9"));
  REQUIRE(!fs::exists(dir + "/summary.json"));
  const auto journal = engine::read_journal(dir + "/journal.bin");
  REQUIRE(journal.records.size() >= 3);  // batches 0..3 were told before rank 2 died (depth 2: maybe fewer than 4)
  REQUIRE(journal.records.size() < 12);

  const auto resumed = mpirun(2, {"resume", dir, "--executor", "cpu", "-q"});
  INFO(resumed.output);
  REQUIRE(resumed.exit_code == 0);
  REQUIRE(digest_of(dir) == expected);
  fs::remove_all(tmp);
}
