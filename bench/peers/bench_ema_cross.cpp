// bench_ema_cross: the ema_cross strategy's two peer workloads (docs/benchmarks.md, "Peers") on the CPU
// executor and, when built with CUDA and a GPU is present, the CUDA executor:
//   sweep: 10,000 parameter sets over one candle series (default: 200,000 generated bars);
//   long:  one parameter set over 10,000,000 generated bars.
// Before timing anything it checks that the CUDA executor gives the CPU's scores,
// violations and metrics bit for bit on every set of both workloads, and the same trade
// lists (every field, bit for bit) on a sample of sets; it refuses to time a workload
// that differs. bench/peers/run_peers.sh runs the same sets through vectorbt and checks
// every trade against this program's --trades-out before any timing.
//
// Usage: bench_ema_cross [DATA.csv] [--bars N] [--sets N] [--long-bars N] [--repeats R]
//                        [--threads T] [--params P.csv] [--no-cpu] [--no-gpu]
//        bench_ema_cross [DATA.csv | --bars N] [--params P.csv] --trades-out PREFIX
//        bench_ema_cross --bars N [--seed S] --write-data OUT.csv
//   DATA.csv      candles for the sweep (any CSV tpeopt reads); default: the generated
//                 walk of --bars bars (default 200000, seed 1)
//   --sets N      the first N sets of the sweep grid (default 10000)
//   --params P    parameter sets from a CSV with the header
//                 ema_fast,ema_slow,sl_pct,tp_pct,fee_bp,slippage_bp (replaces the grid)
//   --long-bars N bars of the long workload (default 10000000; 0 skips it), seed 2
//   --trades-out  writes PREFIX.trades (every set's trades, CPU reference; one 48-byte
//                 little-endian record each: int32 set, signal_bar, entry_bar, exit_bar,
//                 reason, 0; float64 entry_price, exit_price, return) and PREFIX.metrics
//                 (float64 score then the metrics, per set), then exits
//   --write-data  writes the generated walk as CSV (time,open,high,low,close,volume) and exits
//
// The generated walk (bench/peers/peers.py generates the same bars with numpy): prices
// in ticks of 0.01 from 10000.00; a splitmix64 stream (seed S) gives three 64-bit draws
// r1, r2, r3 per bar; open = the previous close (the first: 1,000,000 ticks); close =
// open + (r1 mod 41) - 20 ticks (reflected, open - ((r1 mod 41) - 20), if that falls below
// 1000 ticks); high = max(open, close) + (r2 mod 8); low = max(1, min(open, close) -
// (r3 mod 8)); volume = (r1 >> 32) mod 1000 + 1; price = ticks / 100.0; time = 1.6e12 ms +
// i minutes. Integer arithmetic only, so every platform gets the same doubles.
//
// Sweep grid (set k = 100 a + b, a, b in 0..99): ema_fast = 2 + 2a, ema_slow = 10 + 10b,
// sl_pct 2, tp_pct 4, fee_bp 10, slippage_bp 5. Long set: ema_fast 50, ema_slow 200, the
// same stops and costs.
//
// Timings: "cold" builds a fresh strategy (empty EMA cache) or a fresh CUDA executor
// (empty device series cache; the data upload is outside the timing and printed
// separately) for every repeat and times the evaluation of all sets: it includes the EMA
// of every span, as vectorbt's timing does. "warm" repeats the evaluation with the EMA
// series already cached. Best of --repeats each.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "common/error.hpp"
#include "common/hardware_threads.hpp"
#include "engine/cpu_executor.hpp"
#include "engine/param_binding.hpp"
#include "gpu/cuda_executor.hpp"
#include "io/candles_csv.hpp"
#include "strategies/ema_cross/ema_cross_device.hpp"
#include "strategies/ema_cross/ema_cross_strategy.hpp"
#include "tests/support/slot_space.hpp"
#include "tpe/search_space.hpp"

#ifdef TPEOPT_WITH_CUDA
#include <cuda_runtime_api.h>

#include "strategies/device/device_buffers.hpp"
#endif

using namespace tpeopt;
namespace ec = strategies::ema_cross;

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

