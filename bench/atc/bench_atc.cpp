// Benchmark: the atc strategy (adaptive trend classification) over a generated data set of many symbols (default
// 1,000 symbols x 1,500 bars), a batch of random parameter sets (default 4096), through the
// CUDA executor (device events) when a GPU is present and the CPU executor (a few trials,
// extrapolated per trial). Before timing the GPU it checks that a subset of the trials gives
// the CPU's bits on every symbol (per-symbol rows and aggregates); a difference exits 1.
// Needs only this binary: the data are generated in memory (io/candles_generator.hpp).
//
// Usage: bench_atc [--symbols 1000] [--bars 1500] [--trials 4096] [--cpu-trials 8]
//                  [--check-trials 16] [--repeats 3] [--max-len 120] [--seed 1]
//
// Units: a "symbol-bar-trial" is one bar of one symbol for one parameter set (each is 54
// moving-average signals through two layers of equity weighting); the headline workload is
// 1,000 x 1,500 x 4,096 = 6.1e9 of them. The ATC specification's reference: 99 symbols x 1,500 bars, one
// parameter set, 0.59 s (1.5e5 symbol-bar-trials: 2.5e5 per second); the bench also times
// that workload (one trial over the first 99 symbols).
//
// Expected ceiling (H100 SXM: 132 SMs, FP64 64 lanes per SM per clock at ~1.7 GHz, i.e.
// ~1.4e13 FP64 ops/s without FMA): per symbol-bar-trial the grouped kernel runs, per lane
// of six, nine equity updates (a multiply and a compare), the layer-1 sums (18 adds) and a
// division, the layer-2 equity, the final sums and division, and the return bookkeeping:
// ~60 FP64 operations per lane, ~360 per symbol-bar-trial, plus two double-precision
// divisions on the critical path. 6.1e9 x 360 / 1.4e13 ~ 0.16 s for the headline batch if
// FP64-bound; signal words (8 bytes per 32 bars per variant) come from L2 for trials that
// share lengths. The first batch also computes every (type, length) signal series over all
// symbols (~600 series x 1.5e6 bars, one thread per symbol and series).
//
// Versions (H100, default workload; docs/benchmarks.md, "Multi-asset: atc"):
//  v1: signals as nine-bit masks rebuilt every bar, selects for factors and terms, the six
//    lanes' l1 * E and E exchanged by 12 double shuffles per bar; 162 registers (12 warps per
//    SM). 694 ms warm (8.9e9 symbol-bar-trials/s), first batch 702 ms. ncu (200 symbols x
//    1024 trials): 417 warp instructions per warp-bar, 81 of them FP64; issue slots 70% busy,
//    the ALU pipe (integer and logic) the busiest at 65%: bit handling, not arithmetic, bound it.
//  v2 (current): each variant's signal kept as a double (+1, -1, 0) so factors and terms are
//    arithmetic (keep * (1 + s * rg), s * e; bit-identical to the selects), fmax floors, the
//    exchange through shared memory (one 16-byte store, six 16-byte loads per bar), slot ids
//    reloaded per 32-bar word instead of nine pointers held: 128 registers (16 warps per SM).
//    541 ms warm (1.13e10), first batch 551 ms. Now ~130 FP64 instructions per warp-bar at
//    0.5 per clock per scheduler set the floor near 260 of the ~410 cycles each scheduler
//    spends per warp-bar. Next levers, not done: fuse s * x + y where s * x is exact (an
//    explicit fma, identical bits) and sum the nine terms as a tree (a spec change).
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <boost/random/mersenne_twister.hpp>
#include <boost/random/uniform_01.hpp>
#include <boost/random/uniform_int_distribution.hpp>

#include "common/hardware_threads.hpp"
#include "engine/cpu_executor.hpp"
#include "engine/param_binding.hpp"
#include "gpu/cuda_executor.hpp"
#include "io/candles_generator.hpp"
#include "strategies/atc/atc_device.hpp"
#include "strategies/atc/atc_strategy.hpp"
#include "tests/support/bits.hpp"
#include "tests/support/slot_space.hpp"
#include "tpe/search_space.hpp"

using namespace tpeopt;
namespace atc = strategies::atc;

