// Benchmark of the trade_filter strategy (docs/strategies.md, "trade_filter"): effective combination-trade checks
// per second (combinations x trades / wall time) of
//   1. the CPU reference (linear walk, TradeFilterStrategy::evaluate), 1 thread and all;
//   2. the reference 11,340-combination grid (examples/trade_filter_grid.json) end to end on the CPU (cell method);
//   3. the same grid end to end on the GPU (goal < 5 ms; CPU goal < 50 ms);
//   4. TPE-like batches of 4096 continuous trials on the GPU (goal >= 2e11 checks/s);
//   5. a 1e9-combination grid on the GPU (goal >= 5e11 checks/s).
// --folds K prints only the cost of scoring K equal folds of the days in the same walk
// (Strategy::with_folds, docs/strategies.md, "Folds"; the goal: at most 1.25x the plain walk on
// the GPU at batches of 4,096 and 65,536).
// Data: generated (tpeopt data generate) with 100,000 trades by default.
//
// Expected ceilings (H100 SXM: 132 SMs, ~3.3 TB/s HBM, ~50 MB L2), counted before measuring:
//  - TPE batch kernel: a check is a 5-float keep test (broadcast L1 loads: every thread of
//    a warp reads the same trade) plus, when kept, two bisections over the trade's record
//    highs/lows (~25-40 records for 400-second windows: ~6 probes each, L1/L2 hits; all
//    records of 100,000 trades are ~25 MB and stay in L2). About 60-100 instructions per
//    kept check; at ~3e13 thread-instructions/s that is 3e11-5e11 checks/s, more when
//    filters drop trades early. Memory traffic is negligible (records reused by 4096 trials).
//  - Seed grid with the cell method: trades x pairs = 1.2e6 bisections (+ 1e5 cell
//    computations), 12 tables x 3,072 cells suffix sums, 11,340 lookups and one radix
//    sort: ~1e7 simple operations, so it is launch-latency bound (~15 launches, ~0.2 ms);
//    effective rate ~1.13e9 checks / 0.2 ms ~ 5e12/s.
//  - 1e9 grid (filters 50 x 40 x 10 x 10 x 10, target 25 x stop 20): 2.8e6 cells x 501
//    tables x 8 B = 11 GB of tables built once (5 suffix passes ~ 110 GB of traffic ~ 35 ms);
//    scoring writes 16 B per combination and the radix sort moves ~16 B x 2 x 8 passes, so
//    ~270 B x 1e9 = 270 GB ~ 0.1 s at 3 TB/s: ~1e14 / 0.15 s ~ 7e14 effective checks/s.
//  - CPU reference: one path step is a load and two compares; ~1e8-1e9 trade checks per
//    second per core depending on how far the walk goes before an exit.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "common/worker_pool.hpp"
#include "config/study_config.hpp"
#include "engine/cpu_executor.hpp"
#include "engine/param_binding.hpp"
#include "strategies/trade_filter/trade_filter_cache.hpp"
#include "strategies/trade_filter/trade_filter_exact_grid.hpp"
#include "strategies/trade_filter/trade_filter_generator.hpp"
#include "strategies/trade_filter/trade_filter_grid.hpp"
#include "strategies/trade_filter/trade_filter_prepare.hpp"
#include "strategies/trade_filter/trade_filter_strategy.hpp"
#include "study/slot_grid_config.hpp"
#include "study/study.hpp"
#include "tpe/random_sampler.hpp"
#ifdef TPEOPT_WITH_CUDA
#include "gpu/cuda_executor.hpp"
#include "strategies/trade_filter/trade_filter_grid_device.hpp"
#endif

using namespace tpeopt;
namespace tf = strategies::trade_filter;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

