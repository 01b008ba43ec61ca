#pragma once
// A study whose trials a Python function scores (config "strategy": "python"; python/
// runs it: tpeopt.optimize, tpeopt.resume). tpeopt proposes, journals and records its
// trials like any other study's; only the caller can evaluate them, through its own
// executor (RunOptions::external_executor).
#include <string>
#include <vector>

#include "io/study_config.hpp"
#include "strategies/strategy.hpp"

namespace tpeopt::engine {

/// The strategy of a "python" study: it names the parameters (the searched axes, in the
/// config's order) and the metrics (objective.metrics) for the run directory and the
/// journal, and reads no data. evaluate() throws: tpeopt cannot call the function.
class PythonObjectiveStrategy final : public strategies::Strategy {
 public:
  explicit PythonObjectiveStrategy(const io::StudyConfig& config);

  std::string name() const override { return "python"; }
  const std::vector<std::string>& param_names() const override { return params_; }
  std::vector<double> param_defaults() const override;
  const std::vector<std::string>& metric_names() const override { return metrics_; }
  void check_param_range(std::size_t, double, double) const override {}
  strategies::TrialScore evaluate(const double* params, double* metrics) const override;

 private:
  std::vector<std::string> params_, metrics_;
};

/// The message for a "python" study that something tries to evaluate with tpeopt's own
/// executors (`tpeopt resume DIR` on such a run, for one).
std::string python_objective_only_message(const io::StudyConfig& config);

}  // namespace tpeopt::engine
