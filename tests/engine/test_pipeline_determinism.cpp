// pipelined(D) == serial(D) bit for bit (docs/design.md, "Determinism"), and runs are fixed by
// (config, seed).
#include <catch2/catch.hpp>

#include <cstring>

#include "study/study.hpp"
#include "support/bits.hpp"
#include "support/identical_runs.hpp"
#include "support/study_fixtures.hpp"

using namespace tpeopt;

namespace {

engine::StudyRun run(const io::StudyConfig& c, bool serial, unsigned cpu_threads = 2) {
  engine::RunOptions o;
  o.serial = serial;
  o.executor = "cpu";
  o.cpu_threads = cpu_threads;
  o.keep_trials = true;
  return engine::run_study(c, o);
}

using tpeopt::testing::same_bits;

using tpeopt::testing::require_identical;

}  // namespace

TEST_CASE("pipelined and serial runs are identical bit for bit", "[cpu][determinism][pipeline]") {
  const std::uint64_t seed = GENERATE(1u, 7u, 12345u);
  const std::uint64_t depth = GENERATE(1u, 2u, 3u);
  // 60 trials: batch 64 is one batch, 20 an exact multiple, 16 leaves a remainder of 12.
  const std::uint64_t batch = GENERATE(64u, 20u, 16u);
  CAPTURE(seed, depth, batch);
  const auto config = testing::mixed_space_config(60, batch, depth, seed);
  const auto pipelined = run(config, false);
  const auto serial = run(config, true);
  REQUIRE(pipelined.result.n_trials() == 60);
  REQUIRE(pipelined.summary.batches_told == (60 + batch - 1) / batch);
  require_identical(pipelined.result, serial.result);
}

TEST_CASE("the CPU executor's thread count does not change a run", "[cpu][determinism][pipeline]") {
  const auto config = testing::functions_config("rastrigin", 6, -5.12, 5.12, 90, 32, 2, 3);
  const auto one = run(config, false, 1);
  const auto four = run(config, false, 4);
  require_identical(one.result, four.result);
}

TEST_CASE("the same seed gives the same run, another seed another run", "[cpu][determinism][pipeline]") {
  const auto a1 = run(testing::mixed_space_config(50, 16, 2, 42), false);
  const auto a2 = run(testing::mixed_space_config(50, 16, 2, 42), false);
  const auto b = run(testing::mixed_space_config(50, 16, 2, 43), false);
  require_identical(a1.result, a2.result);
  REQUIRE(a1.result.digest_hex() != b.result.digest_hex());
  // Not just the digest: the very first trial's parameters differ.
  REQUIRE_FALSE(same_bits(a1.result.trials()[0].params[0], b.result.trials()[0].params[0]));
}

TEST_CASE("different depths give different but complete runs", "[cpu][determinism][pipeline]") {
  // D changes which observations each ask sees (docs/design.md, "Pipeline protocol"), so the runs
  // differ once TPE is past its startup trials; both still evaluate every trial.
  const auto d1 = run(testing::functions_config("sphere", 3, -5, 5, 80, 8, 1, 9), false);
  const auto d3 = run(testing::functions_config("sphere", 3, -5, 5, 80, 8, 3, 9), false);
  REQUIRE(d1.result.n_trials() == 80);
  REQUIRE(d3.result.n_trials() == 80);
  REQUIRE(d1.result.digest_hex() != d3.result.digest_hex());
}
