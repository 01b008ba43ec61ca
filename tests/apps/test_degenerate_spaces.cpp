// A space with no free axis (every parameter fixed, low == high, one choice, one grid point)
// has one point: `tpeopt run` evaluates it with every sampler (search.trials times; a grid
// once) and exits 0. Run through the real program, so that a crash is seen as a signal.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "support/files.hpp"
#include "support/process.hpp"

namespace fs = std::filesystem;
using namespace tpeopt::testing;

namespace {

// Each space's one point is x0 = 1, x1 = 2: sphere scores it 5.
const char* const kSpaces[][2] = {
    {"every parameter fixed", R"({"x0": 1.0, "x1": 2.0})"},
    {"low == high", R"({"x0": {"type": "float", "low": 1, "high": 1}, "x1": {"type": "int", "low": 2, "high": 2}})"},
    {"low == high with a step",
     R"({"x0": {"type": "float", "low": 1, "high": 1, "step": 0.5}, "x1": {"type": "int", "low": 2, "high": 2, "step": 3}})"},
    {"low == high on a log scale",
     R"({"x0": {"type": "float", "low": 1, "high": 1, "log": true}, "x1": {"type": "int", "low": 2, "high": 2, "log": true}})"},
    {"one choice", R"({"x0": {"type": "categorical", "choices": [1]}, "x1": {"values": [2]}})"},
    {"one grid point and a fixed number", R"({"x0": {"type": "float", "low": 1, "high": 1, "step": 1}, "x1": 2})"},
};

const char* const kSearches[][2] = {
    {"random", R"({"sampler": "random"})"},
    {"grid", R"({"sampler": "grid"})"},
    {"ga", R"({"sampler": "ga", "ga": {"population": 8}})"},
    {"batch tpe", R"({"sampler": "tpe", "tpe": {"n_startup_trials": 3}})"},
    {"optuna tpe", R"({"sampler": "tpe", "tpe": {"preset": "optuna", "n_startup_trials": 3}})"},
};

}  // namespace

TEST_CASE("tpeopt run: a space with no free axis runs its one point with every sampler", "[cpu][apps]") {
  const fs::path dir = make_temp_dir("degenerate_spaces");
  int n = 0;
  for (const auto& [space_name, params] : kSpaces)
    for (const auto& [sampler_name, sampler] : kSearches) {
      INFO(space_name << " | " << sampler_name);
      auto search = tpeopt::io::Json::parse(sampler);
      search.update({{"trials", 40}, {"batch", 7}, {"depth", 2}, {"seed", 5}});
      const tpeopt::io::Json config = {{"strategy", "functions"},
                                       {"function", "sphere"},
                                       {"objective", {{"direction", "minimize"}}},
                                       {"search", search},
                                       {"params", tpeopt::io::Json::parse(params)}};
      const fs::path file = dir / ("config_" + std::to_string(n) + ".json");
      const fs::path out = dir / ("run_" + std::to_string(n++));
      std::ofstream(file) << config.dump();
      const ProcessResult r =
          run_process_within({cli_path(), "run", "--config", file.string(), "--executor", "cpu", "--out", out.string()},
                             std::chrono::seconds(60));
      INFO(r.output);
      REQUIRE_FALSE(r.timed_out);
      REQUIRE(r.signal == 0);
      REQUIRE(r.exit_code == 0);
      // trials.csv: trial,batch,[x0,][x1,]score,violation; every row the one point, scored 5.
      std::istringstream csv(read_text((out / "trials.csv").string()));
      std::string header, row;
      std::getline(csv, header);
      const bool has_x0 = header.find("x0") != std::string::npos, has_x1 = header.find("x1") != std::string::npos;
      const std::string expected = std::string(has_x0 ? "1," : "") + (has_x1 ? "2," : "") + "5,0";
      std::size_t rows = 0;
      while (std::getline(csv, row)) {
        ++rows;
        const std::string values = row.substr(row.find(',', row.find(',') + 1) + 1);
        CHECK(values == expected);
      }
      CHECK(rows == (sampler_name == std::string("grid") ? 1u : 40u));
      CHECK(read_json((out / "summary.json").string()).at("trials") == rows);
    }
  fs::remove_all(dir);
}
