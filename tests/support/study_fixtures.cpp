#include "support/study_fixtures.hpp"

namespace tpeopt::testing {

io::StudyConfig functions_config(const std::string& function, int dim, double low, double high, std::uint64_t trials,
                                 std::uint64_t batch, std::uint64_t depth, std::uint64_t seed,
                                 const std::string& sampler) {
  io::Json j = {{"strategy", "functions"},
                {"function", function},
                {"search",
                 {{"sampler", sampler}, {"trials", trials}, {"batch", batch}, {"depth", depth}, {"seed", seed}}}};
  io::Json params = io::Json::object();
  for (int i = 0; i < dim; ++i) params["x" + std::to_string(i)] = {{"type", "float"}, {"low", low}, {"high", high}};
  j["params"] = params;
  return io::parse_study_config(j, "test-config", ".");
}

io::StudyConfig mixed_space_config(std::uint64_t trials, std::uint64_t batch, std::uint64_t depth, std::uint64_t seed) {
  io::Json j = {{"strategy", "functions"},
                {"function", "sphere"},
                {"search", {{"trials", trials}, {"batch", batch}, {"depth", depth}, {"seed", seed}}}};
  io::Json params = io::Json::object();
  params["x0"] = {{"type", "float"}, {"low", -3.0}, {"high", 2.0}};
  params["x1"] = {{"type", "float"}, {"low", 0.01}, {"high", 10.0}, {"log", true}};
  params["x2"] = {{"type", "float"}, {"low", -1.0}, {"high", 1.0}, {"step", 0.25}};
  params["x3"] = {{"type", "int"}, {"low", -5}, {"high", 7}};
  params["x4"] = {{"values", {0.5, -1.5, 3.0}}};
  j["params"] = params;
  return io::parse_study_config(j, "test-config", ".");
}

}  // namespace tpeopt::testing
