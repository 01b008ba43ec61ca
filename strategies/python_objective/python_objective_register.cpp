// The python_objective strategy in the registry (strategies/registry.hpp): trials scored by
// a Python function (the Python package's tpeopt.optimize; docs/python.md). tpeopt proposes,
// journals and records its trials like any study's; only the caller can score them, through
// the executor it hands the engine (RunOptions::external_executor). So it registers no
// device twin, no capability and no samples (StrategyEntry::scored_by_caller), and every
// command that would evaluate its trials refuses it before anything is written.
#include <algorithm>
#include <cctype>
#include <cmath>

#include <fmt/format.h>

#include "common/error.hpp"
#include "strategies/registry.hpp"

namespace tpeopt::strategies {

namespace {

constexpr const char* kScoredBy =
    "its trials are scored by a Python function, which only the Python package can call: run or continue it "
    "from Python (tpeopt.optimize(objective, space, ...), tpeopt.resume(DIR, objective); docs/python.md)";

struct PythonObjectiveSettings final : StrategySettings {
  std::vector<std::string> params;   ///< the config's parameters, all searched, in the order written
  std::vector<std::string> metrics;  ///< objective.metrics: what the function returns besides the score
  io::Json objective_json() const override {
    return metrics.empty() ? io::Json::object() : io::Json{{"metrics", metrics}};
  }
};

/// `objective.metrics`: distinct names, each one a CSV header and a Python keyword can hold,
/// none a column every trial has already or a parameter's name.
std::vector<std::string> parse_metric_names(const io::Json& spec, const std::vector<std::string>& params) {
  if (!spec.is_array())
    throw make_error("objective.metrics: expected a list of names, got {}", io::json_type_name(spec));
  std::vector<std::string> names;
  for (std::size_t i = 0; i < spec.size(); ++i) {
    const std::string path = fmt::format("objective.metrics[{}]", i);
    if (!spec[i].is_string()) throw make_error("{}: expected a name, got {}", path, io::json_type_name(spec[i]));
    const std::string name = spec[i].get<std::string>();
    const bool word = !name.empty() && !std::isdigit(static_cast<unsigned char>(name[0])) &&
                      std::all_of(name.begin(), name.end(),
                                  [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_'; });
    if (!word)
      throw make_error("{}: \"{}\" is not a name (letters, digits and _, not starting with a digit)", path, name);
    if (name == "score" || name == "violation" || name == "trial" || name == "batch")
      throw make_error("{}: \"{}\" is a column of every trial already; pick another name", path, name);
    if (std::find(params.begin(), params.end(), name) != params.end())
      throw make_error("{}: \"{}\" is also a parameter's name; trials.csv needs distinct columns", path, name);
    if (std::find(names.begin(), names.end(), name) != names.end())
      throw make_error("{}: \"{}\" is named twice", path, name);
    names.push_back(name);
  }
  return names;
}

std::shared_ptr<const StrategySettings> parse(const SettingsInput& in) {
  auto s = std::make_shared<PythonObjectiveSettings>();
  if (in.objective.min_trades_set)
    throw make_error(
        "objective.min_trades: a Python objective counts no trades; return violations for its constraints");
  if (in.root.has("params") && in.root.at("params").is_object())
    for (const auto& item : in.root.at("params").items()) {
      // The function is handed one column per searched parameter: a fixed value stays in it.
      if (item.value().is_number())
        throw make_error(
            "params.{}: a Python objective is given the searched parameters only; keep fixed values in "
            "the objective",
            item.key());
      s->params.push_back(item.key());
    }
  if (in.root.has("objective") && in.root.at("objective").is_object() && in.root.at("objective").contains("metrics"))
    s->metrics = parse_metric_names(in.root.at("objective").at("metrics"), s->params);
  return s;
}

/// The strategy of a python_objective study: it names the parameters (the searched axes, in
/// the config's order) and the metrics for the run directory and the journal; it reads no
/// data and cannot evaluate a trial.
class PythonObjectiveStrategy final : public Strategy {
 public:
  explicit PythonObjectiveStrategy(const PythonObjectiveSettings& s) : metrics_(s.metrics) {
    std::vector<ParamSpec> specs;
    for (const auto& n : s.params) specs.push_back({n, NAN, any_finite(), false, -1.0, 1.0});
    params_ = ParamList(std::move(specs));
  }
  std::string name() const override { return "python_objective"; }
  const ParamList& params() const override { return params_; }
  const std::vector<std::string>& metric_names() const override { return metrics_; }
  TrialScore evaluate(const double*, double*) const override {
    throw make_error("strategy python_objective: {}", kScoredBy);
  }

 private:
  ParamList params_;
  std::vector<std::string> metrics_;
};

}  // namespace

void register_python_objective(Registry& registry) {
  StrategyEntry e;
  e.name = "python_objective";
  e.summary = "trials scored by a Python function (tpeopt.optimize in the Python package; docs/python.md)";
  e.params_from_config = true;
  e.objective_keys = {"metrics"};
  e.reads_data = false;
  e.default_objective = "value";
  e.default_maximize = false;
  e.scored_by_caller = kScoredBy;
  e.parse = parse;
  e.make = [](const StrategySettings& settings, const BuildContext&) -> std::unique_ptr<Strategy> {
    return std::make_unique<PythonObjectiveStrategy>(settings_as<PythonObjectiveSettings>(settings));
  };
  registry.add(std::move(e));
}

}  // namespace tpeopt::strategies