template <typename F>
double median_ms(int reps, F&& f) {
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    const auto t0 = Clock::now();
    f();
    t.push_back(ms_since(t0));
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

void row(const std::string& workload, const std::string& where, double combos, double trades, double ms,
         const std::string& goal) {
  const double rate = combos * trades / (ms / 1000.0);
  std::printf("| %-44s | %-5s | %14.0f | %8.0f | %10.3f | %10.3g | %-12s |\n", workload.c_str(), where.c_str(), combos,
              trades, ms, rate, goal.c_str());
  std::fflush(stdout);
}

// A study config over the cache; "grid" for value lists, "random" for continuous ranges.
io::StudyConfig config_for(const fs::path& cache, const std::string& params, const std::string& sampler) {
  const std::string text = fmt::format(
      R"({{"strategy": "trade_filter", "data": {{"cache": "{}"}}, "objective": {{"min_trades": 1}},
          "search": {{"sampler": "{}"}}, "params": {}}})",
      fs::absolute(cache).string(), sampler, params);
  return io::parse_study_config(io::Json::parse(text), "bench", ".");
}

const char* kSeedGrid =
    R"({"min_volatility": [0.0, 0.3, 0.4, 0.5, 0.6], "min_ratio": [0.0, 0.2, 0.5, 0.7, 0.8, 0.9, 1.0],
  "min_adx28": [0, 20, 30], "min_adx14": [0, 20, 30], "min_adx7": [0, 20, 30],
  "target_pct": [0.2, 0.3, 0.4, 0.5], "stop_pct": [-0.5, -0.4, -0.3]})";

const char* kContinuous = R"({"min_volatility": {"type": "float", "low": 0, "high": 0.8},
  "min_ratio": {"type": "float", "low": 0, "high": 1.1}, "min_adx28": {"type": "float", "low": 0, "high": 35},
  "min_adx14": {"type": "float", "low": 0, "high": 35}, "min_adx7": {"type": "float", "low": 0, "high": 35},
  "target_pct": {"type": "float", "low": 0.1, "high": 2.0}, "stop_pct": {"type": "float", "low": -2.0, "high": -0.1}})";

[[maybe_unused]] std::string list(int n, double low, double step) {
  std::string s = "[";
  for (int i = 0; i < n; ++i) s += fmt::format("{}{:.6g}", i ? ", " : "", low + step * i);
  return s + "]";
}

/// A batch of n random trials of `config`'s space.
engine::BatchRequest random_request(const io::StudyConfig& config, std::size_t n) {
  tpe::RandomSampler sampler(config.space, 3);
  engine::BatchRequest r;
  r.n_trials = n;
  r.n_axes = config.space.size();
  r.values.resize(r.n_trials * r.n_axes);
  sampler.ask(0, r.n_trials, r.values.data());
  return r;
}

