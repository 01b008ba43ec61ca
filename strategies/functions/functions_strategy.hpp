#pragma once
#include <string>
#include <vector>

#include "strategies/functions/functions.hpp"
#include "strategies/strategy.hpp"

namespace tpeopt::strategies {

/// Parses "sphere", "rastrigin", "styblinski_tang", "hartmann6"; throws Error otherwise.
TestFunction parse_test_function(const std::string& name);
std::string test_function_name(TestFunction f);
/// Throws Error naming params when the function cannot take `dimension` parameters.
void check_test_function_dimension(TestFunction function, std::size_t dimension);

/// The `functions` strategy: the score is the test function's value at the trial's
/// parameters, taken in the order the config writes them (x[0] = first parameter).
class FunctionsStrategy final : public Strategy {
 public:
  FunctionsStrategy(TestFunction function, std::vector<std::string> param_names);

  std::string name() const override { return "functions"; }
  /// The config's parameters, each any finite number, all required.
  const ParamList& params() const override { return params_; }
  const std::vector<std::string>& metric_names() const override { return metrics_; }
  TrialScore evaluate(const double* params, double* metrics) const override;

  TestFunction function() const { return function_; }
  int dimension() const { return static_cast<int>(params_.size()); }

 private:
  TestFunction function_;
  ParamList params_;
  std::vector<std::string> metrics_;
};

}  // namespace tpeopt::strategies
