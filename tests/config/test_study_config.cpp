// Config validation: every error names the key (and the file), and what was expected.
#include <catch2/catch.hpp>

#include "common/error.hpp"
#include "config/study_config.hpp"

using namespace tpeopt;

namespace {

io::StudyConfig parse(const std::string& text) {
  return io::parse_study_config(io::parse_json_text(text, "cfg.json"), "cfg.json", ".");
}

std::string base_with(const std::string& params, const std::string& search = "{}") {
  return R"({"strategy": "functions", "function": "sphere", "search": )" + search + R"(, "params": )" + params + "}";
}

}  // namespace

TEST_CASE("a valid config is read with its parameters in the order written", "[cpu][config]") {
  const auto c = parse(base_with(
      R"({"b": {"type": "float", "low": -1, "high": 1}, "a": {"type": "int", "low": 1, "high": 9, "step": 2},
          "c": {"values": [0.1, 0.2]}, "d": {"type": "float", "low": 0.01, "high": 1, "log": true}, "e": 3.5})",
      R"({"trials": 50, "batch": 8, "depth": 3, "seed": 11})"));
  REQUIRE(c.param_order == std::vector<std::string>{"b", "a", "c", "d", "e"});
  REQUIRE(c.space.size() == 4);
  REQUIRE(c.space.axes[0].name == "b");
  REQUIRE(c.space.axes[1].kind == tpe::Axis::Kind::Int);
  REQUIRE(c.space.axes[1].step == 2.0);
  REQUIRE(c.space.axes[2].kind == tpe::Axis::Kind::Categorical);
  REQUIRE(c.space.axes[3].log);
  REQUIRE(c.fixed.at("e") == 3.5);
  REQUIRE(c.search.trials == 50);
  REQUIRE(c.search.depth == 3);
  REQUIRE(c.objective.direction == tpe::Direction::Minimize);
  // The resolved config round-trips.
  const auto again = io::parse_study_config(c.resolved(), "resolved", ".");
  REQUIRE(again.resolved() == c.resolved());
}

TEST_CASE("search.tpe.multivariate (preset optuna) is false (the default), true or \"auto\" with its budget",
          "[cpu][config]") {
  const auto by_default =
      parse(base_with(R"({"x": {"type": "float", "low": 0, "high": 1}})", R"({"tpe": {"preset": "optuna"}})"));
  REQUIRE(by_default.search.tpe.multivariate == tpe::Multivariate::Off);
  const auto automatic = parse(base_with(R"({"x": {"type": "float", "low": 0, "high": 1}})",
                                         R"({"tpe": {"preset": "optuna", "multivariate": "auto"}})"));
  REQUIRE(automatic.search.tpe.multivariate == tpe::Multivariate::Auto);
  REQUIRE(automatic.search.tpe.multivariate_budget == tpe::kDefaultMultivariateBudget);
  REQUIRE(automatic.resolved()["search"]["tpe"]["multivariate"] == "auto");
  REQUIRE(automatic.resolved()["search"]["tpe"]["multivariate_budget"] == tpe::kDefaultMultivariateBudget);

  const auto budget =
      parse(base_with(R"({"x": {"type": "float", "low": 0, "high": 1}})",
                      R"({"tpe": {"preset": "optuna", "multivariate": "auto", "multivariate_budget": 5000}})"));
  REQUIRE(budget.search.tpe.multivariate_budget == 5000);
  REQUIRE(io::parse_study_config(budget.resolved(), "resolved", ".").search.tpe.multivariate_budget == 5000);

  // true and false resolve as before "auto" existed, without a budget: the config digests of
  // earlier runs, which resume checks, do not change.
  for (const bool on : {false, true}) {
    CAPTURE(on);
    const auto c = parse(base_with(R"({"x": {"type": "float", "low": 0, "high": 1}})",
                                   on ? R"({"tpe": {"preset": "optuna", "multivariate": true}})"
                                      : R"({"tpe": {"preset": "optuna", "multivariate": false}})"));
    REQUIRE(c.search.tpe.multivariate == (on ? tpe::Multivariate::On : tpe::Multivariate::Off));
    REQUIRE(c.resolved()["search"]["tpe"]["multivariate"] == on);
    REQUIRE_FALSE(c.resolved()["search"]["tpe"].contains("multivariate_budget"));
    REQUIRE(io::parse_study_config(c.resolved(), "resolved", ".").resolved() == c.resolved());
  }
}