/// The plain walk and the walk with K equal folds of the days (rule mean): the best busy time
/// of 5 warm batches of each, alternated; whether the folded run's whole-span metrics have the
/// plain run's bits, and (CUDA) whether all its metrics, fold columns included, and scores have
/// the CPU reference's bits.
void time_folds(const strategies::TradeFilterStrategy& s, const fs::path& cache, std::size_t K,
                std::size_t cpu_trials) {
  constexpr int kRepeats = 5;
  strategies::FoldSpec f;
  for (std::size_t k = 0; k <= K; ++k) f.edges.push_back(s.n_atoms() * k / K);
  const auto folded = s.with_folds(f, {strategies::AcrossFolds::Rule::Mean});
  const auto config = config_for(cache, kContinuous, "random");
  std::printf(
      "| executor | trials | plain ms (warm, best of %d) | %zu folds ms | ratio | whole-span metrics equal | "
      "equal to the CPU |\n",
      kRepeats, K);
  std::printf("| --- | --- | --- | --- | --- | --- | --- |\n");
  engine::CpuExecutor cpu_fold(*folded, engine::ParamBinding(*folded, config.space, config.fixed), 0);
  auto compare = [&](engine::Executor& plain, engine::Executor& fold, std::size_t n, const char* label,
                     bool against_cpu) {
    const auto r = random_request(config, n);
    const auto a = plain.evaluate(r), b = fold.evaluate(r);
    bool equal = true;
    for (std::size_t i = 0; i < n; ++i)
      equal = equal && std::memcmp(&a.metrics[i * a.n_metrics], &b.metrics[i * b.n_metrics], 3 * sizeof(double)) == 0;
    std::string reference = "-";
    if (against_cpu) {  // the CUDA run against the CPU reference, bit for bit
      const auto c = cpu_fold.evaluate(r);
      const bool same = c.metrics.size() == b.metrics.size() &&
                        std::memcmp(c.metrics.data(), b.metrics.data(), c.metrics.size() * sizeof(double)) == 0 &&
                        std::memcmp(c.scores.data(), b.scores.data(), n * sizeof(double)) == 0;
      reference = same ? "yes" : "NO";
    }
    double best_plain = 1e300, best_fold = 1e300;
    for (int k = 0; k < kRepeats; ++k) {
      best_plain = std::min(best_plain, plain.evaluate(r).timings.busy_ms);
      best_fold = std::min(best_fold, fold.evaluate(r).timings.busy_ms);
    }
    std::printf("| %s | %zu | %.2f | %.2f | %.3f | %s | %s |\n", label, n, best_plain, best_fold,
                best_fold / best_plain, equal ? "yes" : "NO", reference.c_str());
    std::fflush(stdout);
  };
#ifdef TPEOPT_WITH_CUDA
  if (gpu::cuda_available()) {
    std::fprintf(stderr, "device: %s\n", gpu::cuda_device_description().c_str());
    for (std::size_t n : {std::size_t{4096}, std::size_t{65536}}) {
      gpu::CudaExecutorOptions o;
      o.max_in_flight = 1;
      auto plain = gpu::make_cuda_executor(s, engine::ParamBinding(s, config.space, config.fixed), o);
      auto fold = gpu::make_cuda_executor(*folded, engine::ParamBinding(*folded, config.space, config.fixed), o);
      compare(*plain, *fold, n, "cuda", true);
    }
  }
#endif
  engine::CpuExecutor plain(s, engine::ParamBinding(s, config.space, config.fixed), 0);
  compare(plain, cpu_fold, cpu_trials, "cpu (all cores, one batch)", false);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"trade_filter benchmark: combination-trade checks per second (markdown table on stdout)"};
  std::string dir = "bench_data/trade_filter";
  int days = 20;
  std::uint64_t trades = 100000;
  int ref_trials = 64;
  bool gpu_only = false;
  std::size_t folds = 0;
  app.add_option("--data", dir, "Folder for the generated data and its cache (reused when present)");
  app.add_option("--days", days, "Trading days to generate");
  app.add_option("--trades", trades, "Trades to generate");
  app.add_option("--ref-trials", ref_trials, "Trials for the CPU reference measurement");
  app.add_flag("--gpu-only", gpu_only, "Skip the CPU measurements");
  app.add_option("--folds", folds, "Only the cost of scoring K equal folds of the days (2 .. 64)")
      ->check(CLI::Range(2, 64));
  CLI11_PARSE(app, argc, argv);

  const fs::path cache = fs::path(dir) / "data.tfc";
  if (!fs::exists(cache)) {
    std::fprintf(stderr, "generating %d days, %llu trades into %s\n", days, static_cast<unsigned long long>(trades),
                 dir.c_str());
    io::TradeFilterGeneratorOptions o;
    o.out = dir;
    o.days = days;
    o.trades = trades;
    const auto g = io::generate_trade_filter_data(o);
    io::write_trade_filter_cache(io::prepare_trade_filter_data({g.market_dir, g.trades, o.tickers}), cache);
  }
  const auto t_load = Clock::now();
  auto data = std::make_shared<const strategies::TradeFilterData>(io::read_trade_filter_cache(cache));
  const double load_ms = ms_since(t_load);
  strategies::TradeFilterStrategy s(data, 1);
  const double n = static_cast<double>(data->n_trades());
  std::printf("data: %zu trades, %zu path points, %zu records; cache loaded in %.1f ms\n\n", data->n_trades(),
              data->path.size(), data->up_value.size() + data->down_value.size(), load_ms);
  if (folds > 0) {
    time_folds(s, cache, folds, static_cast<std::size_t>(ref_trials));
    return 0;
  }
  std::printf("| workload | where | combinations | trades | ms | checks/s | goal |\n|---|---|---|---|---|---|---|\n");

  const auto seed_config = config_for(cache, kSeedGrid, "grid");
  const auto seed_grid = strategies::trade_filter_grid_of(engine::make_slot_grid(seed_config, s));
  tf::GridSearchSettings st;

  if (!gpu_only) {
    std::vector<double> slots(7);
    std::mt19937_64 rng(1);
    const double one = median_ms(3, [&] {
      double m[3];
      for (int i = 0; i < ref_trials; ++i) {
        seed_grid.slots_of(rng() % seed_grid.size(), slots.data());
        s.evaluate(slots.data(), m);
      }
    });
    row("CPU reference (linear walk), 1 thread", "cpu", ref_trials, n, one, "");
    WorkerPool pool(0);
    const int many = ref_trials * static_cast<int>(pool.size());
    const double all = median_ms(3, [&] {
      pool.parallel_for(static_cast<std::size_t>(many), [&](std::size_t b, std::size_t e) {
        std::vector<double> sl(7);
        double m[3];
        for (std::size_t i = b; i < e; ++i) {
          seed_grid.slots_of((i * 7919) % seed_grid.size(), sl.data());
          s.evaluate(sl.data(), m);
        }
      });
    });
    row(fmt::format("CPU reference (linear walk), {} threads", pool.size()), "cpu", many, n, all, "");
    const double cells = median_ms(5, [&] { tf::grid_search_cpu(s, seed_grid, st); });
    row("seed grid 11,340, cell method, end to end", "cpu", static_cast<double>(seed_grid.size()), n, cells, "< 50 ms");
  }

