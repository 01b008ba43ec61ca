#pragma once
#include <string>
#include <vector>

#include "strategies/functions/functions.hpp"
#include "strategies/strategy.hpp"

namespace tpeopt::strategies {

/// Parses "sphere", "rastrigin", "styblinski_tang", "hartmann6"; throws Error otherwise.
TestFunction parse_test_function(const std::string& name);
std::string test_function_name(TestFunction f);

/// The `functions` strategy: the score is the test function's value at the trial's
/// parameters, taken in the order the config writes them (x[0] = first parameter).
class FunctionsStrategy final : public Strategy {
 public:
  FunctionsStrategy(TestFunction function, std::vector<std::string> param_names);

  std::string name() const override { return "functions"; }
  const std::vector<std::string>& param_names() const override { return params_; }
  std::vector<double> param_defaults() const override;
  const std::vector<std::string>& metric_names() const override { return metrics_; }
  void check_param_range(std::size_t, double, double) const override {}
  TrialScore evaluate(const double* params, double* metrics) const override;

  TestFunction function() const { return function_; }
  int dimension() const { return static_cast<int>(params_.size()); }

 private:
  TestFunction function_;
  std::vector<std::string> params_;
  std::vector<std::string> metrics_;
};

}  // namespace tpeopt::strategies
