// Benchmark: the exhaustion strategy over 1,000,000 bars, batches of 4096 and 65536 random
// trials through the CUDA executor (device events) and the CPU executor; prints bar-trial
// evaluations per second. Usage: bench_exhaustion [--bars N] [--cpu-trials M] [--repeats R]
// With CUDA it also times the device kernels directly (first batch on a fresh device, then
// warm), for the filtered signal finder and the plain warp finder.
// --multi-gpu-trials N[,N...] prints only the several-GPU table (scaleout/split_executor):
// each batch size on devices 0..k-1 for every k up to the device count.
// --folds K prints only the cost of scoring K equal folds in the same walk (Strategy::with_folds,
// rule mean) against the plain walk: the same trials at batch 4096 and 65536 through the CUDA
// executor, and --cpu-trials of them on the CPU; the goal is at most 1.25x at K = 8.
//
// Notes (METHOD.md: the two numbers, then each version's prediction and outcome).
//  Two numbers for the plain warp-per-trial scan (every bar through is_signal): per
//  bar-trial ~16-40 B (cloc always; vol_z for about half; EMAs and tr_z for some), so at
//  3.35 TB/s it is memory-bound near 1e11-2e11 bar-trials/s, and ~50 warp instructions per
//  32 bar-trials put the issue ceiling near 5.7e11. Both are below or near the goals
//  (1e11 at 4096 trials, 3e11 at 65536): the lever is to not read every bar.
//  v1 (plain warp finder; EMA one thread per span; H100):
//    4096: 101 ms warm = 4.05e10, first batch 278 ms; 65536: 950 ms = 6.9e10.
//    The first batch's extra ~177 ms matched 1e6 EMA steps x ~300 cycles (a dependent load
//    of close per step) on ~7 SMs; the 65536 batch also paid O(n x keys) host planning.
//  v2: a byte "level" per bar of vol_z and tr_z (per z_window) and of cloc, a
//    conservative filter (v > t implies level(v) >= level(t)); a lane compares 16 bars per
//    16-byte load (__vcmpgeu4), 1024 bars per warp step, next step prefetched; kept bars
//    through is_signal lane by lane. EMA: 32 spans per warp, close broadcast by shuffle,
//    output staged in shared memory and written coalesced by a second warp; z-scores on a
//    second stream. Host planning: flat key tables. Prediction: ~2 B per bar-trial from
//    HBM, ~2000 steps + ~640 trades per trial, latency-bound at 2-5 ms per trial-warp:
//    4096 in 3-10 ms, 65536 in 30-60 ms; first batch 20-30 ms.
//    Outcome (H100): 4096 48 ms = 8.4e10, 65536 264 ms = 2.5e11, first batch 89 ms. Far
//    from the prediction. A CPU replay of 512 of the trials (counts only) showed why: the
//    mean trial has 640 trades, 1500 candidates and 1900 32-bar exit steps, but the
//    heaviest have 6400 trades, 15000 candidates, 17000 exit steps, and each trade costs a
//    chain of dependent loads (is_signal's four short-circuit reads, open_position, the
//    exit steps, close_position, reloading the levels): at 4096 trials (two waves at 120
//    registers) the heaviest trials set the time; at 65536 it is ~8000 round trips per
//    trial at ~1 us with 16 warps per SM.
//  v3 (current): fewer round trips per trade and more warps. Candidates of a 512-bar step spread
//    over the lanes (prefix sum, __fns), 32 at a time, each lane first loading all the
//    operands of is_signal and open_position at once (an L1 warm-up kept alive by a
//    never-true store) so is_signal's dependent reads hit L1; the step's levels stay in
//    registers across calls (after an exit the search resumes in them); exits 64 bars in
//    the first step, then 128, with open/low/high loaded at once; the summary in shared
//    memory; the filtered kernel capped at 80 registers (24 warps per SM instead of 16).
//    Prediction: ~2.5 round trips per trade instead of ~6: 4096 ~15 ms, 65536 ~50 ms.
//    Outcome (H100): 4096 35.8 ms = 1.14e11, 65536 171 ms = 3.83e11 (uncapped registers:
//    35.2 ms and 184 ms); first batch 78 ms (executor). One trial alone (trial 0, 3903
//    trades) took 10.5 ms warm: ~2.7 us per trade on an idle GPU, i.e. still ~4 dependent
//    round trips per trade; the first batch of one trial, 28.6 ms, puts the EMA chain at
//    ~18 ms (36 cycles per step, as predicted).
//  v4: the exit steps also load close (close_position's read for time exits hit L1 then).
//    Prediction: one round trip less per trade: trial 0 ~8 ms, 4096 ~28 ms, 65536 ~150 ms.
//    Outcome (H100): worse, beyond the ~3% spread of unchanged rows: trial 0 11.2 ms,
//    4096 38.3 ms, 65536 184 ms. close[j] was not a round trip of its own (its load goes
//    out with close_position's others once j is known); the extra loads only add traffic.
//    Reverted: the code is v3. Next levers, not done: split the heaviest trials' walks
//    (walks that are flat at the same bar agree from there on), order trials heaviest
//    first, and warm the first exit step's bars during the candidate round.
//    Table: docs/benchmarks.md, "exhaustion on the GPU".
//
// Expected ceiling of v1 (H100 SXM: 3.35 TB/s HBM, ~50 MB L2, 132 SMs; count per bar-trial of the
// warp-per-trial kernel, /work/.library/device/METHOD.md):
//  - bytes: every bar reads cloc (8 B); about half pass cloc > cloc_min and read vol_z (8 B);
//    the few that pass read two EMAs and tr_z (24 B). With 32 lanes on 32 consecutive bars the
//    loads are coalesced and a 32 B sector serves 4 lanes, so ~14-16 B per bar-trial. From
//    HBM alone: 3.35e12 / 16 = ~2e11 bar-trials/s; trials sharing a z_window or spans hit L2.
//  - instructions: per warp step (32 bar-trials) ~40-60 warp instructions (bounds, 2-5 loads,
//    compares, ballot, loop): 132 SMs x 4 schedulers x 1.7e9 / 50 = ~1.8e10 steps/s =
//    ~5.7e11 bar-trials/s. So memory-bound near 1-2e11 unless L2 reuse is high; trade walks
//    (32 bars per ballot step) add little while trades are a few percent of bars.
//  - per batch fixed cost: the EMA of each new span is 1e6 dependent steps (~3 FP64 ops of
//    ~8 cycles: ~15 ms for the first batch); spans are cached across batches, so warm batches
//    skip it. The z-scores of a new window are parallel over bars (~0.2 ms per window).
// Numbers: docs/benchmarks.md, "exhaustion on the GPU".
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "engine/batch_timings.hpp"
#include "engine/cpu_executor.hpp"
#include "engine/param_binding.hpp"
#include "gpu/cuda_executor.hpp"
#include "scaleout/split_executor.hpp"
#include "strategies/exhaustion/exhaustion_strategy.hpp"
#include "tests/support/exhaustion_params.hpp"
#include "tests/support/slot_space.hpp"
#include "tpe/search_space.hpp"

