// The conformance harness, CUDA side: every registered strategy with a device twin, over each
// of its registry samples on the bundled real data: the CUDA executor's scores, violations
// and metrics equal the CPU executor's bit for bit (three block sizes, and a batch
// cut into device parts), on the whole data and on the parts of data subsets (a hold-out's
// in-sample part and a 4-slice halving rung) where the strategy declares them, and folded
// (the worst of 4 folds, with an embargo) where it can be split; its trades and
// per-symbol results from the GPU equal the CPU's; and a trial scores the same bits on the
// device alone, in a batch and in the batch reversed (tests/support/trial_order.hpp). No test
// is written per strategy. The signal strategies' twins (bollinger, donchian) again with their
// walks cut into forced numbers of segments and stitched (strategies/device/signal_segments.hpp).
// Runs on the GPU machine: tpeopt_tests "[gpu][conformance]" (scripts/gpu_conformance.sh).
#include <catch2/catch.hpp>

#include "engine/cpu_executor.hpp"
#include "engine/param_binding.hpp"
#include "gpu/cuda_executor.hpp"
#include "strategies/device/signal_segments.hpp"
#include "study/backtest.hpp"
#include "study/data_subsets.hpp"
#include "study/study.hpp"
#include "support/bits.hpp"
#include "support/conformance.hpp"
#include "support/in_flight.hpp"
#include "support/paths.hpp"
#include "support/result_bits.hpp"
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
  gpu::CudaExecutorOptions small, large, largest, parts;
  small.block_size = 32;
  large.block_size = 512;
  // The most --block-size takes: each kernel launches in blocks as large as its registers
  // allow (strategies/device/launch_size.cuh), and the bits do not change.
  largest.block_size = 1024;
  parts.max_part_trials = 300;  // 4 device parts: 3 x 300 + 100
  for (const auto& o : {small, large, largest, parts}) {
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

/// One trial's score, metrics and per-symbol results from the GPU equal the CPU's, and (with
/// `trades`) its trades, exported from the GPU.
void require_same_backtest(const strategies::Strategy& strategy, const std::vector<double>& slots, bool trades) {
  const auto cpu = engine::backtest_params(strategy, slots, "cpu", trades, 128);
  const auto gpu = engine::backtest_params(strategy, slots, "cuda", trades, 64);
  CHECK(same_bits(cpu.score.score, gpu.score.score));
  CHECK(same_bits(cpu.score.violation, gpu.score.violation));
  CHECK(same_bits(cpu.metrics, gpu.metrics));
  REQUIRE(cpu.symbols.has_value() == gpu.symbols.has_value());
  if (cpu.symbols) {
    CHECK(same_bits(cpu.symbols->objective, gpu.symbols->objective));
    CHECK(same_bits(cpu.symbols->equity, gpu.symbols->equity));
    CHECK(same_bits(cpu.symbols->metrics, gpu.symbols->metrics));
  }
  if (!trades) return;
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
    // Folded, where the strategy can be split: the per-symbol rows carry their fold columns.
    const auto folded = tpeopt::testing::folded_or_null(*strategy, 4, 5, {strategies::AcrossFolds::Rule::Min});
    for (std::size_t i = 0; i < batch.n_trials; ++i) {
      CAPTURE(i);
      binding.fill(&batch.values[i * batch.n_axes], slots.data());
      require_same_backtest(*strategy, slots, trades);
      if (folded) require_same_backtest(*folded, slots, trades);
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

TEST_CASE("conformance: the signal strategies' walks cut into segments and stitched, or a warp a walk, equal the CPU",
          "[gpu][conformance][segments]") {
  REQUIRE(gpu::cuda_available());
  // Walks on one thread and on one warp each: auto (on a thread, the bundled EURUSD bars are
  // too short to be cut and the 30,240 bars of BTCUSDT 1m are cut into 7; on a warp, into up to
  // 29, and the EURUSD bars into 3), no segments, 2 to 64 segments (some shorter than a trade), records
  // with room for 1 and 3 trades (the stitch walks the rest); bit for bit.
  using Walk = gpu::SignalSegments::Walk;
  const gpu::SignalSegments settings[] = {{0, 0, Walk::Thread},  {1, 0, Walk::Thread},  {2, 0, Walk::Thread},
                                          {16, 0, Walk::Thread}, {64, 0, Walk::Thread}, {16, 1, Walk::Thread},
                                          {64, 3, Walk::Thread}, {0, 0, Walk::Warp},    {1, 0, Walk::Warp},
                                          {2, 0, Walk::Warp},    {16, 1, Walk::Warp},   {64, 3, Walk::Warp}};
  const std::string btc = tpeopt::testing::data_dir() + "/binance-1m/BTCUSDT_1m_2023-03.csv";
  std::size_t cases = 0;
  for (const ConformanceCase& c : tpeopt::testing::conformance_cases()) {
    if (c.entry->name != "bollinger" && c.entry->name != "donchian") continue;
    ++cases;
    std::vector<io::Json> data = {io::Json::object()};
    if (c.label.find("one series") != std::string::npos) data.push_back({{"candles", btc}});
    for (const io::Json& d : data) {
      const io::StudyConfig config = tpeopt::testing::conformance_study(c, {{"data", d}});
      const auto strategy = engine::make_strategy(config);
      // The whole data; the in-sample part of a hold-out (one block per symbol: cut too); two
      // of four halving slices (two blocks per symbol: walked whole).
      std::vector<std::unique_ptr<strategies::Strategy>> parts;
      io::Json with_holdout = d;
      with_holdout["holdout"] = 0.3;
      const io::StudyConfig holdout = tpeopt::testing::conformance_study(c, {{"data", with_holdout}});
      parts.push_back(strategy->subset(engine::in_sample_ranges(*strategy, holdout), 0));
      const auto slices = engine::equal_slices({{0, strategy->n_atoms()}}, 4);
      std::vector<strategies::AtomRange> rung = slices[0];
      rung.insert(rung.end(), slices[2].begin(), slices[2].end());
      parts.push_back(strategy->subset(rung, 0));
      std::vector<const strategies::Strategy*> all = {strategy.get(), parts[0].get(), parts[1].get()};
      for (std::size_t which = 0; which < all.size(); ++which) {
        const strategies::Strategy& s = *all[which];
        const engine::ParamBinding binding(s, config.space, config.fixed);
        for (const std::size_t n : {std::size_t{1}, std::size_t{37}, std::size_t{4096}}) {
          const auto batch = tpeopt::testing::random_batch(config, n, 50 + n);
          engine::CpuExecutor cpu(s, engine::ParamBinding(s, config.space, config.fixed), 0);
          const auto ref = cpu.evaluate(batch);
          for (const gpu::SignalSegments& g : settings) {
            CAPTURE(c.label, d.dump(), which, n, g.segments, g.segment_room, static_cast<int>(g.walk));
            const gpu::ScopedSignalSegments forced(g);
            auto device = gpu::make_cuda_executor(s, engine::ParamBinding(s, config.space, config.fixed), {});
            const auto got = device->evaluate(batch);
            REQUIRE(got.n_trials == ref.n_trials);
            std::size_t differing = 0;
            for (std::size_t i = 0; i < ref.n_trials; ++i)
              differing +=
                  same_bits(got.scores[i], ref.scores[i]) && same_bits(got.violations[i], ref.violations[i]) ? 0 : 1;
            CHECK(differing == 0);
            CHECK(same_bits(got.metrics, ref.metrics));
            // Recorded trades (one trial at a time, as the trade export records them).
            if (n == 37 && which == 0) {
              std::vector<double> slots(binding.n_slots());
              for (std::size_t i = 0; i < 3; ++i) {
                CAPTURE(i);
                binding.fill(&batch.values[i * batch.n_axes], slots.data());
                require_same_backtest(s, slots, true);
              }
            }
          }
        }
      }
    }
  }
  REQUIRE(cases == 6);  // two strategies, three samples each
}

TEST_CASE("conformance: the signal twins' batches overlapping on the device equal one stream and the CPU",
          "[gpu][conformance][overlap]") {
  REQUIRE(gpu::cuda_available());
  // Three batches in flight through the executor, on the bundled series and the 30,240 bars of
  // BTCUSDT 1m; with the whole cache, and with 12 series, so that every launch evicts series
  // that the launches before it may still read. Warp and thread walks; sizes that are cut into
  // segments (few trials) and not.
  using Walk = gpu::SignalSegments::Walk;
  const std::string btc = tpeopt::testing::data_dir() + "/binance-1m/BTCUSDT_1m_2023-03.csv";
  std::size_t cases = 0;
  for (const ConformanceCase& c : tpeopt::testing::conformance_cases()) {
    if (c.entry->name != "bollinger" && c.entry->name != "donchian") continue;
    if (c.label.find("one series") == std::string::npos) continue;
    ++cases;
    for (const io::Json& d : {io::Json::object(), io::Json{{"candles", btc}}}) {
      const io::StudyConfig config = tpeopt::testing::conformance_study(c, {{"data", d}});
      const auto strategy = engine::make_strategy(config);
      const engine::ParamBinding binding(*strategy, config.space, config.fixed);
      engine::CpuExecutor cpu(*strategy, binding, 0);
      // Each stage of the twin's ring (every other launch) grows after its first launch.
      const std::vector<std::size_t> sizes = {1, 33, 4096, 2048, 700, 37};
      std::vector<engine::BatchRequest> batches;
      std::vector<engine::BatchResult> reference;
      for (std::size_t k = 0; k < sizes.size(); ++k) {
        batches.push_back(tpeopt::testing::random_batch(config, sizes[k], 300 + k));
        batches.back().batch_index = k;
        reference.push_back(cpu.evaluate(batches.back()));
      }
      for (const gpu::SignalSegments g :
           {gpu::SignalSegments{0, 0, Walk::Warp, 0}, gpu::SignalSegments{0, 0, Walk::Warp, 12},
            gpu::SignalSegments{0, 0, Walk::Thread, 12}}) {
        CAPTURE(c.label, d.dump(), static_cast<int>(g.walk), g.max_series);
        const gpu::ScopedSignalSegments forced(g);
        gpu::CudaExecutorOptions one, three;
        one.max_in_flight = 1;
        three.max_in_flight = 3;
        auto serial = gpu::make_cuda_executor(*strategy, binding, one);
        auto overlapped = gpu::make_cuda_executor(*strategy, binding, three);
        REQUIRE(overlapped->max_in_flight() == 3);
        const std::vector<engine::BatchResult> got = tpeopt::testing::run_in_flight(*overlapped, batches, 3);
        for (std::size_t k = 0; k < batches.size(); ++k) {
          CAPTURE(k, sizes[k]);
          CHECK(got[k].batch_index == k);
          CHECK(tpeopt::testing::differing_trials(got[k], serial->evaluate(batches[k])) == 0);
          CHECK(tpeopt::testing::differing_trials(got[k], reference[k]) == 0);
        }
      }
    }
  }
  REQUIRE(cases == 2);  // the "one series" sample of each
}
