#include "strategies/functions/functions_strategy.hpp"

#include <cmath>

#include "common/error.hpp"

namespace tpeopt::strategies {

TestFunction parse_test_function(const std::string& name) {
  if (name == "sphere") return TestFunction::Sphere;
  if (name == "rastrigin") return TestFunction::Rastrigin;
  if (name == "styblinski_tang") return TestFunction::StyblinskiTang;
  if (name == "hartmann6") return TestFunction::Hartmann6;
  throw make_error("function: unknown test function \"{}\" (expected sphere, rastrigin, styblinski_tang or hartmann6)",
                   name);
}

std::string test_function_name(TestFunction f) {
  switch (f) {
    case TestFunction::Sphere:
      return "sphere";
    case TestFunction::Rastrigin:
      return "rastrigin";
    case TestFunction::StyblinskiTang:
      return "styblinski_tang";
    case TestFunction::Hartmann6:
      return "hartmann6";
  }
  return "?";
}

void check_test_function_dimension(TestFunction function, std::size_t dimension) {
  if (dimension == 0) throw make_error("params: the functions strategy needs at least one parameter");
  if (function == TestFunction::Hartmann6 && dimension != 6)
    throw make_error("params: hartmann6 takes exactly 6 parameters, the config has {}", dimension);
}

namespace {

ParamList any_values(const std::vector<std::string>& names) {
  std::vector<ParamSpec> specs;
  for (const auto& n : names) specs.push_back({n, NAN, any_finite(), false, -1.0, 1.0});
  return ParamList(std::move(specs));
}

}  // namespace

FunctionsStrategy::FunctionsStrategy(TestFunction function, std::vector<std::string> param_names)
    : function_(function), params_(any_values(param_names)) {
  check_test_function_dimension(function_, params_.size());
}

TrialScore FunctionsStrategy::evaluate(const double* params, double*) const {
  return {evaluate_test_function(function_, params, dimension()), 0.0};
}

}  // namespace tpeopt::strategies
