// [long-runs] for `tpeopt grid` and for a full disk: a trade_filter grid killed at any
// point resumes to the very top K of an uninterrupted one (whatever the segment size),
// a generic grid is a resumable run like `run`, and a run or grid whose disk fills up
// stops with an error naming the file, leaves a journal that resumes to the same result.
#include <catch2/catch.hpp>

#include <signal.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include <fmt/format.h>

#include "io/json_fields.hpp"
#include "support/files.hpp"
#include "support/process.hpp"
#include "support/trade_filter_fixture.hpp"

using namespace tpeopt;
namespace fs = std::filesystem;

namespace {

using testing::read_json;
using testing::run_cli;

/// A trade_filter grid config (2,700 combinations) over generated data.
std::string write_grid_config(const std::string& dir) {
  const fs::path cache = testing::trade_filter_cache(4, 6000, 17);
  io::Json j = {{"strategy", "trade_filter"},
                {"data", {{"cache", cache.string()}}},
                {"objective", {{"min_trades", 50}}},
                {"search", {{"sampler", "grid"}}},
                {"params",
                 {{"min_volatility", {{"values", {0.0, 0.2, 0.4, 0.6, 0.8}}}},
                  {"min_ratio", {{"values", {0.0, 0.5, 0.9}}}},
                  {"min_adx28", {{"values", {0, 15, 25}}}},
                  {"min_adx14", {{"values", {0, 20}}}},
                  {"min_adx7", {{"values", {0, 20, 30}}}},
                  {"target_pct", {{"values", {0.2, 0.4, 0.6, 0.8, 1.0}}}},
                  {"stop_pct", {{"values", {-0.6, -0.4}}}}}}};
  const std::string path = dir + "/grid.json";
  std::ofstream(path) << j.dump(2);
  return path;
}

/// A functions study (4 floats, 240 trials in batches of 16).
std::string write_run_config(const std::string& dir) {
  io::Json j = {{"strategy", "functions"},
                {"function", "rastrigin"},
                {"search", {{"sampler", "tpe"}, {"trials", 240}, {"batch", 16}, {"depth", 2}, {"seed", 3}}}};
  io::Json params = io::Json::object();
  for (int i = 0; i < 4; ++i) params["x" + std::to_string(i)] = {{"type", "float"}, {"low", -5.12}, {"high", 5.12}};
  j["params"] = params;
  const std::string path = dir + "/study.json";
  std::ofstream(path) << j.dump(2);
  return path;
}

/// Runs the CLI through /bin/sh with a file-size limit (ulimit -f, 512-byte blocks):
/// a write past it fails with EFBIG, as a full disk fails with ENOSPC. SIGXFSZ is
/// ignored so that the write fails instead of killing the process.
testing::ProcessResult run_cli_with_file_limit(std::size_t blocks, const std::vector<std::string>& args) {
  std::string command = fmt::format("trap '' XFSZ; ulimit -f {}; exec '{}'", blocks, testing::cli_path());
  for (const auto& a : args) command += " '" + a + "'";
  return testing::run_process({"/bin/sh", "-c", command});
}

}  // namespace

