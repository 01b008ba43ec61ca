// A strategy scored by its caller (StrategyEntry::scored_by_caller; strategies/python_objective:
// a Python function, which the Python package hands the engine as its executor). The
// conformance harness cannot run it (it evaluates trials with tpeopt's own executors), so
// this is its test: the config it takes, the refusals of every command that would evaluate
// its trials, and a caller's executor (here a C++ one standing in for the Python function)
// through the pipeline and the run directory: pipelined == serial, resumed == uninterrupted.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "common/error.hpp"
#include "config/study_config.hpp"
#include "storage/recorded_study.hpp"
#include "storage/run_directory.hpp"
#include "strategies/registry.hpp"
#include "study/study.hpp"
#include "support/identical_runs.hpp"
#include "support/process.hpp"

using namespace tpeopt;
namespace fs = std::filesystem;

namespace {

io::Json study_json(io::Json patch = io::Json::object()) {
  io::Json j = {{"strategy", "python_objective"},
                {"objective", {{"metrics", {"twice", "x_plus_k"}}}},
                {"search", {{"trials", 192}, {"batch", 32}, {"depth", 2}, {"seed", 5}}},
                {"params",
                 {{"x", {{"type", "float"}, {"low", -3.0}, {"high", 3.0}}},
                  {"lr", {{"type", "float"}, {"low", 1e-3}, {"high", 1.0}, {"log", true}}},
                  {"n", {{"type", "int"}, {"low", 1}, {"high", 19}, {"step", 3}}},
                  {"k", {{"type", "categorical"}, {"choices", {"a", "b", "c"}}}}}}};
  j.merge_patch(patch);
  return j;
}

io::StudyConfig study(io::Json patch = io::Json::object()) {
  return io::parse_study_config(study_json(std::move(patch)), "caller.json", ".");
}

/// The caller's function: a score from every column, a constraint on x, two metrics; with
/// `fail_at` it fails on that batch as a Python objective that raised would.
class CallerExecutor final : public engine::Executor {
 public:
  explicit CallerExecutor(std::uint64_t fail_at = UINT64_MAX) : fail_at_(fail_at) {}
  std::string name() const override { return "caller"; }
  engine::BatchResult evaluate(const engine::BatchRequest& r) override {
    if (r.batch_index == fail_at_) throw make_error("the objective raised on batch {}", r.batch_index);
    engine::BatchResult out;
    out.batch_index = r.batch_index;
    out.first_trial = r.first_trial;
    out.n_trials = r.n_trials;
    out.n_metrics = 2;
    for (std::size_t i = 0; i < r.n_trials; ++i) {
      const double* v = &r.values[i * r.n_axes];
      const double score = (v[0] - 1.0) * (v[0] - 1.0) + std::log(v[1]) * std::log(v[1]) + v[2] / 10.0 + v[3];
      out.scores.push_back(score);
      out.violations.push_back(std::max(0.0, v[0] - 2.5));
      out.metrics.push_back(2.0 * score);
      out.metrics.push_back(v[0] + v[3]);
    }
    return out;
  }

 private:
  std::uint64_t fail_at_;
};

engine::RunOptions caller_options(engine::Executor& e, bool serial) {
  engine::RunOptions o;
  o.external_executor = &e;
  o.executor = e.name();
  o.serial = serial;
  o.keep_trials = true;
  return o;
}

}  // namespace

TEST_CASE("caller-scored strategy: registered without samples, device twin or capabilities", "[cpu][caller]") {
  const strategies::StrategyEntry& e = strategies::registry().at("python_objective");
  CHECK_THAT(e.scored_by_caller, Catch::Contains("Python function"));
  CHECK(e.samples == nullptr);
  CHECK(e.make_device == nullptr);
  CHECK_FALSE(e.trades.available());
  CHECK_FALSE(e.subsets);
  // The registry refuses a caller-scored entry that claims to evaluate anything itself.
  strategies::Registry r;
  strategies::StrategyEntry bad = e;
  bad.name = "caller_with_samples";
  bad.samples = [](const strategies::SampleData&) { return std::vector<strategies::Sample>{}; };
  CHECK_THROWS_AS(r.add(bad), std::logic_error);
}

