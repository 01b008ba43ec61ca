// Data subsets through the command line (docs/strategies.md, "Data subsets"): `tpeopt run` with a hold-out and
// successive halving writes in-sample and out-of-sample scores side by side (top.json,
// trials.csv, summary.json), `tpeopt report` shows them, and `tpeopt resume` of the
// finished run keeps its digest.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "io/json_fields.hpp"
#include "reports/run_report_data.hpp"
#include "support/files.hpp"
#include "support/paths.hpp"
#include "support/process.hpp"
#include "support/trade_filter_fixture.hpp"

using namespace tpeopt;
namespace fs = std::filesystem;

namespace {

using testing::read_text;
using testing::run_cli;

/// Writes `config` to tmp/study.json and runs `tpeopt run` on the CPU into tmp/run.
testing::ProcessResult run_config(const std::string& tmp, const io::Json& config, const std::string& dir) {
  const std::string config_path = tmp + "/study.json";
  std::ofstream(config_path) << config.dump(2);
  return run_cli({"run", "-c", config_path, "--executor", "cpu", "-q", "--out", dir});
}

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> out;
  std::string cell;
  std::stringstream s(line);
  while (std::getline(s, cell, ',')) out.push_back(cell);
  if (!line.empty() && line.back() == ',') out.push_back("");
  return out;
}

}  // namespace

TEST_CASE("tpeopt run with a hold-out and halving shows in-sample and out-of-sample side by side",
          "[cpu][subsets][holdout][cli]") {
  const std::string tmp = testing::make_process_temp_dir("subsets_cli");
  const auto cache = testing::trade_filter_cache(12, 900, 9);
  io::Json config = {{"strategy", "trade_filter"},
                     {"data", {{"cache", cache.string()}, {"holdout", {{"fraction", 0.25}}}}},
                     {"objective", {{"min_trades", 2}}},
                     {"search", {{"trials", 96}, {"batch", 32}, {"seed", 4}, {"top_k", 6}, {"halving", {{"eta", 3}}}}},
                     {"params", io::Json::parse(testing::trade_filter_continuous_params(0.2, 3.0))}};
  const std::string dir = tmp + "/run";
  const auto r = run_config(tmp, config, dir);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  REQUIRE_THAT(r.output, Catch::Contains("hold-out:"));

  const io::Json top = io::Json::parse(read_text(fs::path(dir) / "top.json"));
  REQUIRE(top.size() == 6);
  std::set<std::uint64_t> top_trials;
  for (const auto& e : top) {
    REQUIRE(e.contains("out_of_sample"));
    REQUIRE(e["out_of_sample"].contains("score"));
    REQUIRE(e["out_of_sample"]["metrics"].contains("kept"));
    top_trials.insert(e["trial"].get<std::uint64_t>());
  }
  const io::Json summary = io::Json::parse(read_text(fs::path(dir) / "summary.json"));
  REQUIRE(summary.contains("holdout"));
  REQUIRE(summary["holdout"]["top_k"] == 6);
  REQUIRE(summary["holdout"]["unit"] == "trading days");
  REQUIRE(summary["holdout"]["in_sample"].get<int>() + summary["holdout"]["out_of_sample"].get<int>() == 12);

  // trials.csv: every trial, its rung, and the out-of-sample score of the top K.
  std::ifstream csv(fs::path(dir) / "trials.csv");
  std::string line;
  std::getline(csv, line);
  const auto header = split(line);
  const auto col = [&](const std::string& name) {
    const auto it = std::find(header.begin(), header.end(), name);
    REQUIRE(it != header.end());
    return static_cast<std::size_t>(it - header.begin());
  };
  const std::size_t c_trial = col("trial"), c_oos = col("oos_score"), c_rung = col("rung"), c_pruned = col("pruned");
  std::size_t rows = 0, filled = 0, pruned = 0;
  while (std::getline(csv, line)) {
    const auto cells = split(line);
    REQUIRE(cells.size() == header.size());
    ++rows;
    const bool in_top = top_trials.count(std::stoull(cells[c_trial])) > 0;
    REQUIRE(cells[c_oos].empty() == !in_top);
    filled += in_top ? 1 : 0;
    pruned += cells[c_pruned] == "1" ? 1 : 0;
    REQUIRE_FALSE(cells[c_rung].empty());
    if (in_top) {
      const auto& e = *std::find_if(top.begin(), top.end(),
                                    [&](const io::Json& x) { return x["trial"] == std::stoull(cells[c_trial]); });
      // Both files print the double in shortest round-trip form: the same bits.
      REQUIRE(std::stod(cells[c_oos]) == e["out_of_sample"]["score"].get<double>());
      REQUIRE(cells[c_pruned] == "0");
    }
  }
  REQUIRE(rows == 96);
  REQUIRE(filled == 6);
  REQUIRE(pruned > 48);

  const auto report = run_cli({"report", dir});
  INFO(report.output);
  REQUIRE(report.exit_code == 0);
  const std::string html = read_text(fs::path(dir) / "report.html");
  REQUIRE_THAT(html, Catch::Contains("id=\"holdout\""));
  REQUIRE_THAT(html, Catch::Contains("Spearman"));

  // Without top.json (an interrupted run) the report ranks trials.csv, survivors only.
  fs::rename(fs::path(dir) / "top.json", fs::path(tmp) / "top.json.saved");
  {
    const auto data = engine::load_run_report_data(dir);
    REQUIRE_FALSE(data.top_from_file);
    REQUIRE(data.top.size() == 6);
    for (std::size_t i = 0; i < data.top.size(); ++i) REQUIRE(data.top[i]["trial"] == top[i]["trial"]);
  }
  fs::rename(fs::path(tmp) / "top.json.saved", fs::path(dir) / "top.json");

  // Resuming a finished run replays the journal (rungs included) to the same digest.
  const std::string digest = summary["digest"];
  const auto resumed = run_cli({"resume", dir, "--executor", "cpu", "-q"});
  INFO(resumed.output);
  REQUIRE(resumed.exit_code == 0);
  const io::Json again = io::Json::parse(read_text(fs::path(dir) / "summary.json"));
  REQUIRE(again["digest"] == digest);
  REQUIRE(io::Json::parse(read_text(fs::path(dir) / "top.json")) == top);
}

