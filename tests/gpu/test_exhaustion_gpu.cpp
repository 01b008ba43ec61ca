// [gpu]: the exhaustion kernels reproduce the CPU reference exactly: the same trades
// (bars, reasons, prices, returns) and the same score bits, for populations of 1, 24, 512
// and 4096 random trials on every data set of the repository's data/, with the filtered and the
// plain warp finders and the one-thread-per-trial kernel, several block sizes and a forced
// split of the batch into parts; thresholds on the filter's level edges; the same over
// blocks of bars (docs/strategies.md, "Data subsets") in any order. Run on the GPU machine.
#include <catch2/catch.hpp>

#include "support/trade_parity.hpp"

#include "support/paths.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "engine/cpu_executor.hpp"
#include "gpu/cuda_executor.hpp"
#include "io/candles_csv.hpp"
#include "strategies/exhaustion/exhaustion_device.hpp"
#include "strategies/exhaustion/exhaustion_strategy.hpp"
#include "study/study.hpp"
#include "support/exhaustion_params.hpp"

using namespace tpeopt;
namespace ex = strategies::exhaustion;

namespace {

using tpeopt::testing::same_bits;

using CpuTrial = testing::CpuTrial<ex::Trade>;

std::vector<CpuTrial> cpu_reference(const strategies::ExhaustionStrategy& s, const std::vector<double>& params) {
  return testing::cpu_trials<ex::Trade>(s, params, ex::kNumSlots);
}

/// Trials whose GPU score, metrics or trade list differ from the CPU's in any bit.
std::size_t count_differing(const std::vector<CpuTrial>& cpu, const std::vector<gpu::GpuTrialTrades>& gpu,
                            std::size_t* total_trades) {
  return testing::count_differing_trials(cpu, gpu, total_trades, [](const ex::Trade& a, const ex::Trade& b) {
    return a.signal_bar == b.signal_bar && a.entry_bar == b.entry_bar && a.exit_bar == b.exit_bar &&
           a.reason == b.reason && same_bits(a.entry_price, b.entry_price) && same_bits(a.exit_price, b.exit_price) &&
           same_bits(a.ret, b.ret) && same_bits(a.r_multiple, b.r_multiple);
  });
}

}  // namespace

TEST_CASE("exhaustion GPU trade lists equal the CPU reference exactly", "[gpu][exhaustion]") {
  REQUIRE(gpu::cuda_available());
  const std::string file = GENERATE(as<std::string>{}, "backtesting-py/GOOG.csv", "backtesting-py/EURUSD.csv",
                                    "backtesting-py/BTCUSD.csv", "binance-1m/BTCUSDT_1m_2023-03.csv",
                                    "binance-1m/BTCUSD_1m_2023-03.csv", "binance-1m/BTCUSDC_1m_2023-03.csv");
  const std::size_t n = GENERATE(1u, 24u, 512u, 4096u);
  const std::uint64_t seed = 77 + n;
  CAPTURE(file, n, seed);
  const strategies::ExhaustionStrategy s(io::read_candles_csv(tpeopt::testing::data_dir() + "/" + file), {});
  const auto params = tpeopt::testing::random_exhaustion_params(n, seed);
  const auto cpu = cpu_reference(s, params);
  struct Launch {
    bool warp, filter, cap;
    int block;
    std::size_t max_series;
  };
  // The CPU reference once, then every kernel against it: the filtered finder (register
  // capped and not), with a forced split into parts, the plain warp finder, one thread per trial.
  for (const Launch launch :
       {Launch{true, true, true, 128, 0}, Launch{true, true, false, 256, 0}, Launch{true, true, true, 32, 7},
        Launch{true, false, false, 64, 0}, Launch{false, false, false, 256, 0}}) {
    CAPTURE(launch.warp, launch.filter, launch.cap, launch.block, launch.max_series);
    gpu::ExhaustionDeviceOptions o;
    o.warp_per_trial = launch.warp;
    o.filter = launch.filter;
    o.cap_registers = launch.cap;
    o.max_series = launch.max_series;
    const auto gpu_results = gpu::gpu_exhaustion_trades(s, params.data(), n, o, launch.block);
    REQUIRE(gpu_results.size() == n);
    std::size_t total_trades = 0;
    CHECK(count_differing(cpu, gpu_results, &total_trades) == 0);
    if (n >= 24) CHECK(total_trades > 0);
  }
}

