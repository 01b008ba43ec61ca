// The conformance harness, CUDA side: every registered strategy with a device twin, over each
// of its registry samples on the bundled real data: the CUDA executor's scores, violations
// and metrics equal the CPU executor's bit for bit (two launch configurations, and a batch
// cut into device parts), on the whole data and on the parts of data subsets (a hold-out's
// in-sample part and a 4-slice halving rung) where the strategy declares them, and folded
// (the worst of 4 folds, with an embargo) where it can be split; its trades and
// per-symbol results from the GPU equal the CPU's; and a trial scores the same bits on the
// device alone, in a batch and in the batch reversed (tests/support/trial_order.hpp). No test
// is written per strategy.
// Runs on the GPU machine: tpeopt_tests "[gpu][conformance]" (scripts/gpu_conformance.sh).
#include <catch2/catch.hpp>

#include "engine/cpu_executor.hpp"
#include "engine/param_binding.hpp"
#include "gpu/cuda_executor.hpp"
#include "study/backtest.hpp"
#include "study/data_subsets.hpp"
#include "study/study.hpp"
#include "support/bits.hpp"
#include "support/conformance.hpp"
#include "support/trial_order.hpp"

using namespace tpeopt;
using tpeopt::testing::ConformanceCase;
using tpeopt::testing::same_bits;

namespace {

/// CPU == CUDA for one strategy (the whole data or a part of it) on a random batch.
void require_same_on_gpu(const io::StudyConfig& config, const strategies::Strategy& strategy, std::uint64_t seed) {
  const auto batch = tpeopt::testing::random_batch(config, 1000, seed);
  engine::CpuExecutor cpu(strategy, engine::ParamBinding(strategy, config.space, config.fixed), 0);
  const auto ref = cpu.evaluate(batch);
  gpu::CudaExecutorOptions small, large, parts;
  small.block_size = 32;
  large.block_size = 512;
  parts.max_part_trials = 300;  // 4 device parts: 3 x 300 + 100
  for (const auto& o : {small, large, parts}) {
    CAPTURE(o.block_size, o.max_part_trials);
    auto device = gpu::make_cuda_executor(strategy, engine::ParamBinding(strategy, config.space, config.fixed), o);
    const auto got = device->evaluate(batch);
    REQUIRE(got.n_trials == ref.n_trials);
    std::size_t differing = 0;
    for (std::size_t i = 0; i < ref.n_trials; ++i) {
      const bool same = same_bits(got.scores[i], ref.scores[i]) && same_bits(got.violations[i], ref.violations[i]);
      differing += same ? 0 : 1;
    }
    CHECK(differing == 0);
    CHECK(same_bits(got.metrics, ref.metrics));
  }
}

}  // namespace

TEST_CASE("conformance: every strategy's CUDA twin scores its samples as the CPU does, bit for bit",
          "[gpu][conformance]") {
  REQUIRE(gpu::cuda_available());
  for (const ConformanceCase& c : tpeopt::testing::conformance_cases()) {
    CAPTURE(c.label);
    REQUIRE(c.entry->make_device);  // every registered strategy has a CUDA twin
    const io::StudyConfig config = tpeopt::testing::conformance_study(c);
    const auto strategy = engine::make_strategy(config);
    require_same_on_gpu(config, *strategy, 21);
    // Folds, where the strategy can be split: the worst of 4 folds with an embargo.
    if (const auto folded = tpeopt::testing::folded_or_null(*strategy, 4, 5, {strategies::AcrossFolds::Rule::Min}))
      require_same_on_gpu(config, *folded, 24);
    if (!c.entry->subsets) continue;
    // The in-sample part of a hold-out, and the first 2 of 4 halving slices.
    const io::StudyConfig holdout = tpeopt::testing::conformance_study(c, {{"data", {{"holdout", 0.3}}}});
    const auto in_sample = strategy->subset(engine::in_sample_ranges(*strategy, holdout), 0);
    require_same_on_gpu(holdout, *in_sample, 22);
    const auto slices = engine::equal_slices({{0, strategy->n_atoms()}}, 4);
    std::vector<strategies::AtomRange> rung = slices[0];
    rung.insert(rung.end(), slices[2].begin(), slices[2].end());
    const auto part = strategy->subset(rung, 0);
    require_same_on_gpu(config, *part, 23);
  }
}