#ifdef TPEOPT_WITH_CUDA
  if (!gpu::cuda_available()) {
    std::printf("\nno CUDA device: GPU workloads skipped\n");
    return 0;
  }
  std::fprintf(stderr, "device: %s\n", gpu::cuda_device_description().c_str());
  gpu::TradeFilterGridSearch search(s);
  st.memory_budget = 0;
  search.search(seed_grid, st);  // warm-up
  const double g_seed = median_ms(21, [&] { search.search(seed_grid, st); });
  row("seed grid 11,340, cell method, end to end", "gpu", static_cast<double>(seed_grid.size()), n, g_seed, "< 5 ms");

  {  // TPE-like batches through the CUDA executor (parameters staged, kernel, results back)
    const auto config = config_for(cache, kContinuous, "random");
    auto cuda = gpu::make_cuda_executor(s, engine::ParamBinding(s, config.space, config.fixed));
    const engine::BatchRequest r = random_request(config, 4096);
    cuda->evaluate(r);
    const double ms = median_ms(21, [&] { cuda->evaluate(r); });
    row("TPE batch of 4096 continuous trials", "gpu", 4096, n, ms, ">= 2e11/s");
  }
  {
    const std::string params = fmt::format(
        R"({{"min_volatility": {}, "min_ratio": {}, "min_adx28": {}, "min_adx14": {}, "min_adx7": {},
            "target_pct": {}, "stop_pct": {}}})",
        list(50, 0.0, 0.016), list(40, 0.0, 0.03), list(10, 0, 4), list(10, 0, 4), list(10, 0, 4), list(25, 0.1, 0.08),
        list(20, -2.0, 0.095));
    const auto config = config_for(cache, params, "grid");
    const auto grid = strategies::trade_filter_grid_of(engine::make_slot_grid(config, s));
    const auto t0 = Clock::now();
    const auto out = search.search(grid, st);
    row(fmt::format("grid of {:.0e} combinations ({})", static_cast<double>(grid.size()), out.method), "gpu",
        static_cast<double>(grid.size()), n, ms_since(t0), ">= 5e11/s");
  }
#else
  std::printf("\nbuilt without CUDA: GPU workloads skipped\n");
#endif
  return 0;
}