namespace {

using testing::same_bits;  // the parity check's (CUDA builds); an unused inline is no warning

/// Random rows: lengths 2..max_len per type, robustness 0..4, lambda 0..1, decay 0..0.2,
/// thresholds around +-0.1, cutout 0..50, fees 0..10 bp.
std::vector<double> random_params(std::size_t n, std::uint64_t seed, int max_len) {
  boost::random::mt19937_64 rng(seed);
  boost::random::uniform_01<double> u01;
  auto u = [&](double a, double b) { return a + (b - a) * u01(rng); };
  auto k = [&](int a, int b) { return static_cast<double>(boost::random::uniform_int_distribution<int>(a, b)(rng)); };
  std::vector<double> p;
  p.reserve(n * atc::kNumSlots);
  for (std::size_t i = 0; i < n; ++i) {
    const double row[atc::kNumSlots] = {k(2, max_len), k(2, max_len), k(2, max_len), k(2, max_len), k(2, max_len),
                                        k(2, max_len), k(0, 4),       u(0, 1),       u(0, 0.2),     u(0.0, 0.5),
                                        u(-0.5, 0.0),  k(0, 50),      u(0, 10)};
    p.insert(p.end(), row, row + atc::kNumSlots);
  }
  return p;
}

/// Slots as axes, so a request's values are the slot rows themselves.
tpe::SearchSpace slot_space(const strategies::Strategy& s) {
  const std::vector<std::array<double, 2>> bounds = {{1, 1000}, {1, 1000}, {1, 1000}, {1, 1000}, {1, 1000},
                                                     {1, 1000}, {0, 250},  {0, 10},   {0, 99},   {-1, 1},
                                                     {-1, 1},   {0, 1e6},  {0, 100}};
  return testing::slot_space(s, bounds);
}

engine::BatchRequest request(const std::vector<double>& params, std::size_t n) {
  engine::BatchRequest r;
  r.n_trials = n;
  r.n_axes = atc::kNumSlots;
  r.values.assign(params.begin(), params.begin() + static_cast<std::ptrdiff_t>(n * atc::kNumSlots));
  return r;
}

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

#ifdef TPEOPT_WITH_CUDA
/// Trials of `params` (the first n) whose GPU per-symbol rows or aggregates differ from the CPU's.
std::size_t check_parity(const strategies::AtcStrategy& s, const std::vector<double>& params, std::size_t n) {
  const auto g = gpu::gpu_atc_evaluate(s, params.data(), n);
  const std::size_t S = s.n_symbols(), M = atc::kNumMetrics;
  std::vector<int> bad(n, 0);
  std::vector<std::thread> pool;
  const unsigned threads = tpeopt::usable_hardware_threads();
  for (unsigned w = 0; w < threads; ++w)
    pool.emplace_back([&, w] {
      std::vector<double> m(M), obj(S), eq(S), met(S * M);
      for (std::size_t i = w; i < n; i += threads) {
        const double* p = &params[i * atc::kNumSlots];
        const auto r = s.evaluate(p, m.data());
        s.evaluate_symbols(p, obj.data(), eq.data(), met.data());
        bool same = same_bits(r.score, g.scores[i]) && same_bits(r.violation, g.violations[i]);
        for (std::size_t k = 0; k < M; ++k) same = same && same_bits(m[k], g.metrics[i * M + k]);
        for (std::size_t q = 0; q < S; ++q) {
          same = same && same_bits(obj[q], g.objective[i * S + q]) && same_bits(eq[q], g.equity[i * S + q]);
          for (std::size_t k = 0; k < M; ++k)
            same = same && same_bits(met[q * M + k], g.symbol_metrics[(i * S + q) * M + k]);
        }
        bad[i] = same ? 0 : 1;
      }
    });
  for (auto& t : pool) t.join();
  std::size_t differing = 0;
  for (const int b : bad) differing += static_cast<std::size_t>(b);
  return differing;
}
#else
// Built without the CUDA toolkit: there is no device twin to compare (cuda_available() is
// false, so this is never called).
std::size_t check_parity(const strategies::AtcStrategy&, const std::vector<double>&, std::size_t) { return 0; }
#endif

}  // namespace