TEST_CASE("exhaustion GPU over blocks of bars equals the CPU reference exactly", "[gpu][exhaustion][subsets]") {
  // Blocks as hold-out parts and halving rungs make them: shuffled, of unequal lengths,
  // starting anywhere (not on the signal finder's 512-bar steps), one bar long, overlapping,
  // and the whole series as one block; walked by one warp per trial or per (trial, block).
  REQUIRE(gpu::cuda_available());
  const std::string file =
      GENERATE(as<std::string>{}, "backtesting-py/EURUSD.csv", "binance-1m/BTCUSDT_1m_2023-03.csv");
  const std::uint64_t seed = GENERATE(3u, 4u);
  CAPTURE(file, seed);
  const strategies::ExhaustionStrategy whole(io::read_candles_csv(tpeopt::testing::data_dir() + "/" + file), {});
  const int n_bars = whole.n_bars();
  std::mt19937_64 rng(seed);
  std::vector<strategies::BarBlock> blocks;
  if (seed == 3) {
    // 13 equal-ish consecutive blocks in a shuffled order (a halving rung's slices).
    const int k = 13;
    for (int b = 0; b < k; ++b)
      blocks.push_back({static_cast<int>(static_cast<long long>(n_bars) * b / k),
                        static_cast<int>(static_cast<long long>(n_bars) * (b + 1) / k)});
    std::shuffle(blocks.begin(), blocks.end(), rng);
  } else {
    for (int b = 0; b < 9; ++b) {
      const int begin = std::uniform_int_distribution<int>(0, n_bars - 2)(rng);
      const int len = std::uniform_int_distribution<int>(1, std::max(1, n_bars / 5))(rng);
      blocks.push_back({begin, std::min(n_bars, begin + len)});
    }
    blocks.push_back({n_bars - 1, n_bars});  // one bar: no signal can fit
    blocks.push_back({0, n_bars});           // the whole series
  }
  const auto s = whole.with_blocks(blocks, 3);
  const std::size_t n = 1024;
  const auto params = tpeopt::testing::random_exhaustion_params(n, seed * 11);
  const auto cpu = cpu_reference(*s, params);
  std::size_t violated = 0;
  for (const auto& c : cpu) violated += c.score.violation > 0.0 ? 1 : 0;
  // min_trades = 3 leaves feasible and infeasible trials: both paths of the violation run.
  CHECK(violated > 0);
  CHECK(violated < n);
  using Split = gpu::ExhaustionDeviceOptions::SplitBlocks;
  // One warp per trial (Never) and one per (trial, block) (Always), each finder, a forced
  // split into parts, the one-thread kernel.
  for (const auto& [warp, filter, max_series, split] :
       {std::tuple{true, true, std::size_t{0}, Split::Never}, std::tuple{true, true, std::size_t{0}, Split::Always},
        std::tuple{true, true, std::size_t{5}, Split::Never}, std::tuple{true, true, std::size_t{5}, Split::Always},
        std::tuple{true, false, std::size_t{0}, Split::Never}, std::tuple{true, false, std::size_t{0}, Split::Always},
        std::tuple{false, false, std::size_t{0}, Split::Auto}}) {
    CAPTURE(warp, filter, max_series, static_cast<int>(split));
    gpu::ExhaustionDeviceOptions o;
    o.warp_per_trial = warp;
    o.filter = filter;
    o.max_series = max_series;
    o.split_blocks = split;
    const auto gpu_results = gpu::gpu_exhaustion_trades(*s, params.data(), n, o, 128);
    REQUIRE(gpu_results.size() == n);
    std::size_t total_trades = 0;
    CHECK(count_differing(cpu, gpu_results, &total_trades) == 0);
    CHECK(total_trades > 0);
  }
}