#ifdef TPEOPT_WITH_CUDA
#include <cuda_runtime_api.h>

#include "strategies/device/device_buffers.hpp"
#include "strategies/exhaustion/exhaustion_device.hpp"
#endif

using namespace tpeopt;
namespace ex = strategies::exhaustion;

namespace {

/// A seeded geometric random walk with bursts of volatility and volume (and some
/// zero-volume, flat bars, like thin 1-minute markets).
Candles random_walk(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> z(0.0, 1.0);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  Candles c;
  c.source = "random walk";
  c.reserve(n);
  double price = 20000.0, vol = 0.001;
  for (std::size_t i = 0; i < n; ++i) {
    vol = 0.98 * vol + 0.02 * 0.001 * (u(rng) < 0.01 ? 8.0 : 1.0);
    const double open = price;
    const double close = open * std::exp(vol * z(rng));
    const double flat = u(rng) < 0.02;
    const double high = flat ? open : std::max(open, close) * (1.0 + vol * std::fabs(z(rng)) * 0.5);
    const double low = flat ? open : std::min(open, close) * (1.0 - vol * std::fabs(z(rng)) * 0.5);
    c.time_ms.push_back(static_cast<std::int64_t>(i) * 60000);
    c.open.push_back(open);
    c.high.push_back(high);
    c.low.push_back(low);
    c.close.push_back(flat ? open : close);
    c.volume.push_back(flat ? 0.0 : std::exp(z(rng)) * (vol / 0.001));
    price = c.close.back();
  }
  return c;
}

std::vector<double> random_params(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto u = [&](double a, double b) { return std::uniform_real_distribution<double>(a, b)(rng); };
  auto k = [&](int a, int b) { return static_cast<double>(std::uniform_int_distribution<int>(a, b)(rng)); };
  std::vector<double> p;
  p.reserve(n * ex::kNumSlots);
  for (std::size_t i = 0; i < n; ++i) {
    const double row[ex::kNumSlots] = {k(5, 200), k(20, 400), k(10, 200), k(5, 50),  u(0.5, 4), u(0.5, 4),
                                       u(0, 1),   u(0.5, 4),  u(0.5, 10), k(5, 500), 1.0,       0.5};
    p.insert(p.end(), row, row + ex::kNumSlots);
  }
  return p;
}

/// Slots as axes, so a request's values are the slot vectors themselves; the bounds contain
/// random_params' ranges (check_param_range validates them).
tpe::SearchSpace slot_space(const strategies::Strategy& s) {
  return testing::slot_space(s, testing::exhaustion_slot_bounds());
}

engine::BatchRequest request(const std::vector<double>& params, std::size_t n) {
  engine::BatchRequest r;
  r.n_trials = n;
  r.n_axes = ex::kNumSlots;
  r.values.assign(params.begin(), params.begin() + static_cast<std::ptrdiff_t>(n * ex::kNumSlots));
  return r;
}

#ifdef TPEOPT_WITH_CUDA
/// Times one device twin directly (events around launch(): host planning, series, trial
/// kernel): the first batch on a fresh device, then the best of `repeats` warm batches.
void time_device(const strategies::ExhaustionStrategy& s, const std::vector<double>& params, std::size_t n,
                 const gpu::ExhaustionDeviceOptions& o, const char* label, int repeats) {
  cudaStream_t stream{};
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  {
    auto dev = gpu::make_exhaustion_device(s, stream, o);
    const std::size_t nm = ex::kNumMetrics;
    gpu::PinnedBuffer<double> h_params, h_metrics;
    h_params.resize(n * ex::kNumSlots);
    h_metrics.resize(n * nm);
    std::copy_n(params.data(), n * ex::kNumSlots, h_params.data());
    gpu::DeviceBuffer<double> d_params(n * ex::kNumSlots), d_scores(n), d_viol(n), d_metrics(n * nm);
    CUDA_CHECK(cudaMemcpyAsync(d_params.data(), h_params.data(), n * ex::kNumSlots * sizeof(double),
                               cudaMemcpyHostToDevice, stream));
    const gpu::DeviceBatch batch{d_params.data(), h_params.data(), d_scores.data(), d_viol.data(), d_metrics.data(), n};
    cudaEvent_t a{}, b{};
    CUDA_CHECK(cudaEventCreate(&a));
    CUDA_CHECK(cudaEventCreate(&b));
    auto once = [&] {
      CUDA_CHECK(cudaEventRecord(a, stream));
      dev->launch(batch, stream, 128);
      CUDA_CHECK(cudaEventRecord(b, stream));
      CUDA_CHECK(cudaEventSynchronize(b));
      float ms = 0;
      CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
      return static_cast<double>(ms);
    };
    const double first = once();
    double best = 1e300;
    for (int k = 0; k < std::max(1, repeats); ++k) best = std::min(best, once());
    CUDA_CHECK(cudaMemcpy(h_metrics.data(), d_metrics.data(), n * nm * sizeof(double), cudaMemcpyDeviceToHost));
    double trades = 0;
    for (std::size_t i = 0; i < n; ++i) trades += h_metrics.data()[i * nm + ex::kMTrades];
    std::printf("| device: %s | %zu | %.2f | %.2f | %.3g | %.1f |\n", label, n, first, best,
                static_cast<double>(s.n_bars()) * static_cast<double>(n) / (best / 1e3),
                trades / static_cast<double>(n));
    cudaEventDestroy(a);
    cudaEventDestroy(b);
  }
  cudaStreamDestroy(stream);
}
#endif

/// Several GPUs of the host (scaleout/split_executor.hpp): warm wall time of one batch of
/// n trials on devices 0..k-1, whether the results equal one GPU's bit for bit, and the
/// slowest device's own busy time (events around its kernels): wall minus busy is the
/// host's share (staging, copies, gathering), busy of k devices against one device's busy
/// divided by k is the share lost to splitting the work.
void time_multi_gpu(const strategies::ExhaustionStrategy& s, const tpe::SearchSpace& space,
                    const std::vector<double>& params, const std::vector<std::size_t>& sizes, int repeats) {
  const int devices = gpu::cuda_device_count();
  std::printf(
      "\n| devices | trials per batch | ms per batch (warm, best of %d) | slowest device busy ms | speed-up | "
      "bar-trials/s | same bits as 1 GPU |\n",
      repeats);
  std::printf("| --- | --- | --- | --- | --- | --- | --- |\n");
  for (const std::size_t n : sizes) {
    const auto r = request(params, n);
    std::vector<double> one_gpu;
    double one_ms = 0;
    for (int k = 1; k <= devices; ++k) {
      std::vector<std::unique_ptr<engine::Executor>> children;
      for (int d = 0; d < k; ++d) {
        gpu::CudaExecutorOptions o;
        o.device = d;
        o.max_in_flight = 1;
        children.push_back(gpu::make_cuda_executor(s, engine::ParamBinding(s, space, {}), o));
      }
      engine::SplitExecutor exe(std::move(children), fmt::format("cuda x{}", k));
      // The first batches warm the devices and teach the splitter their speeds.
      auto result = exe.evaluate(r);
      for (int w = 0; w < 4; ++w) result = exe.evaluate(r);
      double best = 1e300, busy = 0;
      for (int i = 0; i < repeats; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        result = exe.evaluate(r);
        const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        if (ms < best) best = ms, busy = result.timings.busy_ms;
      }
      bool same = true;
      if (k == 1) {
        one_gpu = result.scores;
        one_ms = best;
      } else {
        same = one_gpu.size() == result.scores.size() &&
               std::memcmp(one_gpu.data(), result.scores.data(), one_gpu.size() * sizeof(double)) == 0;
      }
      std::printf("| %d | %zu | %.2f | %.2f | %.2fx | %.3g | %s |\n", k, n, best, busy, one_ms / best,
                  static_cast<double>(s.n_bars()) * static_cast<double>(n) / (best / 1e3), same ? "yes" : "NO");
      std::fflush(stdout);
    }
  }
}

/// Batches back to back through the executor with D in flight (D = 1: one at a time; D = 2:
/// batch k + 1 is submitted before batch k is collected, so with a twin that allows it the
/// two overlap on the device): host wall time per batch in steady state, after one warm-up
/// batch, and the device occupancy of the batches.
void time_in_flight(const strategies::ExhaustionStrategy& s, const tpe::SearchSpace& space,
                    const std::vector<double>& params, std::size_t bars) {
  std::printf(
      "\n| batches in flight (executor) | trials per batch | batches | ms per batch (wall) | bar-trials/s | "
      "device occupancy |\n");
  std::printf("| --- | --- | --- | --- | --- | --- |\n");
  for (const std::size_t n : {std::size_t{4096}, std::size_t{65536}}) {
    const std::size_t batches = n == 4096 ? 16 : 4;
    const auto r = request(params, n);
    for (const std::size_t depth : {std::size_t{1}, std::size_t{2}}) {
      gpu::CudaExecutorOptions o;
      o.max_in_flight = depth;
      auto exe = gpu::make_cuda_executor(s, engine::ParamBinding(s, space, {}), o);
      exe->evaluate(r);  // warm-up: the series are cached from here on
      double sm_busy = 0, sm_span = 0;
      const auto t0 = std::chrono::steady_clock::now();
      std::size_t submitted = 0, done = 0;
      while (done < batches) {
        while (submitted < batches && submitted - done < depth) {
          auto q = r;
          q.batch_index = submitted++;
          exe->submit(std::move(q));
        }
        const auto res = exe->complete();
        sm_busy += res.timings.sm_union_busy_ms;  // any batch's blocks, once per SM
        sm_span += res.timings.sm_new_span_ms;  // the union of the spans: overlapping batches count once
        ++done;
      }
      const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() /
                        static_cast<double>(batches);
      std::printf("| cuda, depth %zu | %zu | %zu | %.2f | %.3g | %.3f |\n", depth, n, batches, ms,
                  static_cast<double>(bars) * static_cast<double>(n) / (ms / 1e3),
                  engine::occupancy_fraction(sm_busy, sm_span));
      std::fflush(stdout);
    }
  }
}

/// The plain walk and the walk with K equal folds (rule mean): the best busy time of
/// `repeats` warm batches of each, alternated, and whether the folded run's whole-span
/// metrics have the plain run's bits.
void time_folds(const strategies::ExhaustionStrategy& s, const tpe::SearchSpace& space,
                const std::vector<double>& params, std::size_t K, std::size_t cpu_trials, int repeats) {
  strategies::FoldSpec f;
  for (std::size_t k = 0; k <= K; ++k) f.edges.push_back(s.candles().size() * k / K);
  const auto folded = s.with_folds(f, {strategies::AcrossFolds::Rule::Mean});
  std::printf("| executor | trials | plain ms (warm, best of %d) | %zu folds ms | ratio | whole-span metrics equal |\n",
              repeats, K);
  std::printf("| --- | --- | --- | --- | --- | --- |\n");
  auto compare = [&](engine::Executor& plain, engine::Executor& fold, std::size_t n, const char* label, bool warm) {
    const auto r = request(params, n);
    const auto a = plain.evaluate(r), b = fold.evaluate(r);
    bool equal = true;
    for (std::size_t i = 0; i < n; ++i)
      equal = equal && std::memcmp(&a.metrics[i * a.n_metrics], &b.metrics[i * b.n_metrics],
                                   ex::kNumMetrics * sizeof(double)) == 0;
    double best_plain = warm ? 1e300 : a.timings.busy_ms, best_fold = warm ? 1e300 : b.timings.busy_ms;
    for (int k = 0; warm && k < repeats; ++k) {
      best_plain = std::min(best_plain, plain.evaluate(r).timings.busy_ms);
      best_fold = std::min(best_fold, fold.evaluate(r).timings.busy_ms);
    }
    std::printf("| %s | %zu | %.2f | %.2f | %.3f | %s |\n", label, n, best_plain, best_fold, best_fold / best_plain,
                equal ? "yes" : "NO");
    std::fflush(stdout);
  };
  if (gpu::cuda_available()) {
    for (std::size_t n : {std::size_t{4096}, std::size_t{65536}}) {
      gpu::CudaExecutorOptions o;
      o.max_in_flight = 1;
      auto plain = gpu::make_cuda_executor(s, engine::ParamBinding(s, space, {}), o);
      auto fold = gpu::make_cuda_executor(*folded, engine::ParamBinding(*folded, space, {}), o);
      compare(*plain, *fold, n, "cuda", true);
    }
  }
  engine::CpuExecutor plain(s, engine::ParamBinding(s, space, {}), 0),
      fold(*folded, engine::ParamBinding(*folded, space, {}), 0);
  compare(plain, fold, cpu_trials, "cpu (all cores, one batch)", false);
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t bars = 1000000, cpu_trials = 16;
  int repeats = 3;
  std::vector<std::size_t> multi_gpu_trials;  // batch sizes of the multi-GPU table
  std::size_t folds = 0;                      // --folds K: only the folds table
  for (int a = 1; a + 1 < argc; a += 2) {
    const std::string k = argv[a];
    if (k == "--bars") bars = std::stoull(argv[a + 1]);
    else if (k == "--cpu-trials") cpu_trials = std::stoull(argv[a + 1]);
    else if (k == "--repeats") repeats = std::stoi(argv[a + 1]);
    else if (k == "--folds") folds = std::stoull(argv[a + 1]);
    else if (k == "--multi-gpu-trials") {  // N[,N...]
      std::stringstream list(argv[a + 1]);
      for (std::string item; std::getline(list, item, ',');) multi_gpu_trials.push_back(std::stoull(item));
    }
  }
  const strategies::ExhaustionStrategy s(random_walk(bars, 1), {});
  const auto space = slot_space(s);
  std::size_t most = 65536;
  for (const std::size_t n : multi_gpu_trials) most = std::max(most, n);
  const auto params = random_params(most, 2);  // the first 65,536 sets whatever the sizes
  if (folds > 0) {
    std::printf("exhaustion, %zu folds scored in the same walk: %zu bars (seeded random walk), device: %s\n", folds,
                bars, gpu::cuda_device_description().c_str());
    time_folds(s, space, params, folds, cpu_trials, repeats);
    return 0;
  }
  if (!multi_gpu_trials.empty()) {  // --multi-gpu-trials N[,N...]: only the multi-GPU table
    std::printf("exhaustion on several GPUs: %zu bars (seeded random walk), %d device(s): %s\n", bars,
                gpu::cuda_device_count(), gpu::cuda_device_description().c_str());
    if (gpu::cuda_device_count() == 0) return 1;
    time_multi_gpu(s, space, params, multi_gpu_trials, repeats);
    return 0;
  }
  std::printf("exhaustion benchmark: %zu bars (seeded random walk), device: %s\n", bars,
              gpu::cuda_device_description().c_str());
  std::printf(
      "| executor | trials | batch | ms (first) | ms (warm, best of %d) | bar-trials/s (warm) | mean trades | "
      "device occupancy (warm) |\n",
      repeats);
  std::printf("| --- | --- | --- | --- | --- | --- | --- | --- |\n");
  if (gpu::cuda_available()) {
    for (std::size_t n : {std::size_t{4096}, std::size_t{65536}}) {
      gpu::CudaExecutorOptions o;
      o.max_in_flight = 1;
      auto exe = gpu::make_cuda_executor(s, engine::ParamBinding(s, space, {}), o);
      const auto r = request(params, n);
      const auto first = exe->evaluate(r);
      double best = 1e300, occupancy = NAN;
      for (int k = 0; k < repeats; ++k) {
        const auto t = exe->evaluate(r).timings;
        if (t.busy_ms < best) {
          best = t.busy_ms;
          occupancy = engine::occupancy_fraction(t.sm_busy_ms, t.sm_span_ms);
        }
      }
      double trades = 0;
      for (std::size_t i = 0; i < n; ++i) trades += first.metrics[i * first.n_metrics + ex::kMTrades];
      std::printf("| cuda | %zu | %zu | %.2f | %.2f | %.3g | %.1f | %.3f |\n", n, n, first.timings.busy_ms, best,
                  static_cast<double>(bars) * static_cast<double>(n) / (best / 1e3), trades / static_cast<double>(n),
                  occupancy);
    }
  } else {
    std::printf("| cuda | - | - | - | - | (no CUDA device) | - | - |\n");
  }
  {
    engine::CpuExecutor cpu(s, engine::ParamBinding(s, space, {}), 0);
    const auto r = request(params, cpu_trials);
    const auto t0 = std::chrono::steady_clock::now();
    const auto res = cpu.evaluate(r);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    double trades = 0;
    for (std::size_t i = 0; i < cpu_trials; ++i) trades += res.metrics[i * res.n_metrics + ex::kMTrades];
    std::printf("| cpu (all cores) | %zu | %zu | %.1f | %.1f | %.3g | %.1f |\n", cpu_trials, cpu_trials, ms, ms,
                static_cast<double>(bars) * static_cast<double>(cpu_trials) / (ms / 1e3),
                trades / static_cast<double>(cpu_trials));
  }
  if (gpu::cuda_available()) time_in_flight(s, space, params, bars);
#ifdef TPEOPT_WITH_CUDA
  if (gpu::cuda_available()) {
    std::printf(
        "\n| kernels (launch() between events) | trials | ms (first) | ms (warm, best of %d) | bar-trials/s (warm) | "
        "mean trades |\n",
        repeats);
    std::printf("| --- | --- | --- | --- | --- | --- |\n");
    gpu::ExhaustionDeviceOptions filtered, uncapped, plain, one_walk;
    uncapped.cap_registers = false;
    plain.filter = false;
    one_walk.segments = 1;
    // One trial on a fresh device: its first batch is about one EMA chain of N steps (two
    // spans side by side) plus one window's z-scores: the floor of any first batch.
    time_device(s, params, 1, filtered, "filtered, 1 trial (first = EMA chain floor), segments auto", repeats);
    time_device(s, params, 1, one_walk, "filtered, 1 trial, one walk (segments = 1)", repeats);
    for (std::size_t n : {std::size_t{4096}, std::size_t{65536}}) {
      time_device(s, params, n, filtered, "filtered, <= 80 registers, segments auto (default)", repeats);
      time_device(s, params, n, one_walk, "filtered, <= 80 registers, one walk (segments = 1)", repeats);
      for (const int g : n == 4096 ? std::vector<int>{4, 8, 16, 32} : std::vector<int>{2, 4}) {
        gpu::ExhaustionDeviceOptions cut;
        cut.segments = g;
        time_device(s, params, n, cut, fmt::format("filtered, segments = {}", g).c_str(), repeats);
      }
      if (n == 4096) {
        time_device(s, params, n, uncapped, "filtered, uncapped registers, segments auto", repeats);
        time_device(s, params, n, plain, "plain warp finder (v1 scan)", repeats);
      }
    }
    std::printf("\n");
  }
#endif
  return 0;
}