int main(int argc, char** argv) {
  int symbols = 1000, bars = 1500, max_len = 120, repeats = 3;
  std::size_t trials = 4096, cpu_trials = 8, check_trials = 16;
  std::uint64_t seed = 1;
  for (int a = 1; a + 1 < argc; a += 2) {
    const std::string k = argv[a];
    if (k == "--symbols") symbols = std::stoi(argv[a + 1]);
    else if (k == "--bars") bars = std::stoi(argv[a + 1]);
    else if (k == "--trials") trials = std::stoull(argv[a + 1]);
    else if (k == "--cpu-trials") cpu_trials = std::stoull(argv[a + 1]);
    else if (k == "--check-trials") check_trials = std::stoull(argv[a + 1]);
    else if (k == "--repeats") repeats = std::stoi(argv[a + 1]);
    else if (k == "--max-len") max_len = std::stoi(argv[a + 1]);
    else if (k == "--seed") seed = std::stoull(argv[a + 1]);
    else {
      std::fprintf(stderr, "bench_atc: unknown option %s\n", k.c_str());
      return 2;
    }
  }
  cpu_trials = std::min(cpu_trials, trials);
  check_trials = std::min(check_trials, trials);
  io::CandleSetGeneratorOptions g;
  g.symbols = symbols;
  g.bars = bars;
  g.seed = seed;
  const auto t_gen = std::chrono::steady_clock::now();
  const CandleSet set = io::generate_candle_set(g);
  const double gen_ms = ms_since(t_gen);
  const strategies::AtcStrategy s(set, {});
  const auto space = slot_space(s);
  const auto params = random_params(trials, seed + 1, max_len);
  const double units = static_cast<double>(set.n_bars()) * static_cast<double>(trials);
  std::printf(
      "atc benchmark: %d symbols x %d bars (generated in %.0f ms, seed %llu), %zu parameter sets "
      "(lengths 2..%d), device: %s\n",
      symbols, bars, gen_ms, static_cast<unsigned long long>(seed), trials, max_len,
      gpu::cuda_device_description().c_str());
  int status = 0;
  if (gpu::cuda_available()) {
    const auto t0 = std::chrono::steady_clock::now();
    const std::size_t differing = check_parity(s, params, check_trials);
    std::printf(
        "parity: %zu of %zu trials differ from the CPU in any bit (every symbol's row and the aggregate; "
        "checked in %.1f s)\n",
        differing, check_trials, ms_since(t0) / 1e3);
    if (differing != 0) status = 1;
  }
  std::printf(
      "\n| executor | symbols x bars | trials | ms (first batch) | ms (warm, best of %d) | symbol-bar-trials/s "
      "(warm) | mean trades per symbol |\n",
      repeats);
  std::printf("| --- | --- | ---: | ---: | ---: | ---: | ---: |\n");
  if (gpu::cuda_available()) {
    gpu::CudaExecutorOptions o;
    o.max_in_flight = 1;
    auto exe = gpu::make_cuda_executor(s, engine::ParamBinding(s, space, {}), o);
    const auto r = request(params, trials);
    const auto first = exe->evaluate(r);
    double best = 1e300;
    for (int k = 0; k < std::max(1, repeats); ++k) best = std::min(best, exe->evaluate(r).timings.busy_ms);
    double tr = 0;
    for (std::size_t i = 0; i < trials; ++i) tr += first.metrics[i * first.n_metrics + atc::kMTrades];
    std::printf("| cuda | %d x %d | %zu | %.1f | %.1f | %.3g | %.1f |\n", symbols, bars, trials, first.timings.busy_ms,
                best, units / (best / 1e3), tr / static_cast<double>(trials) / symbols);
  } else {
    std::printf("| cuda | %d x %d | - | - | - | (no CUDA device) | - |\n", symbols, bars);
  }
  {
    engine::CpuExecutor cpu(s, engine::ParamBinding(s, space, {}), 0);
    const auto r = request(params, cpu_trials);
    const auto t0 = std::chrono::steady_clock::now();
    const auto res = cpu.evaluate(r);
    const double ms = ms_since(t0);
    double tr = 0;
    for (std::size_t i = 0; i < cpu_trials; ++i) tr += res.metrics[i * res.n_metrics + atc::kMTrades];
    const double per_trial = ms / static_cast<double>(cpu_trials);
    std::printf("| cpu (%u threads) | %d x %d | %zu | %.0f | %.0f | %.3g | %.1f |\n", usable_hardware_threads(),
                symbols, bars, cpu_trials, ms, ms, static_cast<double>(set.n_bars()) * cpu_trials / (ms / 1e3),
                tr / static_cast<double>(cpu_trials) / symbols);
    std::printf(
        "\ncpu: %.1f ms per parameter set over all symbols; %zu parameter sets would take ~%.0f s "
        "(extrapolated)\n",
        per_trial, trials, per_trial * static_cast<double>(trials) / 1e3);
  }
  // The ATC specification's workload: one parameter set (the defaults: its settings) over 99 symbols.
  {
    const int n99 = std::min(99, symbols);
    io::CandleSetGeneratorOptions g99 = g;
    g99.symbols = n99;
    const strategies::AtcStrategy s99(io::generate_candle_set(g99), {});
    const auto d = s99.param_defaults();
    std::vector<double> m(atc::kNumMetrics);
    const auto t0 = std::chrono::steady_clock::now();
    s99.evaluate(d.data(), m.data());
    const double cpu_ms = ms_since(t0);
    std::printf(
        "ATC reference workload (%d symbols x %d bars, 1 parameter set, the default settings): cpu %.1f ms (one "
        "thread)",
        n99, bars, cpu_ms);
    if (gpu::cuda_available()) {
      gpu::CudaExecutorOptions o;
      o.max_in_flight = 1;
      const auto space99 = slot_space(s99);
      auto exe = gpu::make_cuda_executor(s99, engine::ParamBinding(s99, space99, {}), o);
      const auto r = request(d, 1);
      const double first = exe->evaluate(r).timings.busy_ms;
      const double warm = exe->evaluate(r).timings.busy_ms;
      std::printf(", cuda %.2f ms first / %.2f ms warm", first, warm);
    }
    std::printf(" (the reference implementation: 590 ms)\n");
  }
  return status;
}