TEST_CASE("exhaustion GPU filter: thresholds on and beyond the level edges", "[gpu][exhaustion]") {
  // The signal finder skips bars by one-byte levels of vol_z, tr_z (edges -4 + k/16) and
  // cloc (edges k/256): thresholds exactly on an edge, between edges, below the first and
  // above the last must all give the CPU's trades.
  REQUIRE(gpu::cuda_available());
  const std::string file =
      GENERATE(as<std::string>{}, "backtesting-py/EURUSD.csv", "binance-1m/BTCUSDT_1m_2023-03.csv");
  CAPTURE(file);
  const strategies::ExhaustionStrategy s(io::read_candles_csv(tpeopt::testing::data_dir() + "/" + file), {});
  std::mt19937_64 rng(2024);
  auto pick = [&](const std::vector<double>& v) {
    return v[std::uniform_int_distribution<std::size_t>(0, v.size() - 1)(rng)];
  };
  const std::vector<double> z_values = {
      -1e300, -10.0, -4.0,    -3.9375, -1.0, 0.0, 0.0625, 0.5, 1.0, 1.03125, 1.5, 2.0, std::nextafter(2.0, 3.0),
      2.5,    3.0,   11.9375, 12.0,    40.0};
  const std::vector<double> cloc_values = {0.0,  1.0 / 256.0,   0.25, 0.5, std::nextafter(0.5, 0.0),
                                           0.75, 255.0 / 256.0, 1.0};
  auto base = tpeopt::testing::random_exhaustion_params(1024, 99);
  for (std::size_t i = 0; i < 1024; ++i) {
    double* p = &base[i * ex::kNumSlots];
    p[ex::kVolZ] = pick(z_values);
    p[ex::kTrZ] = pick(z_values);
    p[ex::kClocMin] = pick(cloc_values);
  }
  const auto cpu = cpu_reference(s, base);
  for (const bool filter : {true, false}) {
    CAPTURE(filter);
    gpu::ExhaustionDeviceOptions o;
    o.filter = filter;
    const auto gpu_results = gpu::gpu_exhaustion_trades(s, base.data(), 1024, o);
    REQUIRE(gpu_results.size() == 1024);
    std::size_t total_trades = 0;
    CHECK(count_differing(cpu, gpu_results, &total_trades) == 0);
    CHECK(total_trades > 0);
  }
}

TEST_CASE("exhaustion CUDA executor scores equal the CPU executor's bits", "[gpu][exhaustion]") {
  REQUIRE(gpu::cuda_available());
  const auto config = io::load_study_config(tpeopt::testing::source_dir() + "/examples/exhaustion_eurusd.json");
  auto strategy = engine::make_strategy(config);
  engine::CpuExecutor cpu(*strategy, engine::ParamBinding(*strategy, config.space, config.fixed), 2);
  gpu::CudaExecutorOptions small, large, parts;
  small.block_size = 32;
  large.block_size = 512;
  parts.max_part_trials = 1000;  // the batch runs as 5 device parts (4 x 1000 + 96)
  auto a = gpu::make_cuda_executor(*strategy, engine::ParamBinding(*strategy, config.space, config.fixed), small);
  auto b = gpu::make_cuda_executor(*strategy, engine::ParamBinding(*strategy, config.space, config.fixed), large);
  auto c = gpu::make_cuda_executor(*strategy, engine::ParamBinding(*strategy, config.space, config.fixed), parts);
  const std::size_t n = 4096;
  engine::BatchRequest r;
  r.n_trials = n;
  r.n_axes = config.space.size();
  r.values.resize(n * r.n_axes);
  auto sampler = engine::make_sampler(config);
  sampler->ask(0, n, r.values.data());
  const auto rc = cpu.evaluate(r);
  for (auto* exe : {a.get(), b.get(), c.get()}) {
    for (int repeat = 0; repeat < 2; ++repeat) {  // the second batch reads the cached series
      const auto rg = exe->evaluate(r);
      std::size_t differing = 0;
      for (std::size_t i = 0; i < n; ++i) {
        bool same = same_bits(rc.scores[i], rg.scores[i]) && same_bits(rc.violations[i], rg.violations[i]);
        for (std::size_t m = 0; m < rc.n_metrics; ++m)
          same = same && same_bits(rc.metrics[i * rc.n_metrics + m], rg.metrics[i * rg.n_metrics + m]);
        differing += same ? 0 : 1;
      }
      CHECK(differing == 0);
    }
  }
}
