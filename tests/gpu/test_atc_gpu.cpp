// [gpu]: the atc kernels and the multi-symbol exhaustion device reproduce the CPU reference
// exactly (docs/strategies.md, "Candle data sets of many symbols"): per-symbol objectives, equities and metrics and the
// aggregated scores, bit for bit, on 100 generated symbols of different lengths and start
// dates and on the repository's real data sets (data/), with the grouped and the simple atc
// kernels, forced splits into parts and chunks, and through the CUDA executor under every
// aggregate. Run on the GPU machine.
#include <catch2/catch.hpp>

#include "support/paths.hpp"
#include "support/result_bits.hpp"
#include "support/slot_space.hpp"

#include <array>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "engine/cpu_executor.hpp"
#include "engine/param_binding.hpp"
#include "gpu/cuda_executor.hpp"
#include "strategies/device/device_buffers.hpp"
#include "io/candle_set.hpp"
#include "io/candles_generator.hpp"
#include "strategies/atc/atc_device.hpp"
#include "strategies/atc/atc_strategy.hpp"
#include "strategies/exhaustion/exhaustion_symbols_strategy.hpp"
#include "support/bits.hpp"
#include "support/exhaustion_params.hpp"
#include "tpe/search_space.hpp"

using namespace tpeopt;
namespace atc = strategies::atc;
namespace ex = strategies::exhaustion;
namespace sym = strategies::symbols;

namespace {

using tpeopt::testing::same_bits;

std::vector<double> atc_params(std::size_t n, std::uint64_t seed, int max_len) {
  std::mt19937_64 rng(seed);
  auto u = [&](double a, double b) { return std::uniform_real_distribution<double>(a, b)(rng); };
  auto k = [&](int a, int b) { return static_cast<double>(std::uniform_int_distribution<int>(a, b)(rng)); };
  std::vector<double> p;
  for (std::size_t i = 0; i < n; ++i) {
    const double row[atc::kNumSlots] = {k(1, max_len), k(1, max_len), k(1, max_len), k(1, max_len), k(1, max_len),
                                        k(1, max_len), k(0, 8),       u(0, 2),       u(0, 2),       u(-0.3, 0.7),
                                        u(-0.7, 0.3),  k(0, 80),      u(0, 20)};
    p.insert(p.end(), row, row + atc::kNumSlots);
  }
  return p;
}

CandleSet generated(int symbols, int bars, int min_bars, std::uint64_t seed) {
  io::CandleSetGeneratorOptions o;
  o.symbols = symbols;
  o.bars = bars;
  o.min_bars = min_bars;
  o.seed = seed;
  return io::generate_candle_set(o);
}

/// Trials of `params` whose GPU results differ from the CPU reference in any bit: the
/// aggregate (score, violation, metrics) and every symbol's objective, equity and metrics.
std::size_t count_differing(const strategies::AtcStrategy& s, const std::vector<double>& params,
                            const gpu::AtcGpuResults& g, std::size_t* trades) {
  const std::size_t n = params.size() / atc::kNumSlots, S = s.n_symbols(), M = atc::kNumMetrics;
  std::size_t differing = 0;
  *trades = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double* p = &params[i * atc::kNumSlots];
    std::vector<double> m(M), obj(S), eq(S), met(S * M);
    const auto r = s.evaluate(p, m.data());
    s.evaluate_symbols(p, obj.data(), eq.data(), met.data());
    bool same = same_bits(r.score, g.scores[i]) && same_bits(r.violation, g.violations[i]);
    for (std::size_t k = 0; k < M; ++k) same = same && same_bits(m[k], g.metrics[i * M + k]);
    for (std::size_t k = 0; k < S; ++k) {
      same = same && same_bits(obj[k], g.objective[i * S + k]) && same_bits(eq[k], g.equity[i * S + k]);
      for (std::size_t q = 0; q < M; ++q)
        same = same && same_bits(met[k * M + q], g.symbol_metrics[(i * S + k) * M + q]);
    }
    if (!same && differing++ == 0)
      UNSCOPED_INFO("first differing trial " << i << ": cpu score " << r.score << ", gpu " << g.scores[i]);
    *trades += static_cast<std::size_t>(m[atc::kMTrades]);
  }
  return differing;
}

