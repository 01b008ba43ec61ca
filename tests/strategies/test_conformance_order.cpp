// The conformance harness, order independence (CPU side): every registered strategy, over
// each of its registry samples, scores a trial with the same bits alone, in a batch and in the
// batch reversed, with the CPU executor at 1, 2 and 5 threads (tests/support/trial_order.hpp).
// State carried from one trial to the next (a static or thread_local variable remembering a
// cross, a cache keyed wrongly) fails it. The CUDA side is in tests/gpu/test_conformance_gpu.cpp.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include "engine/cpu_executor.hpp"
#include "engine/param_binding.hpp"
#include "study/study.hpp"
#include "support/conformance.hpp"
#include "support/trial_order.hpp"

using namespace tpeopt;
using tpeopt::testing::ConformanceCase;

TEST_CASE("conformance: a trial scores the same bits alone, in a batch and in reverse order, at any thread count",
          "[cpu][conformance][order]") {
  for (const ConformanceCase& c : tpeopt::testing::conformance_cases()) {
    CAPTURE(c.label);
    const io::StudyConfig config = tpeopt::testing::conformance_study(c);
    const auto strategy = engine::make_strategy(config);
    const auto batch = tpeopt::testing::random_batch(config, 24, 41);
    const auto evaluator = [&](unsigned threads) {
      return [&, threads](const engine::BatchRequest& r) {
        engine::CpuExecutor cpu(*strategy, engine::ParamBinding(*strategy, config.space, config.fixed), threads);
        return cpu.evaluate(r);
      };
    };
    // The reference: one thread, in batch order.
    const engine::BatchResult ref = evaluator(1)(batch);
    const auto n = batch.n_trials;
    for (const unsigned threads : {1u, 2u, 5u}) {
      const auto forward = tpeopt::testing::forward_order(n), backward = tpeopt::testing::reverse_order(n);
      if (threads != 1) {
        const std::string d = tpeopt::testing::order_difference(ref, evaluator(threads)(batch), forward,
                                                                fmt::format("in the batch, {} threads", threads));
        CHECK(d == "");
      }
      const std::string r =
          tpeopt::testing::order_difference(ref, evaluator(threads)(tpeopt::testing::reversed(batch)), backward,
                                            fmt::format("in the batch reversed, {} threads", threads));
      CHECK(r == "");
    }
    // Each trial alone, once on one executor after another and once with an executor of its own.
    engine::CpuExecutor shared(*strategy, engine::ParamBinding(*strategy, config.space, config.fixed), 2);
    const std::string a = tpeopt::testing::order_difference(
        ref, tpeopt::testing::each_alone(batch, [&](const engine::BatchRequest& r) { return shared.evaluate(r); }),
        tpeopt::testing::forward_order(n), "alone, one executor");
    CHECK(a == "");
    const std::string b =
        tpeopt::testing::order_difference(ref, tpeopt::testing::each_alone(batch, evaluator(1)),
                                          tpeopt::testing::forward_order(n), "alone, an executor each");
    CHECK(b == "");
  }
}