TEST_CASE("a trade_filter grid has the same top K whatever its segments, and resumes after SIGKILL",
          "[cpu][long-runs][grid]") {
  const std::string tmp = testing::make_temp_dir("grid");
  const std::string config = write_grid_config(tmp);
  const auto whole = run_cli({"grid", "-c", config, "--executor", "cpu", "-q", "--top", "25", "-o", tmp + "/whole"});
  INFO(whole.output);
  REQUIRE(whole.exit_code == 0);
  const io::Json summary = read_json(tmp + "/whole/summary.json");
  REQUIRE(summary.at("segments") == 1);
  const std::string digest = summary.at("digest");
  const io::Json top = read_json(tmp + "/whole/top.json");
  REQUIRE(top.size() == 25);

  SECTION("segment sizes do not change the result") {
    for (const char* size : {"2", "60", "1000"}) {
      const std::string dir = tmp + "/seg" + size;
      const auto r = run_cli(
          {"grid", "-c", config, "--executor", "cpu", "-q", "--top", "25", "--segment-combinations", size, "-o", dir});
      INFO(r.output);
      REQUIRE(r.exit_code == 0);
      REQUIRE(read_json(dir + "/summary.json").at("segments").get<int>() > 1);
      REQUIRE(read_json(dir + "/summary.json").at("digest") == digest);
      REQUIRE(read_json(dir + "/top.json") == top);
    }
  }

  SECTION("killed at random points, resumed, same top K") {
    // A run of small segments, then copies of it killed once their journal has grown to a
    // random fraction of the finished one's (points set by progress, not by time, land inside
    // the run on a loaded machine too).
    const std::vector<std::string> grid_args = {"grid",       "-c",  config,
                                                "--executor", "cpu", "-q",
                                                "--top",      "25",  "--segment-combinations",
                                                "10"};
    auto ref_args = grid_args;
    ref_args.insert(ref_args.end(), {"-o", tmp + "/small"});
    REQUIRE(run_cli(ref_args).exit_code == 0);
    const std::uint64_t segments = read_json(tmp + "/small/summary.json").at("segments");
    REQUIRE(segments > 50);
    const auto journal_bytes = fs::file_size(tmp + "/small/grid_journal.bin");

    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> where(0.1, 0.9);
    int resumed = 0;
    for (int point = 0; point < 6; ++point) {
      const std::string dir = tmp + "/killed" + std::to_string(point);
      std::vector<std::string> args = {testing::cli_path()};
      args.insert(args.end(), grid_args.begin(), grid_args.end());
      args.insert(args.end(), {"-o", dir});
      const auto at = static_cast<std::uintmax_t>(where(rng) * static_cast<double>(journal_bytes));
      const auto killed = testing::run_and_kill_at_size(args, dir + "/grid_journal.bin", at);
      CAPTURE(point, killed.output);
      REQUIRE_FALSE(killed.timed_out);
      if (killed.signal != SIGKILL) {  // it finished before a poll saw the journal reach the point
        REQUIRE(killed.exit_code == 0);
        REQUIRE(read_json(dir + "/summary.json").at("digest") == digest);
        REQUIRE(read_json(dir + "/top.json") == top);
        continue;
      }
      const auto r = run_cli({"resume", dir, "--executor", "cpu", "-q"});
      INFO(r.output);
      REQUIRE(r.exit_code == 0);
      REQUIRE_THAT(r.output, Catch::Contains("segments in the journal"));
      REQUIRE(read_json(dir + "/summary.json").at("digest") == digest);
      REQUIRE(read_json(dir + "/top.json") == top);
      if (read_json(dir + "/summary.json").at("replayed_segments").get<std::uint64_t>() > 0) ++resumed;
    }
    // Each point lies between a tenth and nine tenths of the journal: a run may at most rarely
    // end between the poll and the kill, and a kill that far in has segments to replay.
    REQUIRE(resumed >= 5);
  }

  SECTION("resume refuses a changed grid") {
    const std::string dir = tmp + "/changed";
    REQUIRE(run_cli({"grid", "-c", config, "--executor", "cpu", "-q", "-o", dir}).exit_code == 0);
    io::Json cfg = read_json(dir + "/config.json");
    cfg["params"]["stop_pct"]["values"] = {-0.6, -0.5};
    std::ofstream(dir + "/config.json") << cfg.dump(2);
    const auto r = run_cli({"resume", dir, "--executor", "cpu"});
    REQUIRE(r.exit_code == 2);
    REQUIRE_THAT(r.output, Catch::Contains("refusing to resume: config.json was changed"));
  }
  fs::remove_all(tmp);
}