TEST_CASE("caller-scored strategy: its config", "[cpu][caller][config]") {
  const io::StudyConfig c = study();
  CHECK(c.objective.name == "value");
  CHECK(c.objective.direction == tpe::Direction::Minimize);
  const auto strategy = engine::make_strategy(c);
  CHECK(strategy->param_names() == std::vector<std::string>{"x", "lr", "n", "k"});
  CHECK(strategy->metric_names() == std::vector<std::string>{"twice", "x_plus_k"});
  // objective.metrics is written back, and the resolved config parses to the same one.
  const io::Json resolved = c.resolved();
  CHECK(resolved["objective"]["metrics"] == io::Json({"twice", "x_plus_k"}));
  const io::StudyConfig again = io::parse_study_config(resolved, "resolved", ".");
  CHECK(engine::config_digest(again) == engine::config_digest(c));
  // A strategy that is not scored by its caller has no objective.metrics.
  CHECK_THROWS_WITH(io::parse_study_config({{"strategy", "functions"},
                                            {"function", "sphere"},
                                            {"objective", {{"metrics", {"a"}}}},
                                            {"params", {{"x", {{"type", "float"}, {"low", 0}, {"high", 1}}}}}},
                                           "f.json", "."),
                    Catch::Contains("f.json") && Catch::Contains("metrics"));
  // Each refusal names its key.
  const std::vector<std::pair<io::Json, std::string>> bad = {
      {{{"params", {{"fixed", 2.0}}}}, "params.fixed: a Python objective is given the searched parameters only"},
      {{{"objective", {{"min_trades", 3}}}}, "objective.min_trades"},
      {{{"objective", {{"metrics", {"ok", "9lives"}}}}}, "objective.metrics[1]: \"9lives\" is not a name"},
      {{{"objective", {{"metrics", {"score"}}}}}, "objective.metrics[0]: \"score\" is a column of every trial"},
      {{{"objective", {{"metrics", {"x"}}}}}, "objective.metrics[0]: \"x\" is also a parameter's name"},
      {{{"objective", {{"metrics", {"a", "a"}}}}}, "objective.metrics[1]: \"a\" is named twice"},
      {{{"objective", {{"metrics", "a"}}}}, "objective.metrics: expected a list of names"},
      {{{"data", {{"csv", "x.csv"}}}}, "data: strategy python_objective reads no data"},
  };
  for (const auto& [patch, message] : bad) {
    CAPTURE(patch.dump());
    CHECK_THROWS_WITH(study(patch), Catch::Contains("caller.json: " + message));
  }
}

TEST_CASE("caller-scored strategy: tpeopt's executors and commands refuse it, writing nothing", "[cpu][caller][cli]") {
  const io::StudyConfig c = study();
  const auto strategy = engine::make_strategy(c);
  CHECK_THROWS_WITH(engine::make_executor(c, *strategy, engine::RunOptions{}),
                    Catch::Contains("caller.json: strategy python_objective: its trials are scored by a Python "
                                    "function") &&
                        Catch::Contains("tpeopt.optimize"));
  CHECK_THROWS_WITH(engine::run_study(c, *strategy, engine::RunOptions{}),
                    Catch::Contains("tpeopt.resume(DIR, objective)"));

  const fs::path tmp = testing::make_process_temp_dir("caller_cli");
  const fs::path config = tmp / "caller.json";
  std::ofstream(config) << study_json().dump();
  // `tpeopt grid` refuses continuous ranges first: its config lists values.
  const fs::path grid_config = tmp / "caller_grid.json";
  io::Json grid_json = study_json();
  for (auto& [name, axis] : grid_json["params"].items()) axis = {{"values", {0.25, 0.5}}};
  std::ofstream(grid_config) << grid_json.dump();
  std::ofstream(tmp / "p.json") << io::Json{{"x", 0.5}}.dump();
  const std::string message = "strategy python_objective: its trials are scored by a Python function";
  const std::vector<std::vector<std::string>> commands = {
      {"run", "--config", config.string(), "--out", (tmp / "run").string()},
      {"verify", "--config", config.string()},
      {"bench", "--config", config.string()},
      {"grid", "--config", grid_config.string(), "--out", (tmp / "grid").string()},
      {"backtest", "--config", config.string(), "--params", (tmp / "p.json").string()},
  };
  for (const auto& args : commands) {
    CAPTURE(args[0]);
    const auto r = testing::run_cli(args);
    INFO(r.output);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.output, Catch::Contains(": " + message));
  }
  CHECK_FALSE(fs::exists(tmp / "run"));
  CHECK_FALSE(fs::exists(tmp / "grid"));

  // A run directory the caller wrote: `tpeopt resume` refuses it, `tpeopt report` reads it.
  CallerExecutor caller;
  const fs::path dir = tmp / "made_by_caller";
  {
    // config.json records the config's executor: the caller's is not a config value (as the
    // Python package records it).
    CHECK_THROWS_AS(engine::RunRecorder::create(dir, c, *strategy, caller.name()), std::logic_error);
    CHECK_FALSE(fs::exists(dir));
    auto recorder = engine::RunRecorder::create(dir, c, *strategy, c.executor);
    engine::run_recorded_study(c, *strategy, caller_options(caller, false), *recorder, {}, false,
                               {"resume it from the caller", ""});
  }
  const auto resumed = testing::run_cli({"resume", dir.string()});
  INFO(resumed.output);
  CHECK(resumed.exit_code == 2);
  CHECK_THAT(resumed.output, Catch::Contains(message));
  const auto report = testing::run_cli({"report", dir.string(), "--out", (tmp / "report.html").string()});
  INFO(report.output);
  CHECK(report.exit_code == 0);
  CHECK(fs::file_size(tmp / "report.html") > 0);
}