struct SplitMix64 {
  std::uint64_t state;
  std::uint64_t next() {
    state += 0x9E3779B97F4A7C15ull;
    std::uint64_t z = state;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
};

/// The generated walk described at the top of this file.
Candles generated_walk(std::size_t n, std::uint64_t seed) {
  SplitMix64 g{seed};
  Candles c;
  c.source = fmt::format("generated walk ({} bars, seed {})", n, seed);
  c.reserve(n);
  std::int64_t close = 1000000;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t r1 = g.next(), r2 = g.next(), r3 = g.next();
    const std::int64_t open = close;
    const std::int64_t step = static_cast<std::int64_t>(r1 % 41) - 20;
    close = open + step;
    if (close < 1000) close = open - step;
    const std::int64_t high = std::max(open, close) + static_cast<std::int64_t>(r2 % 8);
    const std::int64_t low = std::max<std::int64_t>(1, std::min(open, close) - static_cast<std::int64_t>(r3 % 8));
    c.time_ms.push_back(1600000000000LL + static_cast<std::int64_t>(i) * 60000);
    c.open.push_back(static_cast<double>(open) / 100.0);
    c.high.push_back(static_cast<double>(high) / 100.0);
    c.low.push_back(static_cast<double>(low) / 100.0);
    c.close.push_back(static_cast<double>(close) / 100.0);
    c.volume.push_back(static_cast<double>((r1 >> 32) % 1000 + 1));
  }
  return c;
}

void write_csv(const Candles& c, const std::string& path) {
  std::ofstream out(path, std::ios::trunc);
  if (!out) throw std::runtime_error("cannot write " + path);
  out << "time,open,high,low,close,volume\n";
  for (std::size_t i = 0; i < c.size(); ++i)
    out << fmt::format("{},{},{},{},{},{}\n", c.time_ms[i], c.open[i], c.high[i], c.low[i], c.close[i], c.volume[i]);
  if (!out.flush()) throw std::runtime_error("write error on " + path);
}

std::vector<double> sweep_grid(std::size_t sets) {
  std::vector<double> p;
  for (std::size_t k = 0; k < std::min<std::size_t>(sets, 10000); ++k) {
    const double row[ec::kNumSlots] = {
        2.0 + 2.0 * static_cast<double>(k / 100), 10.0 + 10.0 * static_cast<double>(k % 100), 2.0, 4.0, 10.0, 5.0};
    p.insert(p.end(), row, row + ec::kNumSlots);
  }
  return p;
}

std::vector<double> read_params_csv(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::string line;
  std::getline(in, line);
  if (line.rfind("ema_fast,ema_slow,sl_pct,tp_pct,fee_bp,slippage_bp", 0) != 0)
    throw std::runtime_error(path + ": expected the header ema_fast,ema_slow,sl_pct,tp_pct,fee_bp,slippage_bp");
  std::vector<double> p;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    std::stringstream ss(line);
    std::string field;
    int k = 0;
    while (std::getline(ss, field, ',')) {
      p.push_back(std::stod(field));
      ++k;
    }
    if (k != ec::kNumSlots) throw std::runtime_error(path + ": a row without 6 fields: " + line);
  }
  return p;
}

/// Slots as axes, so a request's values are the slot vectors themselves.
tpe::SearchSpace slot_space(const strategies::Strategy& s) {
  const std::vector<std::array<double, 2>> bounds = {{1, 1e7}, {1, 1e7}, {0, 99}, {0, 1e5}, {0, 1e3}, {0, 1e3}};
  return testing::slot_space(s, bounds);
}