TEST_CASE("a grid of another strategy is a journaled run that resumes", "[cpu][long-runs][grid]") {
  const std::string tmp = testing::make_temp_dir("grid-generic");
  io::Json j = {{"strategy", "functions"}, {"function", "sphere"}, {"search", {{"batch", 7}}}};
  j["params"] = {{"x0", {{"values", {-1.0, 0.0, 1.0, 2.0}}}}, {"x1", {{"type", "int"}, {"low", -4}, {"high", 4}}}};
  std::ofstream(tmp + "/g.json") << j.dump();
  const auto r = run_cli({"grid", "-c", tmp + "/g.json", "--executor", "cpu", "-q", "-o", tmp + "/g"});
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  REQUIRE(fs::exists(tmp + "/g/journal.bin"));
  REQUIRE(read_json(tmp + "/g/summary.json").at("trials") == 36);
  const io::Json best = read_json(tmp + "/g/top.json").at(0);
  REQUIRE(best.at("score").get<double>() == 0.0);  // sphere's minimum, x0 = x1 = 0, is on the grid
  REQUIRE(best.at("params").at("x0").get<double>() == 0.0);
  fs::remove_all(tmp);
}

TEST_CASE("a full disk stops a run and a grid with an error naming the file, they resume to the same result",
          "[cpu][long-runs]") {
  const std::string tmp = testing::make_temp_dir("disk-full");

  SECTION("run") {
    const std::string config = write_run_config(tmp);
    REQUIRE(run_cli({"run", "-c", config, "--executor", "cpu", "-q", "-o", tmp + "/ref"}).exit_code == 0);
    const std::string dir = tmp + "/full";
    // 24 KiB: config, journal header and the first batches fit; trials.csv or the journal hits the limit.
    const auto r = run_cli_with_file_limit(48, {"run", "-c", config, "--executor", "cpu", "-q", "-o", dir});
    INFO(r.output);
    REQUIRE(r.exit_code == 2);
    REQUIRE_THAT(r.output, Catch::Contains("write failed: File too large") &&
                               Catch::Contains("continue with: tpeopt resume " + dir));
    REQUIRE(!fs::exists(dir + "/summary.json"));  // nothing claims the run finished
    const auto resumed = run_cli({"resume", dir, "--executor", "cpu", "-q"});
    INFO(resumed.output);
    REQUIRE(resumed.exit_code == 0);
    REQUIRE(read_json(dir + "/summary.json").at("digest") == read_json(tmp + "/ref/summary.json").at("digest"));
  }

  SECTION("grid") {
    const std::string config = write_grid_config(tmp);
    const std::vector<std::string> args = {"grid",       "-c",  config,
                                           "--executor", "cpu", "-q",
                                           "--top",      "200", "--segment-combinations",
                                           "30"};
    auto ref = args;
    ref.insert(ref.end(), {"-o", tmp + "/ref"});
    REQUIRE(run_cli(ref).exit_code == 0);
    const std::string dir = tmp + "/full";
    auto limited = args;
    limited.insert(limited.end(), {"-o", dir});
    // Each segment record holds 200 hits (48 bytes each): the journal passes 64 KiB after a few.
    const auto r = run_cli_with_file_limit(128, limited);
    INFO(r.output);
    REQUIRE(r.exit_code == 2);
    REQUIRE_THAT(r.output, Catch::Contains("grid_journal.bin: write failed: File too large") &&
                               Catch::Contains("continue with: tpeopt resume " + dir));
    REQUIRE(!fs::exists(dir + "/summary.json"));
    const auto resumed = run_cli({"resume", dir, "--executor", "cpu", "-q"});
    INFO(resumed.output);
    REQUIRE(resumed.exit_code == 0);
    REQUIRE(read_json(dir + "/summary.json").at("replayed_segments").get<int>() > 0);
    REQUIRE(read_json(dir + "/summary.json").at("digest") == read_json(tmp + "/ref/summary.json").at("digest"));
    REQUIRE(read_json(dir + "/top.json") == read_json(tmp + "/ref/top.json"));
  }
  fs::remove_all(tmp);
}
