// The functions strategy in the registry (strategies/registry.hpp): analytic test functions
// of the config's parameters, for testing the optimizer itself.
#include <fmt/format.h>

#include "common/error.hpp"
#include "strategies/functions/functions_strategy.hpp"
#include "strategies/registry.hpp"

namespace tpeopt::gpu {
// strategies/functions/functions_device.cu (builds with CUDA).
std::unique_ptr<DeviceStrategy> make_functions_twin(const strategies::Strategy& strategy, CUstream_st* stream);
}  // namespace tpeopt::gpu

namespace tpeopt::strategies {

namespace {

struct FunctionsSettings final : StrategySettings {
  TestFunction function = TestFunction::Sphere;
  std::vector<std::string> params;  ///< the config's parameters in the order written: x[0], x[1], ...
  io::Json root_json() const override { return {{"function", test_function_name(function)}}; }
  std::string label() const override { return test_function_name(function); }
};

std::shared_ptr<const StrategySettings> parse(const SettingsInput& in) {
  auto s = std::make_shared<FunctionsSettings>();
  const bool named = in.errors.check([&] {
    s->function =
        parse_test_function(in.root.get_choice("function", {"sphere", "rastrigin", "styblinski_tang", "hartmann6"}));
  });
  if (in.objective.name != "value")
    in.errors.add(
        fmt::format("objective.name: the functions strategy's objective is \"value\" (got \"{}\")", in.objective.name));
  if (in.root.has("params") && in.root.at("params").is_object())
    for (const auto& item : in.root.at("params").items()) s->params.push_back(item.key());
  if (named) in.errors.check([&] { check_test_function_dimension(s->function, s->params.size()); });
  return s;
}

std::vector<Sample> samples(const SampleData&) {
  io::Json params = io::Json::object();
  for (int i = 0; i < 4; ++i) params[fmt::format("x{}", i)] = {{"type", "float"}, {"low", -5.12}, {"high", 5.12}};
  return {{"rastrigin-4", {{"function", "rastrigin"}, {"params", params}}},
          {"styblinski_tang-4", {{"function", "styblinski_tang"}, {"params", params}}}};
}

}  // namespace

void register_functions(Registry& registry) {
  StrategyEntry e;
  e.name = "functions";
  e.summary = "analytic test functions (sphere, rastrigin, styblinski_tang, hartmann6) of the config's parameters";
  e.params_from_config = true;
  e.root_keys = {"function"};
  e.reads_data = false;
  e.default_objective = "value";
  e.default_maximize = false;
  e.parse = parse;
  e.make = [](const StrategySettings& settings, const BuildContext&) -> std::unique_ptr<Strategy> {
    const auto& s = settings_as<FunctionsSettings>(settings);
    return std::make_unique<FunctionsStrategy>(s.function, s.params);
  };
  e.make_device = TPEOPT_DEVICE(gpu::make_functions_twin);
  e.samples = samples;
  registry.add(std::move(e));
}

}  // namespace tpeopt::strategies
