// The null check of docs/will-it-hold-up.md, end to end through the command line: 20,000
// donchian trials (a channel breakout; TPE, batches of 1,000) on a generated random walk without
// any edge must be called luck (a DSR below 0.95, the verdict says so); on a series with planted
// momentum the best trial must hold up on the hold-out, its DSR must be significant and the
// verdict must not read luck. The DSR is the standardized one (each trial's t statistic as a
// normal z through Student's t): the paper's, from one variance of Sharpe ratios across trials
// of 20 to thousands of trades, does not call this edge significant (docs/will-it-hold-up.md,
// "The null check").
#include <catch2/catch.hpp>

#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "support/process.hpp"

namespace t = tpeopt::testing;

namespace {

struct NullCheckRun {
  nlohmann::json selection;
  double holdout_score = 0.0;  ///< the best trial's score on the held-out 30%
};

NullCheckRun selection_of_run(const std::string& edge) {
  const std::string dir = t::make_temp_dir("null_check_" + edge);
  const std::string csv = dir + "/series.csv";
  const auto gen = t::run_cli({"data", "generate-candles", "--symbols", "1", "--bars", "40000", "--interval-s", "3600",
                               "--seed", "7", "--edge", edge, "--layout", "long", "-o", csv});
  REQUIRE(gen.exit_code == 0);
  const nlohmann::json config = {{"strategy", "donchian"},
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
  std::ifstream top(dir + "/run/top.json");
  return {nlohmann::json::parse(in)["selection_bias"], nlohmann::json::parse(top)[0]["out_of_sample"]["score"]};
}

}  // namespace

TEST_CASE("null check: no edge is called luck, a planted edge holds up out of sample", "[slow][cpu][null-check]") {
  const auto none = selection_of_run("none");
  INFO(none.selection.dump(2));
  REQUIRE(none.selection["available"] == true);
  CHECK(none.selection["dsr"]["dsr"].get<double>() < 0.95);
  CHECK(none.selection["verdict"].get<std::string>().ends_with(": consistent with selection luck"));
  // Batch TPE draws a repeated row again (search.tpe.distinct): only its random first block
  // can repeat a parameter set (each counts once; tests/selection/test_selection_pass.cpp).
  CHECK(none.selection["trials_told"].get<double>() == 20000.0);
  CHECK(none.selection["trials"].get<double>() > 19000.0);

  const auto momentum = selection_of_run("momentum");
  INFO(momentum.selection.dump(2));
  REQUIRE(momentum.selection["available"] == true);
  CHECK(momentum.holdout_score > 0.0);
  CHECK(momentum.holdout_score > none.holdout_score);
  CHECK(momentum.selection["dsr"]["dsr"].get<double>() >= 0.95);
  CHECK_FALSE(momentum.selection["verdict"].get<std::string>().ends_with(": consistent with selection luck"));
  // The chosen parameters gain out of sample in most CSCV splits; without an edge they do not.
  CHECK(momentum.selection["pbo"]["probability_of_loss"].get<double>() < 0.5);
  CHECK(momentum.selection["pbo"]["probability_of_loss"].get<double>() <
        none.selection["pbo"]["probability_of_loss"].get<double>());
}