TEST_CASE("tpeopt run with walk-forward runs each fold in its own directory and tables the folds",
          "[cpu][subsets][walk_forward][cli]") {
  const std::string tmp = testing::make_process_temp_dir("walk_forward_cli");
  const auto cache = testing::trade_filter_cache(12, 900, 9);
  io::Json config = {{"strategy", "trade_filter"},
                     {"data", {{"cache", cache.string()}, {"walk_forward", 3}}},
                     {"search", {{"trials", 40}, {"batch", 20}, {"seed", 2}, {"top_k", 4}}},
                     {"params", io::Json::parse(testing::trade_filter_continuous_params(0.2, 3.0))}};
  const std::string dir = tmp + "/run";
  const auto r = run_config(tmp, config, dir);
  INFO(r.output);
  // No trial keeps a trade on fold 3's in-sample days: that fold has no feasible trial, which
  // the run says, exiting 4, after running and tabling every fold.
  REQUIRE(r.exit_code == 4);
  REQUIRE_THAT(r.output, Catch::Contains("tpeopt: 1 of 3 folds found no feasible trial"));
  REQUIRE_THAT(r.output, Catch::Contains("walk-forward: 3 folds"));
  const io::Json table = io::Json::parse(read_text(fs::path(dir) / "walk_forward.json"));
  REQUIRE(table["fold_results"].size() == 3);
  for (int f = 1; f <= 3; ++f) {
    CAPTURE(f);
    const auto& row = table["fold_results"][f - 1];
    REQUIRE(row["complete"] == true);
    const io::Json top = io::Json::parse(read_text(fs::path(dir) / ("fold-" + std::to_string(f)) / "top.json"));
    REQUIRE(top.size() == 4);
    REQUIRE(row["best_trial"] == top[0]["trial"]);
    REQUIRE(row["out_of_sample_score"] == top[0]["out_of_sample"]["score"]);
    if (f > 1) REQUIRE(row["in_sample"]["first"] == table["fold_results"][f - 2]["out_of_sample"]["first"]);
  }
  const std::string csv = read_text(fs::path(dir) / "walk_forward.csv");
  REQUIRE(std::count(csv.begin(), csv.end(), '\n') == 4);
  const auto report = run_cli({"report", dir});
  INFO(report.output);
  REQUIRE(report.exit_code == 0);
  const std::string html = read_text(fs::path(dir) / "report.html");
  REQUIRE_THAT(html, Catch::Contains("id=\"folds\""));
  REQUIRE_THAT(html, Catch::Contains("<svg"));
  // Resuming the parent replays every fold to the same results: the folds' summaries are
  // removed first, so that only a replay can write them again.
  std::string digests[3];
  for (int f = 1; f <= 3; ++f) {
    const fs::path summary = fs::path(dir) / ("fold-" + std::to_string(f)) / "summary.json";
    digests[f - 1] = io::Json::parse(read_text(summary))["digest"];
    fs::remove(summary);
  }
  const auto resumed = run_cli({"resume", dir, "--executor", "cpu", "-q"});
  INFO(resumed.output);
  REQUIRE(resumed.exit_code == 4);  // fold 3, as above
  for (int f = 1; f <= 3; ++f) {
    CAPTURE(f);
    const fs::path summary = fs::path(dir) / ("fold-" + std::to_string(f)) / "summary.json";
    REQUIRE(fs::exists(summary));
    CHECK(io::Json::parse(read_text(summary))["digest"] == digests[f - 1]);
  }
}

