// The null check of docs/will-it-hold-up.md, end to end through the command line: 20,000
// donchian trials (a channel breakout; TPE, batches of 1,000) on a generated random walk without
// any edge must be called luck (a high PBO, a DSR below 0.95); on a series with planted momentum
// the statistics must find the edge.
#include <catch2/catch.hpp>

#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "support/process.hpp"

namespace t = tpeopt::testing;

namespace {

nlohmann::json selection_of_run(const std::string& edge) {
  const std::string dir = t::make_temp_dir("null_check_" + edge);
  const std::string csv = dir + "/series.csv";
  const auto gen = t::run_cli({"data", "generate-candles", "--symbols", "1", "--bars", "40000", "--interval-s", "3600",
                               "--seed", "7", "--edge", edge, "--layout", "long", "-o", csv});
  REQUIRE(gen.exit_code == 0);
  const nlohmann::json config = {
      {"strategy", "donchian"},
      {"data", {{"candles", csv}, {"holdout", 0.3}}},
      {"objective", {{"name", "sharpe"}, {"direction", "maximize"}, {"min_trades", 20}}},
      {"search", {{"sampler", "tpe"}, {"trials", 20000}, {"batch", 1000}, {"seed", 3}}},
      {"params",
       {{"channel", {{"type", "int"}, {"low", 10}, {"high", 120}}},
        {"exit_channel", {{"type", "int"}, {"low", 5}, {"high", 60}}},
        {"atr_window", {{"type", "int"}, {"low", 5}, {"high", 50}}},
        {"atr_stop", {{"type", "float"}, {"low", 0.0}, {"high", 5.0}, {"step", 0.25}}}}}};
  std::ofstream(dir + "/config.json") << config.dump(2);
  const auto run = t::run_cli({"run", "--config", dir + "/config.json", "--executor", "cpu", "--out", dir + "/run"});
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  CHECK(run.output.find("selection bias: ") != std::string::npos);
  std::ifstream in(dir + "/run/summary.json");
  return nlohmann::json::parse(in)["selection_bias"];
}

}  // namespace

TEST_CASE("null check: no edge is called luck, a planted edge is found", "[slow][cpu][null-check]") {
  const auto none = selection_of_run("none");
  INFO(none.dump(2));
  REQUIRE(none["available"] == true);
  CHECK(none["pbo"]["pbo"].get<double>() > 0.3);
  CHECK(none["dsr"]["dsr"].get<double>() < 0.95);
  CHECK(none["verdict"].get<std::string>().ends_with("consistent with selection luck"));

  const auto momentum = selection_of_run("momentum");
  INFO(momentum.dump(2));
  REQUIRE(momentum["available"] == true);
  CHECK(momentum["pbo"]["pbo"].get<double>() < 0.2);
  CHECK(momentum["dsr"]["dsr"].get<double>() > 0.95);
  CHECK(momentum["verdict"].get<std::string>().ends_with("unlikely to be selection luck alone"));
}