TEST_CASE("conformance: trades and per-symbol results from the GPU equal the CPU's", "[gpu][conformance][trades]") {
  REQUIRE(gpu::cuda_available());
  for (const ConformanceCase& c : tpeopt::testing::conformance_cases()) {
    CAPTURE(c.label);
    const io::StudyConfig config = tpeopt::testing::conformance_study(c);
    const auto strategy = engine::make_strategy(config);
    // Trades from the GPU where the strategy exports them there (atc and trade_filter export
    // them from the CPU only).
    const bool trades = c.entry->trades.available() && c.entry->trades.device != nullptr;
    const auto batch = tpeopt::testing::random_batch(config, 6, 31);
    const engine::ParamBinding binding(*strategy, config.space, config.fixed);
    std::vector<double> slots(binding.n_slots());
    for (std::size_t i = 0; i < batch.n_trials; ++i) {
      CAPTURE(i);
      binding.fill(&batch.values[i * batch.n_axes], slots.data());
      const auto cpu = engine::backtest_params(*strategy, slots, "cpu", trades, 128);
      const auto gpu = engine::backtest_params(*strategy, slots, "cuda", trades, 64);
      CHECK(same_bits(cpu.score.score, gpu.score.score));
      CHECK(same_bits(cpu.score.violation, gpu.score.violation));
      CHECK(same_bits(cpu.metrics, gpu.metrics));
      REQUIRE(cpu.symbols.has_value() == gpu.symbols.has_value());
      if (cpu.symbols) {
        CHECK(same_bits(cpu.symbols->objective, gpu.symbols->objective));
        CHECK(same_bits(cpu.symbols->equity, gpu.symbols->equity));
        CHECK(same_bits(cpu.symbols->metrics, gpu.symbols->metrics));
      }
      if (trades) {
        REQUIRE(cpu.trades->size() == gpu.trades->size());
        for (std::size_t s = 0; s < cpu.trades->size(); ++s) {
          const auto& a = (*cpu.trades)[s];
          const auto& b = (*gpu.trades)[s];
          REQUIRE(a.size() == b.size());
          for (std::size_t k = 0; k < a.size(); ++k) {
            CHECK(a[k].fields == b[k].fields);  // shortest round-trip text: equal text, equal bits
            CHECK(a[k].entry_time_ms == b[k].entry_time_ms);
            CHECK(a[k].exit_time_ms == b[k].exit_time_ms);
          }
        }
      }
    }
  }
}

TEST_CASE("conformance: on the GPU a trial scores the same bits alone, in a batch and in reverse order",
          "[gpu][conformance][order]") {
  REQUIRE(gpu::cuda_available());
  for (const ConformanceCase& c : tpeopt::testing::conformance_cases()) {
    CAPTURE(c.label);
    const io::StudyConfig config = tpeopt::testing::conformance_study(c);
    const auto strategy = engine::make_strategy(config);
    const auto batch = tpeopt::testing::random_batch(config, 512, 43);
    const engine::ParamBinding binding(*strategy, config.space, config.fixed);
    auto device = gpu::make_cuda_executor(*strategy, binding, {});
    const engine::BatchResult ref = device->evaluate(batch);
    const std::size_t n = batch.n_trials;
    CHECK(tpeopt::testing::order_difference(ref, device->evaluate(tpeopt::testing::reversed(batch)),
                                            tpeopt::testing::reverse_order(n), "in the batch reversed") == "");
    // The first trials alone: on the executor that ran the batch, and each on an executor of its own.
    engine::BatchRequest first = batch;
    first.n_trials = 8;
    first.values.resize(first.n_trials * first.n_axes);
    CHECK(tpeopt::testing::order_difference(
              ref,
              tpeopt::testing::each_alone(first, [&](const engine::BatchRequest& r) { return device->evaluate(r); }),
              tpeopt::testing::forward_order(first.n_trials), "alone, the same executor") == "");
    first.n_trials = 3;
    first.values.resize(std::max<std::size_t>(1, first.n_trials * first.n_axes));
    CHECK(tpeopt::testing::order_difference(
              ref,
              tpeopt::testing::each_alone(first,
                                          [&](const engine::BatchRequest& r) {
                                            return gpu::make_cuda_executor(*strategy, binding, {})->evaluate(r);
                                          }),
              tpeopt::testing::forward_order(first.n_trials), "alone, an executor each") == "");
  }
}
