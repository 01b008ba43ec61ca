#include "engine/python_objective.hpp"

#include <cmath>

#include <fmt/format.h>

#include "common/error.hpp"

namespace tpeopt::engine {

PythonObjectiveStrategy::PythonObjectiveStrategy(const io::StudyConfig& config)
    : params_(config.param_order), metrics_(config.objective.metrics) {}

std::vector<double> PythonObjectiveStrategy::param_defaults() const { return std::vector<double>(params_.size(), NAN); }

strategies::TrialScore PythonObjectiveStrategy::evaluate(const double*, double*) const {
  throw Error("strategy python: its trials are scored by a Python function, which only the Python API can call");
}

std::string python_objective_only_message(const io::StudyConfig& config) {
  return fmt::format("{}: strategy python: this study's trials are scored by a Python function; run or continue it "
                     "from Python (tpeopt.optimize, tpeopt.resume(DIR, objective)), which can call it",
                     config.source);
}

}  // namespace tpeopt::engine