/// The aggregates of a batch run through the atc device directly (its chunking and parts).
gpu::AtcGpuResults device_results(const strategies::AtcStrategy& s, const std::vector<double>& params,
                                  const gpu::AtcDeviceOptions& options) {
  const std::size_t n = params.size() / atc::kNumSlots, M = atc::kNumMetrics;
  cudaStream_t stream{};
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  gpu::AtcGpuResults out;
  {
    auto dev = gpu::make_atc_device(s, stream, options);
    gpu::PinnedBuffer<double> h_params;
    h_params.resize(params.size());
    std::copy(params.begin(), params.end(), h_params.data());
    gpu::DeviceBuffer<double> d_params(params.size()), d_scores(n), d_viol(n), d_metrics(n * M);
    CUDA_CHECK(cudaMemcpyAsync(d_params.data(), h_params.data(), params.size() * sizeof(double), cudaMemcpyHostToDevice,
                               stream));
    dev->launch(gpu::DeviceBatch{d_params.data(), h_params.data(), d_scores.data(), d_viol.data(), d_metrics.data(), n},
                stream, 128);
    out.scores.resize(n);
    out.violations.resize(n);
    out.metrics.resize(n * M);
    CUDA_CHECK(cudaMemcpyAsync(out.scores.data(), d_scores.data(), n * sizeof(double), cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(
        cudaMemcpyAsync(out.violations.data(), d_viol.data(), n * sizeof(double), cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(
        cudaMemcpyAsync(out.metrics.data(), d_metrics.data(), n * M * sizeof(double), cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
  }
  cudaStreamDestroy(stream);
  return out;
}

/// CPU executor vs CUDA executor on one request (the slot rows themselves): differing trials.
std::size_t executor_differing(const strategies::Strategy& s, const tpe::SearchSpace& space,
                               const std::vector<double>& params, std::size_t n_slots) {
  engine::BatchRequest r;
  r.n_trials = params.size() / n_slots;
  r.n_axes = n_slots;
  r.values = params;
  engine::CpuExecutor cpu(s, engine::ParamBinding(s, space, {}), 0);
  const auto rc = cpu.evaluate(r);
  auto exe = gpu::make_cuda_executor(s, engine::ParamBinding(s, space, {}));
  std::size_t differing = 0;
  for (int repeat = 0; repeat < 2; ++repeat)  // the second batch reads the cached series
    differing += testing::differing_trials(rc, exe->evaluate(r));
  return differing;
}

}  // namespace

TEST_CASE("atc GPU equals the CPU bit for bit on 100 generated symbols", "[gpu][atc][multi]") {
  REQUIRE(gpu::cuda_available());
  const CandleSet set = generated(100, 1500, 200, 21);
  strategies::AtcOptions o;
  o.min_trades = 50;
  const strategies::AtcStrategy s(set, o);
  const auto params = atc_params(48, 4, 150);
  struct Launch {
    bool grouped;
    std::size_t max_series;
    int block;
  };
  for (const Launch launch : {Launch{true, 0, 128}, Launch{false, 0, 96}, Launch{true, 60, 128}}) {
    CAPTURE(launch.grouped, launch.max_series);
    gpu::AtcDeviceOptions d;
    d.grouped = launch.grouped;
    d.max_series = launch.max_series;
    const auto g = gpu::gpu_atc_evaluate(s, params.data(), 48, d, launch.block);
    std::size_t trades = 0;
    CHECK(count_differing(s, params, g, &trades) == 0);
    CHECK(trades > 0);
  }
  // Per-symbol rows in chunks of 5 trials (and parts of at most 60 series): same aggregates.
  gpu::AtcDeviceOptions d;
  d.max_series = 60;
  d.max_chunk_trials = 5;
  const auto c = device_results(s, params, d);
  std::size_t differing = 0;
  for (std::size_t i = 0; i < 48; ++i) {
    std::vector<double> m(atc::kNumMetrics);
    const auto r = s.evaluate(&params[i * atc::kNumSlots], m.data());
    bool same = same_bits(r.score, c.scores[i]) && same_bits(r.violation, c.violations[i]);
    for (std::size_t k = 0; k < m.size(); ++k) same = same && same_bits(m[k], c.metrics[i * m.size() + k]);
    differing += same ? 0 : 1;
  }
  CHECK(differing == 0);
}

TEST_CASE("atc GPU equals the CPU bit for bit on the real data sets", "[gpu][atc][multi]") {
  REQUIRE(gpu::cuda_available());
  const std::string dir = GENERATE(as<std::string>{}, "backtesting-py", "binance-1m");
  CAPTURE(dir);
  const std::string path = tpeopt::testing::data_dir() + "/" + dir;
  const CandleSet set = io::load_candle_set_data(io::Json{{"candles_dir", path}, {"cache_dir", ""}}, path);
  REQUIRE(set.n_symbols() == 3);
  for (const auto objective : {atc::Objective::TotalReturn, atc::Objective::Sharpe}) {
    strategies::AtcOptions o;
    o.objective = objective;
    o.aggregate = objective == atc::Objective::Sharpe ? sym::Aggregate::Worst : sym::Aggregate::Sum;
    const strategies::AtcStrategy s(set, o);
    const auto params = atc_params(dir == "binance-1m" ? 12 : 64, 7, 300);
    const auto g = gpu::gpu_atc_evaluate(s, params.data(), params.size() / atc::kNumSlots);
    std::size_t trades = 0;
    CHECK(count_differing(s, params, g, &trades) == 0);
    CHECK(trades > 0);
  }
}

TEST_CASE("atc CUDA executor scores equal the CPU executor's bits under every aggregate", "[gpu][atc][multi]") {
  REQUIRE(gpu::cuda_available());
  const CandleSet set = generated(30, 800, 100, 33);
  const std::vector<std::array<double, 2>> bounds = {{1, 1000}, {1, 1000}, {1, 1000}, {1, 1000}, {1, 1000},
                                                     {1, 1000}, {0, 250},  {0, 10},   {0, 99},   {-1, 1},
                                                     {-1, 1},   {0, 1e6},  {0, 100}};
  for (const auto aggregate :
       {sym::Aggregate::Sum, sym::Aggregate::Mean, sym::Aggregate::Worst, sym::Aggregate::Portfolio}) {
    CAPTURE(static_cast<int>(aggregate));
    strategies::AtcOptions o;
    o.aggregate = aggregate;
    const strategies::AtcStrategy s(set, o);
    CHECK(executor_differing(s, testing::slot_space(s, bounds), atc_params(300, 17, 200), atc::kNumSlots) == 0);
  }
}

TEST_CASE("exhaustion over several symbols: CUDA executor equals the CPU executor's bits", "[gpu][exhaustion][multi]") {
  REQUIRE(gpu::cuda_available());
  const std::string binance = tpeopt::testing::data_dir() + "/binance-1m";
  const CandleSet real = io::load_candle_set_data(io::Json{{"candles_dir", binance}, {"cache_dir", ""}}, binance);
  const CandleSet gen = generated(20, 3000, 500, 44);
  const auto bounds = testing::exhaustion_slot_bounds();
  for (const CandleSet* set : {&real, &gen}) {
    for (const auto aggregate : {sym::Aggregate::Sum, sym::Aggregate::Worst, sym::Aggregate::Portfolio}) {
      CAPTURE(set->n_symbols(), static_cast<int>(aggregate));
      const strategies::ExhaustionSymbolsStrategy s(*set, {}, aggregate, true);
      CHECK(executor_differing(s, testing::slot_space(s, bounds), tpeopt::testing::random_exhaustion_params(512, 3),
                               ex::kNumSlots) == 0);
    }
  }
}
