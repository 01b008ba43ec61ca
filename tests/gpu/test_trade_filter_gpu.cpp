// [gpu] trade_filter: the CUDA kernels reproduce the CPU reference bit for bit: every
// score of a 100,000-combination grid, the top 10 of each grid method, and random
// (TPE-like) batches of continuous trials. Run on the GPU machine.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>

#include "engine/cpu_executor.hpp"
#include "engine/param_binding.hpp"
#include "gpu/cuda_executor.hpp"
#include "strategies/trade_filter/trade_filter_exact_grid.hpp"
#include "strategies/trade_filter/trade_filter_grid.hpp"
#include "strategies/trade_filter/trade_filter_grid_device.hpp"
#include "strategies/trade_filter/trade_filter_strategy.hpp"
#include "study/slot_grid_config.hpp"
#include "study/study.hpp"
#include "support/bits.hpp"
#include "support/trade_filter_fixture.hpp"
#include "tpe/grid_sampler.hpp"
#include "tpe/random_sampler.hpp"

using namespace tpeopt;
namespace tf = strategies::trade_filter;

namespace {

using tpeopt::testing::same_bits;

const char* kGrid100k = R"({
  "min_volatility": [0, 0.1, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5, 0.6, 0.8],
  "min_ratio": [0, 0.5, 0.8, 0.85, 0.9, 0.95, 1.0, 1.02, 1.05, 1.1],
  "min_adx28": [0, 10, 20, 25, 30],
  "min_adx14": [0, 10, 20, 25, 30],
  "min_adx7": [0, 15, 25, 35],
  "target_pct": [0.2, 0.3, 0.4, 0.5, 0.75],
  "stop_pct": [-0.5, -0.3]})";

}  // namespace

TEST_CASE("trade_filter GPU: every score of a 100,000-combination grid equals the CPU reference",
          "[gpu][trade_filter]") {
  REQUIRE(gpu::cuda_available());
  const auto cache = testing::trade_filter_cache(2, 1500, 21);
  const auto config = testing::trade_filter_config(cache, kGrid100k, R"({"sampler": "grid", "batch": 25000})", 50);
  auto strategy = engine::make_strategy(config);
  const auto& s = dynamic_cast<const strategies::TradeFilterStrategy&>(*strategy);
  const auto grid = strategies::trade_filter_grid_of(engine::make_slot_grid(config, s));
  REQUIRE(grid.size() == 100000);

  // every combination through both executors (the CPU one is the linear-walk reference)
  engine::CpuExecutor cpu(s, engine::ParamBinding(s, config.space, config.fixed));
  auto cuda = gpu::make_cuda_executor(s, engine::ParamBinding(s, config.space, config.fixed));
  tpe::GridSampler sampler(config.space);
  std::vector<std::pair<double, std::uint64_t>> feasible;  // (score, combination) for the brute-force top 10
  std::size_t differing = 0;
  for (std::uint64_t first = 0; first < grid.size(); first += 25000) {
    engine::BatchRequest r;
    r.first_trial = first;
    r.n_trials = 25000;
    r.n_axes = config.space.size();
    r.values.resize(r.n_trials * r.n_axes);
    sampler.ask(first, r.n_trials, r.values.data());
    const auto a = cpu.evaluate(r);
    const auto b = cuda->evaluate(r);
    for (std::size_t i = 0; i < r.n_trials; ++i) {
      bool same = same_bits(a.scores[i], b.scores[i]) && same_bits(a.violations[i], b.violations[i]);
      for (int m = 0; m < 3; ++m) same = same && same_bits(a.metrics[i * 3 + m], b.metrics[i * 3 + m]);
      differing += same ? 0 : 1;
      if (a.violations[i] == 0) feasible.emplace_back(-a.scores[i], first + i);
    }
  }
  REQUIRE(differing == 0);
  std::sort(feasible.begin(), feasible.end());
  REQUIRE(feasible.size() >= 10);

  tf::GridSearchSettings st;
  st.top_k = 10;
  st.min_trades = 50;
  const auto ref = tf::grid_search_cpu(s, grid, st);
  gpu::TradeFilterGridSearch search(s);
  st.memory_budget = 0;
  const auto cells = search.search(grid, st);
  REQUIRE(std::string(cells.method) == "cells");
  st.memory_budget = tf::cell_table_bytes(grid.layout(), 3);  // a few pairs at a time
  const auto by_pair = search.search(grid, st, 1000);
  REQUIRE(std::string(by_pair.method) == "cells by pair");
  st.memory_budget = 1;
  const auto direct = search.search(grid, st, 30000);
  REQUIRE(std::string(direct.method) == "direct");
  REQUIRE(cells.top == ref.top);
  REQUIRE(by_pair.top == ref.top);
  REQUIRE(direct.top == ref.top);
  for (std::size_t r = 0; r < 10; ++r) {
    CAPTURE(r);
    REQUIRE(ref.top[r].combination == feasible[r].second);
    REQUIRE(same_bits(tf::from_fixed_point(cells.tallies[r].sum_q), -feasible[r].first));
    REQUIRE(cells.tallies[r].kept == ref.tallies[r].kept);
    REQUIRE(cells.tallies[r].wins == ref.tallies[r].wins);
  }
}