TEST_CASE("the exhaustion hold-out and halving example runs: one digest on 1 and 2 threads, hold-out reported",
          "[cpu][subsets][holdout][cli]") {
  const std::string tmp = testing::make_process_temp_dir("subsets_example");
  const std::string example = testing::source_dir() + "/examples/exhaustion_eurusd_holdout.json";
  std::string digest[2];
  for (int threads = 1; threads <= 2; ++threads) {
    const std::string dir = tmp + "/run" + std::to_string(threads);
    const auto r =
        run_cli({"run", "-c", example, "--executor", "cpu", "--threads", std::to_string(threads), "-q", "--out", dir});
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    const auto summary = io::Json::parse(read_text(dir + "/summary.json"));
    REQUIRE(summary.contains("holdout"));
    CHECK(summary["holdout"]["top_k"].get<int>() > 0);
    // The example holds out the last quarter of its 5,000 EURUSD bars.
    CHECK(summary["holdout"]["in_sample"].get<int>() + summary["holdout"]["out_of_sample"].get<int>() == 5000);
    CHECK(summary["holdout"]["out_of_sample"].get<int>() > 0);
    digest[threads - 1] = summary["digest"].get<std::string>();
  }
  CHECK(digest[0] == digest[1]);
}

TEST_CASE("a study whose strategy cannot be cut into parts is refused before its run directory exists",
          "[cpu][subsets][cli]") {
  // Every strategy that reads data can be cut into parts; the functions strategy reads none:
  // successive halving is refused by the engine, a hold-out (a key of `data`) by the config.
  const std::string tmp = testing::make_process_temp_dir("subsets_refused");
  const io::Json params = {{"x0", {{"type", "float"}, {"low", -1.0}, {"high", 1.0}}},
                           {"x1", {{"type", "float"}, {"low", -1.0}, {"high", 1.0}}}};
  for (const char* key : {"search.halving", "data"}) {
    CAPTURE(key);
    io::Json config = {{"strategy", "functions"},
                       {"function", "sphere"},
                       {"search", {{"trials", 40}, {"batch", 20}, {"seed", 1}}},
                       {"params", params}};
    if (std::string(key) == "data") config["data"] = {{"holdout", {{"fraction", 0.25}}}};
    if (std::string(key) == "search.halving") config["search"]["halving"] = {{"eta", 3}};
    const std::string dir = tmp + "/run_" + std::string(key);
    const auto r = run_config(tmp, config, dir);
    INFO(r.output);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.output, Catch::Contains(std::string(key) + ": strategy functions"));
    CHECK_FALSE(fs::exists(dir));
    // `tpeopt grid` refuses it before creating its directory too (over value lists: a grid
    // refuses continuous ranges first).
    const std::string grid_dir = tmp + "/grid_" + std::string(key);
    config["params"] = {{"x0", {{"values", {-1.0, 0.0, 1.0}}}}, {"x1", {{"values", {-1.0, 1.0}}}}};
    std::ofstream(tmp + "/grid.json") << config.dump(2);
    const auto g = run_cli({"grid", "-c", tmp + "/grid.json", "--executor", "cpu", "-q", "-o", grid_dir});
    INFO(g.output);
    CHECK(g.exit_code == 2);
    CHECK_THAT(g.output, Catch::Contains(std::string(key) + ": "));
    CHECK_FALSE(fs::exists(grid_dir));
  }
}