engine::BatchRequest request(const std::vector<double>& params) {
  engine::BatchRequest r;
  r.n_trials = params.size() / ec::kNumSlots;
  r.n_axes = ec::kNumSlots;
  r.values = params;
  return r;
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

struct TradeRecord {
  std::int32_t set, signal_bar, entry_bar, exit_bar, reason, pad;
  double entry_price, exit_price, ret;
};
static_assert(sizeof(TradeRecord) == 48);

void write_trades(const strategies::EmaCrossStrategy& s, const std::vector<double>& params, const std::string& prefix) {
  const std::size_t n = params.size() / ec::kNumSlots;
  std::vector<std::vector<ec::Trade>> trades(n);
  std::vector<double> metrics(n * (1 + ec::kNumMetrics));
  std::vector<std::thread> pool;
  const unsigned threads = usable_hardware_threads();
  for (unsigned w = 0; w < threads; ++w)
    pool.emplace_back([&, w] {
      for (std::size_t i = w; i < n; i += threads) {
        const double* p = &params[i * ec::kNumSlots];
        double* m = &metrics[i * (1 + ec::kNumMetrics)];
        m[0] = s.evaluate(p, m + 1).score;
        trades[i] = s.trades(p);
      }
    });
  for (auto& t : pool) t.join();
  std::ofstream out(prefix + ".trades", std::ios::binary | std::ios::trunc);
  std::size_t total = 0;
  for (std::size_t i = 0; i < n; ++i)
    for (const auto& t : trades[i]) {
      const TradeRecord r{static_cast<std::int32_t>(i),
                          t.signal_bar,
                          t.entry_bar,
                          t.exit_bar,
                          t.reason,
                          0,
                          t.entry_price,
                          t.exit_price,
                          t.ret};
      out.write(reinterpret_cast<const char*>(&r), sizeof r);
      ++total;
    }
  std::ofstream mout(prefix + ".metrics", std::ios::binary | std::ios::trunc);
  mout.write(reinterpret_cast<const char*>(metrics.data()),
             static_cast<std::streamsize>(metrics.size() * sizeof(double)));
  if (!out.flush() || !mout.flush()) throw std::runtime_error("write error on " + prefix + ".trades/.metrics");
  std::printf("trades: %zu of %zu sets written to %s.trades (metrics: %s.metrics)\n", total, n, prefix.c_str(),
              prefix.c_str());
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "unknown CPU";
}

struct Workload {
  std::string name;
  Candles candles;
  std::vector<double> params;
};

struct Row {
  std::string workload, executor;
  std::size_t bars, sets;
  double cold_ms, warm_ms, setup_ms, mean_trades;
};

double mean_trades(const engine::BatchResult& r) {
  double t = 0;
  for (std::size_t i = 0; i < r.n_trials; ++i) t += r.metrics[i * r.n_metrics + ec::kMTrades];
  return r.n_trials ? t / static_cast<double>(r.n_trials) : 0.0;
}

Row time_cpu(const Workload& w, unsigned threads, int repeats, engine::BatchResult* first_result) {
  Row row{w.name,
          fmt::format("cpu ({} threads)", threads == 0 ? usable_hardware_threads() : threads),
          w.candles.size(),
          w.params.size() / ec::kNumSlots,
          1e300,
          1e300,
          0.0,
          0.0};
  const auto r = request(w.params);
  for (int k = 0; k < repeats; ++k) {
    const strategies::EmaCrossStrategy s(w.candles, {});  // fresh: empty EMA cache
    engine::CpuExecutor cpu(s, engine::ParamBinding(s, slot_space(s), {}), threads);
    const auto t0 = Clock::now();
    auto res = cpu.evaluate(r);
    row.cold_ms = std::min(row.cold_ms, ms_since(t0));
    if (k == 0) {
      row.mean_trades = mean_trades(res);
      if (first_result) *first_result = std::move(res);
    }
    if (k == repeats - 1)
      for (int q = 0; q < repeats; ++q) {
        const auto t1 = Clock::now();
        cpu.evaluate(r);
        row.warm_ms = std::min(row.warm_ms, ms_since(t1));
      }
  }
  return row;
}

/// Scores, violations and metrics of every set bit for bit; the number of differing sets (the
/// CUDA comparison's; unused in a build without CUDA).
[[maybe_unused]] std::size_t count_differing(const engine::BatchResult& a, const engine::BatchResult& b) {
  std::size_t d = 0;
  for (std::size_t i = 0; i < a.n_trials; ++i) {
    bool same = same_bits(a.scores[i], b.scores[i]) && same_bits(a.violations[i], b.violations[i]);
    for (std::size_t m = 0; same && m < a.n_metrics; ++m)
      same = same_bits(a.metrics[i * a.n_metrics + m], b.metrics[i * b.n_metrics + m]);
    if (!same && d++ == 0)
      std::printf("  first differing set %zu: cpu score %.17g trades %g, gpu score %.17g trades %g\n", i, a.scores[i],
                  a.metrics[i * a.n_metrics], b.scores[i], b.metrics[i * b.n_metrics]);
  }
  return d;
}

#ifdef TPEOPT_WITH_CUDA
Row time_cuda(const Workload& w, int repeats, engine::BatchResult* first_result) {
  Row row{w.name, "cuda", w.candles.size(), w.params.size() / ec::kNumSlots, 1e300, 1e300, 1e300, 0.0};
  const strategies::EmaCrossStrategy s(w.candles, {});
  const auto r = request(w.params);
  for (int k = 0; k < repeats; ++k) {
    gpu::CudaExecutorOptions o;
    o.max_in_flight = 1;
    const auto t_setup = Clock::now();
    auto exe = gpu::make_cuda_executor(s, engine::ParamBinding(s, slot_space(s), {}), o);
    row.setup_ms = std::min(row.setup_ms, ms_since(t_setup));
    auto res = exe->evaluate(r);
    row.cold_ms = std::min(row.cold_ms, res.timings.busy_ms);
    if (k == 0) {
      row.mean_trades = mean_trades(res);
      if (first_result) *first_result = std::move(res);
    }
    if (k == repeats - 1)
      for (int q = 0; q < repeats; ++q) row.warm_ms = std::min(row.warm_ms, exe->evaluate(r).timings.busy_ms);
  }
  return row;
}

/// Times the device twin directly (events around launch(): host planning, EMA series,
/// trial kernel) with `o`: the first batch on a fresh device, then the best of `repeats`.
void time_device(const Workload& w, const gpu::EmaCrossDeviceOptions& o, const char* label, int repeats) {
  const strategies::EmaCrossStrategy s(w.candles, {});
  const std::size_t n = w.params.size() / ec::kNumSlots, nm = ec::kNumMetrics;
  cudaStream_t stream{};
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  {
    auto dev = gpu::make_ema_cross_device(s, stream, o);
    gpu::PinnedBuffer<double> h_params;
    h_params.resize(n * ec::kNumSlots);
    std::copy_n(w.params.data(), n * ec::kNumSlots, h_params.data());
    gpu::DeviceBuffer<double> d_params(n * ec::kNumSlots), d_scores(n), d_viol(n), d_metrics(n * nm);
    CUDA_CHECK(cudaMemcpyAsync(d_params.data(), h_params.data(), n * ec::kNumSlots * sizeof(double),
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
    for (int k = 0; k < repeats; ++k) best = std::min(best, once());
    std::printf("| %s | %s | %zu | %.2f | %.2f |\n", w.name.c_str(), label, n, first, best);
    cudaEventDestroy(a);
    cudaEventDestroy(b);
  }
  cudaStreamDestroy(stream);
}

/// Trade lists of `sample` sets (spread over the workload) from the GPU against the CPU
/// reference, every field bit for bit. Returns the number of differing sets.
std::size_t check_gpu_trades(const Workload& w, std::size_t sample, std::size_t* n_trades) {
  const strategies::EmaCrossStrategy s(w.candles, {});
  const std::size_t n = w.params.size() / ec::kNumSlots;
  std::vector<double> picked;
  std::vector<std::size_t> which;
  for (std::size_t k = 0; k < std::min(sample, n); ++k) {
    const std::size_t i = k * n / std::min(sample, n);
    which.push_back(i);
    picked.insert(picked.end(), w.params.begin() + static_cast<std::ptrdiff_t>(i * ec::kNumSlots),
                  w.params.begin() + static_cast<std::ptrdiff_t>((i + 1) * ec::kNumSlots));
  }
  const auto g = gpu::gpu_ema_cross_trades(s, picked.data(), which.size());
  std::size_t d = 0;
  *n_trades = 0;
  for (std::size_t k = 0; k < which.size(); ++k) {
    const auto c = s.trades(&picked[k * ec::kNumSlots]);
    bool same = c.size() == g[k].trades.size();
    for (std::size_t t = 0; same && t < c.size(); ++t) {
      const auto &a = c[t], &b = g[k].trades[t];
      same = a.signal_bar == b.signal_bar && a.entry_bar == b.entry_bar && a.exit_bar == b.exit_bar &&
             a.reason == b.reason && same_bits(a.entry_price, b.entry_price) && same_bits(a.exit_price, b.exit_price) &&
             same_bits(a.ret, b.ret);
    }
    *n_trades += c.size();
    if (!same && d++ == 0)
      std::printf("  first differing trade list: set %zu (cpu %zu trades, gpu %zu)\n", which[k], c.size(),
                  g[k].trades.size());
  }
  return d;
}
#endif

void print_rows(const std::vector<Row>& rows, int repeats) {
  std::printf(
      "\n| workload | executor | bars | sets | ms (cold, best of %d) | ms (warm, best of %d) | "
      "bar-sets/s (cold) | mean trades per set | setup ms (data upload) |\n",
      repeats, repeats);
  std::printf("| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
  for (const Row& r : rows)
    std::printf("| %s | %s | %zu | %zu | %.1f | %.1f | %.3g | %.1f | %s |\n", r.workload.c_str(), r.executor.c_str(),
                r.bars, r.sets, r.cold_ms, r.warm_ms,
                static_cast<double>(r.bars) * static_cast<double>(r.sets) / (r.cold_ms / 1e3), r.mean_trades,
                r.executor == "cuda" ? fmt::format("{:.1f}", r.setup_ms).c_str() : "-");
}

int run(int argc, char** argv) {
  std::string data, params_csv, trades_out, write_data;
  std::size_t bars = 200000, sets = 10000, long_bars = 10000000;
  std::uint64_t seed = 1;
  int repeats = 3;
  unsigned threads = 0;
  bool cpu = true, use_gpu = true;
  for (int a = 1; a < argc; ++a) {
    const std::string k = argv[a];
    auto value = [&]() -> std::string {
      if (a + 1 >= argc) throw std::runtime_error(k + ": missing value");
      return argv[++a];
    };
    if (k == "--bars") bars = std::stoull(value());
    else if (k == "--sets") sets = std::stoull(value());
    else if (k == "--long-bars") long_bars = std::stoull(value());
    else if (k == "--repeats") repeats = std::max(1, std::stoi(value()));
    else if (k == "--threads") threads = static_cast<unsigned>(std::stoul(value()));
    else if (k == "--seed") seed = std::stoull(value());
    else if (k == "--params") params_csv = value();
    else if (k == "--trades-out") trades_out = value();
    else if (k == "--write-data") write_data = value();
    else if (k == "--no-cpu") cpu = false;
    else if (k == "--no-gpu") use_gpu = false;
    else if (k == "-h" || k == "--help") {
      std::printf(
          "usage: bench_ema_cross [DATA.csv] [--bars N] [--sets N] [--long-bars N] [--repeats R] "
          "[--threads T] [--params P.csv] [--trades-out PREFIX] [--write-data OUT.csv] [--no-cpu] "
          "[--no-gpu]\n(see the comment at the top of bench/peers/bench_ema_cross.cpp)\n");
      return 0;
    } else if (!k.empty() && k[0] != '-' && data.empty()) data = k;
    else throw std::runtime_error("unknown argument " + k);
  }
  if (!write_data.empty()) {
    write_csv(generated_walk(bars, seed), write_data);
    std::printf("wrote %zu generated bars (seed %llu) to %s\n", bars, static_cast<unsigned long long>(seed),
                write_data.c_str());
    return 0;
  }
  Workload sweep{"sweep", data.empty() ? generated_walk(bars, seed) : io::read_candles_csv(data),
                 params_csv.empty() ? sweep_grid(sets) : read_params_csv(params_csv)};
  if (!trades_out.empty()) {
    const strategies::EmaCrossStrategy s(sweep.candles, {});
    write_trades(s, sweep.params, trades_out);
    return 0;
  }
  std::vector<Workload> workloads;
  workloads.push_back(std::move(sweep));
  if (long_bars > 0) {
    const double row[ec::kNumSlots] = {50, 200, 2, 4, 10, 5};
    workloads.push_back({"long", generated_walk(long_bars, 2), std::vector<double>(row, row + ec::kNumSlots)});
  }
  const bool gpu_here = use_gpu && gpu::cuda_available();
  std::printf("ema_cross peers benchmark (docs/benchmarks.md, \"Peers\")\nhost: %s, %u hardware threads\ndevice: %s\n",
              cpu_model().c_str(), std::thread::hardware_concurrency(), gpu::cuda_device_description().c_str());
  for (const auto& w : workloads)
    std::printf("%s: %s, %zu bars, %zu parameter sets%s\n", w.name.c_str(), w.candles.source.c_str(), w.candles.size(),
                w.params.size() / ec::kNumSlots,
                w.name == "sweep" && params_csv.empty() ? " (grid: ema_fast 2..200 step 2 x ema_slow 10..1000 step 10; "
                                                          "sl 2%, tp 4%, fee 10 bp, slippage 5 bp)"
                                                        : "");
  std::vector<Row> rows;
  int failures = 0;
  for (const auto& w : workloads) {
    engine::BatchResult cpu_result;  // the reference the CUDA executor is checked against
    if (cpu) {
      rows.push_back(time_cpu(w, threads, repeats, &cpu_result));
    } else if (gpu_here) {
      const strategies::EmaCrossStrategy s(w.candles, {});
      engine::CpuExecutor exe(s, engine::ParamBinding(s, slot_space(s), {}), threads);
      cpu_result = exe.evaluate(request(w.params));
    }
#ifdef TPEOPT_WITH_CUDA
    if (gpu_here) {
      // Check first (the CPU reference against the device), then time.
      const strategies::EmaCrossStrategy s(w.candles, {});
      gpu::CudaExecutorOptions o;
      o.max_in_flight = 1;
      auto exe = gpu::make_cuda_executor(s, engine::ParamBinding(s, slot_space(s), {}), o);
      const auto g = exe->evaluate(request(w.params));
      const std::size_t diff = count_differing(cpu_result, g);
      std::size_t n_trades = 0;
      const std::size_t tdiff = check_gpu_trades(w, 256, &n_trades);
      std::printf(
          "check %s: cpu == cuda scores/violations/metrics of %zu sets: %s; trade lists of %zu sets "
          "(%zu trades): %s\n",
          w.name.c_str(), g.n_trials, diff == 0 ? "identical" : fmt::format("{} differ", diff).c_str(),
          std::min<std::size_t>(256, g.n_trials), n_trades,
          tdiff == 0 ? "identical" : fmt::format("{} differ", tdiff).c_str());
      if (diff != 0 || tdiff != 0) {
        ++failures;
        std::printf("  -> not timing cuda on %s: the executors disagree\n", w.name.c_str());
      } else {
        rows.push_back(time_cuda(w, repeats, nullptr));
      }
    }
#endif
  }
  if (!gpu_here) std::printf("cuda: not timed (%s)\n", use_gpu ? gpu::cuda_device_description().c_str() : "--no-gpu");
  print_rows(rows, repeats);
#ifdef TPEOPT_WITH_CUDA
  if (gpu_here && failures == 0) {
    // The kernels' variants (same results: the check above covers the default; the
    // [gpu] tests cover the others).
    std::printf(
        "\n| workload | device kernels (launch() between events) | sets | ms (first) | ms (warm, best of %d) |\n",
        repeats);
    std::printf("| --- | --- | --- | --- | --- |\n");
    for (const auto& w : workloads) {
      using EmaOn = gpu::EmaCrossDeviceOptions::EmaOn;
      for (const int steps : {4, 8, 16}) {
        gpu::EmaCrossDeviceOptions o;
        o.steps = steps;
        time_device(w, o, fmt::format("warp per set, {} x 32-bar steps per load round", steps).c_str(), repeats);
      }
      gpu::EmaCrossDeviceOptions dev_ema, host_ema;
      dev_ema.ema_on = EmaOn::Device;
      host_ema.ema_on = EmaOn::Host;
      time_device(w, dev_ema, "default steps, EMAs on the device", repeats);
      time_device(w, host_ema, "default steps, EMAs on the host", repeats);
    }
  }
#endif
  return failures == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_ema_cross: %s\n", e.what());
    return 2;
  }
}