TEST_CASE("caller-scored strategy: a caller's executor, pipelined == serial", "[cpu][caller][determinism]") {
  for (const std::uint64_t depth : {1, 2, 3}) {
    CAPTURE(depth);
    const io::StudyConfig c = study({{"search", {{"depth", depth}}}});
    const auto strategy = engine::make_strategy(c);
    CallerExecutor a, b;
    const auto pipelined = engine::run_study(c, *strategy, caller_options(a, false));
    const auto serial = engine::run_study(c, *strategy, caller_options(b, true));
    testing::require_identical(pipelined.result, serial.result);
    REQUIRE(pipelined.result.n_trials() == 192);
    CHECK(pipelined.executor == "caller");
    // Its metrics are the caller's, in the declared order.
    const auto& t = pipelined.result.trials().back();
    CHECK(t.metrics.size() == 2);
    CHECK(t.metrics[0] == 2.0 * t.score);
  }
  // Data subsets are made by tpeopt's executors: refused with a caller's.
  const io::StudyConfig halving = study({{"search", {{"halving", true}}}});
  CallerExecutor e;
  CHECK_THROWS_WITH(engine::run_study(halving, *engine::make_strategy(halving), caller_options(e, false)),
                    Catch::Contains("search.halving"));
}

TEST_CASE("caller-scored strategy: a run the caller's function stopped resumes to the uninterrupted run",
          "[cpu][caller][resume]") {
  const io::StudyConfig c = study();
  const auto strategy = engine::make_strategy(c);
  const fs::path tmp = testing::make_process_temp_dir("caller_resume");
  auto run_into = [&](const fs::path& dir, engine::Executor& e, std::vector<engine::ReplayedBatch> replay,
                      bool resume) {
    auto recorder = resume ? engine::RunRecorder::resume(dir, c, *strategy, c.executor, replay)
                           : engine::RunRecorder::create(dir, c, *strategy, c.executor);
    return engine::run_recorded_study(c, *strategy, caller_options(e, false), *recorder, std::move(replay), false,
                                      {"tpeopt.resume(DIR, objective)", ""});
  };
  CallerExecutor good;
  const auto whole = run_into(tmp / "whole", good, {}, false);

  CallerExecutor failing(3);
  CHECK_THROWS_WITH(run_into(tmp / "stopped", failing, {}, false),
                    Catch::Contains("the objective raised on batch 3") &&
                        Catch::Contains("safe in " + (tmp / "stopped").string() + "/journal.bin") &&
                        Catch::Contains("continue with: tpeopt.resume(DIR, objective)"));
  CHECK_FALSE(fs::exists(tmp / "stopped" / "summary.json"));
  CallerExecutor again;
  const auto resumed = run_into(tmp / "stopped", again, {}, true);
  CHECK(resumed.summary.batches_told == 6);
  CHECK(resumed.result.digest_hex() == whole.result.digest_hex());
  // Batches 0..2 came from the journal; the pipeline asked batch 3 and maybe 4 before the
  // failure surfaced, but only told batches are journaled.
  std::ifstream summary(tmp / "stopped" / "summary.json");
  const io::Json s = io::Json::parse(summary);
  CHECK(s["replayed_batches"] == 3);
  CHECK(s["digest"] == whole.result.digest_hex());
}