TEST_CASE("config errors name the key and what was expected", "[cpu][config][errors]") {
  struct Case {
    std::string text, expected;
  };
  const std::vector<Case> cases = {
      {base_with(R"({"x": {"type": "float", "low": 2, "high": 1}})"),
       "cfg.json: params.x: low (2) is greater than high (1)"},
      {base_with(R"({"x": {"type": "float", "low": 0, "high": 1, "log": true}})"),
       "params.x: a log-scale range needs low > 0"},
      {base_with(R"({"x": {"type": "float", "low": 0, "high": 1, "step": 0.3}})"),
       "params.x: step 0.3 does not divide"},
      {base_with(R"({"x": {"type": "categorical", "choices": []}})"), "params.x.choices: expected a non-empty list"},
      {base_with(R"({"x": {"values": []}})"), "params.x.values: expected a non-empty list"},
      {base_with(R"({"x": {"type": "categorical", "choices": ["a", "b,c"]}})"),
       "params.x.choices[1]: a choice label may not contain a comma"},
      {base_with(R"({"x": {"type": "float", "low": 0, "high": 1, "color": 1}})"), "params.x.color: unknown key"},
      {base_with(R"({"x": {"type": "float", "low": "0", "high": 1}})"),
       "params.x.low: expected a number, got a string"},
      {base_with(R"({"x": {"type": "decimal", "low": 0, "high": 1}})"), "params.x.type: \"decimal\" is not one of"},
      {base_with(R"({"x": {"type": "int", "low": 0.5, "high": 3}})"),
       "params.x: an int parameter needs integer low and high"},
      {base_with(R"({"x": 1}, )"
                 R"("y": true})"),
       "invalid JSON"},
      {base_with(R"({"x": "fast"})"), "params.x: expected a number, a list of values or an object"},
      {base_with(R"({})"), "params: expected at least one parameter"},
      {base_with(R"({"x": 1})", R"({"batch": 0})"), "search.batch: expected an integer in [1,"},
      {base_with(R"({"x": 1})", R"({"depth": 0})"), "search.depth: expected an integer in [1,"},
      {base_with(R"({"x": 1})", R"({"trials": -5})"), "search.trials: expected an integer in [1,"},
      {base_with(R"({"x": 1})", R"({"batch": 2.5})"), "search.batch: expected an integer, got 2.5"},
      {base_with(R"({"x": 1})", R"({"sampler": "cmaes"})"),
       "search.sampler: \"cmaes\" is not one of: tpe, random, grid"},
      {base_with(R"({"x": 1})", R"({"tpe": {"gamma": 0.2}})"), "search.tpe.gamma: unknown key"},
      {base_with(R"({"x": 1})", R"({"speed": 3})"), "search.speed: unknown key"},
      {base_with(R"({"x": 1})", R"({"tpe": {"preset": "optuna", "multivariate": "yes"}})"),
       "search.tpe.multivariate: expected true, false or \"auto\", got \"yes\""},
      {base_with(R"({"x": 1})", R"({"tpe": {"preset": "optuna", "multivariate": 1}})"),
       "search.tpe.multivariate: expected true, false or \"auto\", got an integer"},
      {base_with(R"({"x": 1})", R"({"tpe": {"preset": "optuna", "multivariate": true, "multivariate_budget": 1000}})"),
       "search.tpe.multivariate_budget: only used with \"multivariate\": \"auto\" (it is true)"},
      {base_with(R"({"x": 1})", R"({"tpe": {"preset": "optuna", "multivariate_budget": 1000}})"),
       "search.tpe.multivariate_budget: only used with \"multivariate\": \"auto\" (it is false)"},
      {base_with(R"({"x": 1})", R"({"tpe": {"preset": "optuna", "multivariate": "auto", "multivariate_budget": -1}})"),
       "search.tpe.multivariate_budget: expected an integer in [0,"},
      {R"({"strategy": "functions", "function": "sphere", "params": {"x": 1}, "extra": 1})", "extra: unknown key"},
      {R"({"strategy": "magic", "params": {"x": 1}})", "strategy: \"magic\" is not one of"},
      {R"({"strategy": "functions", "params": {"x": 1}})", "function: missing (required)"},
      {R"({"strategy": "exhaustion", "params": {"x": 1}})", "data: missing (required by strategy exhaustion)"},
      {R"({"strategy": "functions", "function": "sphere", "objective": {"direction": "up"}, "params": {"x": 1}})",
       "objective.direction: \"up\" is not one of: minimize, maximize"},
      {base_with(R"({"x": {"type": "float", "low": 0, "high": 1}})", R"({"sampler": "grid"})"),
       "params.x: a grid needs a list of values or a stepped range"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.text);
    REQUIRE_THROWS_WITH(parse(c.text), Catch::Contains(c.expected));
  }
}

TEST_CASE("JSON syntax errors give the line and column", "[cpu][config][errors]") {
  REQUIRE_THROWS_WITH(io::parse_json_text("{\n  \"a\": 1,\n  \"b\": ]\n}", "x.json"),
                      Catch::StartsWith("x.json:3:8: invalid JSON"));
}

TEST_CASE("a missing config file is named", "[cpu][config][errors]") {
  REQUIRE_THROWS_WITH(io::load_study_config("/nonexistent/study.json"),
                      Catch::Contains("/nonexistent/study.json: cannot open the config file"));
}
