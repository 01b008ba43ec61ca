// `tpeopt strategies`: every registered strategy, with its parameters in verbose mode.
#include <catch2/catch.hpp>

#include "strategies/registry.hpp"
#include "support/process.hpp"

using namespace tpeopt;

TEST_CASE("tpeopt strategies lists every registered strategy and its parameters", "[cpu][cli]") {
  const auto r = testing::run_cli({"strategies", "-v"});
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  for (const auto& e : strategies::registry().entries()) {
    CHECK_THAT(r.output, Catch::Contains(e.name + " "));
    for (const auto& p : e.params.specs()) CHECK_THAT(r.output, Catch::Contains(p.name));
    // A strategy only its caller can score says so instead of an executor.
    if (!e.scored_by_caller.empty()) CHECK_THAT(r.output, Catch::Contains(e.summary + " (scored by its caller)"));
  }
}