TEST_CASE("trade_filter GPU: TPE-like batches of continuous trials equal the CPU reference", "[gpu][trade_filter]") {
  REQUIRE(gpu::cuda_available());
  const auto cache = testing::trade_filter_cache(2, 3000, 22);
  const auto config = testing::trade_filter_config(cache, testing::trade_filter_continuous_params(0.05, 2.0),
                                                   R"({"sampler": "tpe", "trials": 8192, "batch": 4096})", 20);
  auto strategy = engine::make_strategy(config);
  const std::size_t n = GENERATE(1u, 33u, 127u, 128u, 4096u);  // below 128: the warp-per-trial tally
  const int block = GENERATE(32, 256);
  CAPTURE(n, block);
  tpe::RandomSampler sampler(config.space, 9);
  engine::BatchRequest r;
  r.n_trials = n;
  r.n_axes = config.space.size();
  r.values.resize(n * r.n_axes);
  sampler.ask(0, n, r.values.data());
  engine::CpuExecutor cpu(*strategy, engine::ParamBinding(*strategy, config.space, config.fixed));
  gpu::CudaExecutorOptions o;
  o.block_size = block;
  auto cuda = gpu::make_cuda_executor(*strategy, engine::ParamBinding(*strategy, config.space, config.fixed), o);
  const auto a = cpu.evaluate(r);
  const auto b = cuda->evaluate(r);
  std::size_t differing = 0;
  for (std::size_t i = 0; i < n; ++i) {
    bool same = same_bits(a.scores[i], b.scores[i]) && same_bits(a.violations[i], b.violations[i]);
    for (int m = 0; m < 3; ++m) same = same && same_bits(a.metrics[i * 3 + m], b.metrics[i * 3 + m]);
    differing += same ? 0 : 1;
  }
  REQUIRE(differing == 0);
}

TEST_CASE("trade_filter GPU: a pipelined TPE run equals a serial CPU run", "[gpu][trade_filter][determinism]") {
  REQUIRE(gpu::cuda_available());
  const auto cache = testing::trade_filter_cache(2, 3000, 22);
  const auto config =
      testing::trade_filter_config(cache, testing::trade_filter_continuous_params(0.05, 2.0),
                                   R"({"sampler": "tpe", "trials": 2048, "batch": 256, "depth": 2, "seed": 4})", 20);
  engine::RunOptions g, c;
  g.executor = "cuda";
  c.executor = "cpu";
  c.serial = true;
  REQUIRE(engine::run_study(config, g).result.digest_hex() == engine::run_study(config, c).result.digest_hex());
}
