// Benchmark: a run's own exhaustion trials replayed on the GPU, batch by batch, without the
// sampler: where a run's GPU time per batch goes (docs/benchmarks.md, "`tpeopt run`,
// TPE, 1,000,000-bar series: where the GPU time goes"). It reads the candle file and the trials.csv of a finished `tpeopt run` and, for
// each batch of the run (the `batch` column), times
//  - the twin's launch() alone between device events (host planning, the series the batch
//    brings, the trial kernels), first as in the run's order (its new series computed), then
//    warm (best of --repeats, every series cached): the kernels' own time for these trials;
//  - the mean and the largest trade count of its trials (the heaviest walk sets a small
//    batch's time);
// then the whole sequence of batches through the CUDA executor with 1 and 2 batches in
// flight, as the run submitted them (host wall time per batch), and the same number of copies
// of the run's first batch (drawn from the prior, before the sampler learned anything).
// Comparing the warm launch time with the run's exec_ms (timings.csv) separates the kernels
// from what the run adds (new series, waits between streams); comparing with the first
// batch separates the cost of the parameters the sampler learned to propose. --regroup N
// also sends the same trials, in the same order, in batches of N (e.g. 65,536): the GPU
// time per trial of the same work at another batch size. --segments G[,G...] times every
// batch's warm launch with each walk cut into G segments (ExhaustionDeviceOptions::segments;
// 0 = the automatic choice), at the run's batch size and at --regroup's: same bits, other speeds.
//
// Usage: bench_exhaustion_replay --candles FILE --trials RUN/trials.csv
//          [--fixed name=value,...] [--batches 0,1,8,32] [--repeats 3] [--regroup N]
//          [--segments 0,4,8,16,32]
// Slots missing from trials.csv (parameters the config fixed) take --fixed values, else
// the strategy's defaults.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "engine/batch_timings.hpp"
#include "engine/param_binding.hpp"
#include "gpu/cuda_executor.hpp"
#include "io/candles_csv.hpp"
#include "strategies/exhaustion/exhaustion_strategy.hpp"
#include "tests/support/exhaustion_params.hpp"
#include "tests/support/slot_space.hpp"

#ifdef TPEOPT_WITH_CUDA
#include <cuda_runtime_api.h>

#include "strategies/device/cuda_check.cuh"
#include "strategies/device/device_buffers.hpp"
#include "strategies/exhaustion/exhaustion_device.hpp"
#endif

using namespace tpeopt;
namespace ex = strategies::exhaustion;

namespace {

std::vector<std::string> split(const std::string& line, char sep) {
  std::vector<std::string> out;
  std::stringstream in(line);
  for (std::string f; std::getline(in, f, sep);) out.push_back(f);
  return out;
}

/// The run's trials, one row of ex::kNumSlots slots each, grouped by batch in trial order.
std::map<long, std::vector<double>> read_batches(const std::string& path, const strategies::Strategy& s,
                                                 const std::map<std::string, double>& fixed) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::string line;
  std::vector<std::string> header;
  while (std::getline(in, line))
    if (!line.empty() && line[0] != '#') {
      header = split(line, ',');
      break;
    }
  const auto& names = s.param_names();
  const auto defaults = s.param_defaults();
  std::vector<int> column(names.size(), -1);
  int batch_column = -1;
  for (std::size_t c = 0; c < header.size(); ++c) {
    if (header[c] == "batch") batch_column = static_cast<int>(c);
    for (std::size_t k = 0; k < names.size(); ++k)
      if (header[c] == names[k]) column[k] = static_cast<int>(c);
  }
  if (batch_column < 0) throw std::runtime_error(path + ": no batch column");
  std::vector<double> fallback(names.size());
  for (std::size_t k = 0; k < names.size(); ++k) {
    const auto f = fixed.find(names[k]);
    fallback[k] = f != fixed.end() ? f->second : defaults[k];
    if (column[k] < 0 && std::isnan(fallback[k]))
      throw std::runtime_error(path + ": no column " + names[k] + " and no --fixed value for it");
  }
  std::map<long, std::vector<double>> batches;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const auto f = split(line, ',');
    auto& rows = batches[std::stol(f[static_cast<std::size_t>(batch_column)])];
    for (std::size_t k = 0; k < names.size(); ++k)
      rows.push_back(column[k] >= 0 ? std::stod(f[static_cast<std::size_t>(column[k])]) : fallback[k]);
  }
  return batches;
}

/// The same trials, in the same order, in batches of `size`.
std::vector<std::vector<double>> regroup_batches(const std::vector<std::vector<double>>& batches, std::size_t size) {
  std::vector<double> all;
  for (const auto& b : batches) all.insert(all.end(), b.begin(), b.end());
  std::vector<std::vector<double>> out;
  const std::size_t per = size * ex::kNumSlots;
  for (std::size_t off = 0; off < all.size(); off += per)
    out.emplace_back(all.begin() + static_cast<std::ptrdiff_t>(off),
                     all.begin() + static_cast<std::ptrdiff_t>(std::min(all.size(), off + per)));
  return out;
}

engine::BatchRequest request(const std::vector<double>& rows, std::uint64_t index) {
  engine::BatchRequest r;
  r.batch_index = index;
  r.n_axes = ex::kNumSlots;
  r.n_trials = rows.size() / ex::kNumSlots;
  r.values = rows;
  return r;
}

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

/// Host wall time per batch of `batches` through the CUDA executor with `depth` in flight,
/// after one warm-up pass over the first batch; and the device occupancy.
void time_sequence(const strategies::ExhaustionStrategy& s, const tpe::SearchSpace& space,
                   const std::vector<std::vector<double>>& batches, std::size_t depth, const char* label) {
  gpu::CudaExecutorOptions o;
  o.max_in_flight = depth;
  auto exe = gpu::make_cuda_executor(s, engine::ParamBinding(s, space, {}), o);
  double busy = 0, sm_busy = 0, sm_span = 0;
  std::size_t submitted = 0, done = 0, trials = 0;
  const auto t0 = std::chrono::steady_clock::now();
  while (done < batches.size()) {
    while (submitted < batches.size() && submitted - done < depth) {
      trials += batches[submitted].size() / ex::kNumSlots;
      exe->submit(request(batches[submitted], submitted));
      ++submitted;
    }
    const auto r = exe->complete();
    busy += r.timings.busy_ms;
    sm_busy += r.timings.sm_union_busy_ms;  // any batch's blocks, once per SM
    sm_span += r.timings.sm_new_span_ms;  // the union of the spans: overlapping batches count once
    ++done;
  }
  const double wall = ms_since(t0);
  std::printf("| %s | %zu | %zu | %.1f | %.2f | %.2f | %.0f | %.3f |\n", label, depth, batches.size(), wall,
              wall / static_cast<double>(batches.size()), busy / static_cast<double>(batches.size()),
              static_cast<double>(trials) / (wall / 1e3), engine::occupancy_fraction(sm_busy, sm_span));
  std::fflush(stdout);
}

#ifdef TPEOPT_WITH_CUDA
struct LaunchTimes {
  double first = 0, warm = 0;            ///< device events around launch()
  double host_first = 0, host_warm = 0;  ///< the launch() call on the host (planning, host series, uploads)
  double mean_trades = 0, max_trades = 0;
};

/// launch() of one batch between events on a twin that has seen the batches before it
/// (`dev`): first (its new series computed), then the best of `repeats` warm launches.
LaunchTimes time_launch(gpu::DeviceStrategy& dev, const std::vector<double>& rows, int repeats) {
  const std::size_t n = rows.size() / ex::kNumSlots, nm = ex::kNumMetrics;
  cudaStream_t stream{};
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  LaunchTimes t;
  {
    gpu::PinnedBuffer<double> h_params, h_metrics;
    h_params.resize(rows.size());
    h_metrics.resize(n * nm);
    std::copy(rows.begin(), rows.end(), h_params.data());
    gpu::DeviceBuffer<double> d_params(rows.size()), d_scores(n), d_viol(n), d_metrics(n * nm);
    CUDA_CHECK(
        cudaMemcpyAsync(d_params.data(), h_params.data(), rows.size() * sizeof(double), cudaMemcpyHostToDevice, stream));
    gpu::DeviceBatch batch{d_params.data(), h_params.data(), d_scores.data(), d_viol.data(), d_metrics.data(), n};
    cudaEvent_t a{}, b{};
    CUDA_CHECK(cudaEventCreate(&a));
    CUDA_CHECK(cudaEventCreate(&b));
    double host_ms = 0;
    auto once = [&] {
      CUDA_CHECK(cudaEventRecord(a, stream));
      const auto h0 = std::chrono::steady_clock::now();
      dev.launch(batch, stream, 128);
      host_ms = ms_since(h0);
      CUDA_CHECK(cudaEventRecord(b, stream));
      CUDA_CHECK(cudaEventSynchronize(b));
      float ms = 0;
      CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
      return static_cast<double>(ms);
    };
    t.first = once();
    t.host_first = host_ms;
    t.warm = 1e300;
    for (int k = 0; k < std::max(1, repeats); ++k) {
      const double ms = once();
      if (ms < t.warm) t.warm = ms, t.host_warm = host_ms;
    }
    CUDA_CHECK(cudaMemcpy(h_metrics.data(), d_metrics.data(), n * nm * sizeof(double), cudaMemcpyDeviceToHost));
    for (std::size_t i = 0; i < n; ++i) {
      const double trades = h_metrics.data()[i * nm + ex::kMTrades];
      t.mean_trades += trades / static_cast<double>(n);
      t.max_trades = std::max(t.max_trades, trades);
    }
    cudaEventDestroy(a);
    cudaEventDestroy(b);
  }
  CUDA_CHECK(cudaStreamDestroy(stream));
  return t;
}
#endif

}  // namespace

int main(int argc, char** argv) {
  std::string candles_path, trials_path;
  std::map<std::string, double> fixed;
  std::vector<long> chosen;
  [[maybe_unused]] int repeats = 3;  // the launch table's, a build with CUDA
  std::size_t regroup = 0;
  std::vector<int> segment_counts;
  for (int a = 1; a + 1 < argc; a += 2) {
    const std::string k = argv[a], v = argv[a + 1];
    if (k == "--candles") candles_path = v;
    else if (k == "--trials") trials_path = v;
    else if (k == "--repeats") repeats = std::stoi(v);
    else if (k == "--regroup") regroup = std::stoull(v);
    else if (k == "--segments")
      for (const auto& g : split(v, ',')) segment_counts.push_back(std::stoi(g));
    else if (k == "--batches")
      for (const auto& b : split(v, ',')) chosen.push_back(std::stol(b));
    else if (k == "--fixed")
      for (const auto& kv : split(v, ',')) {
        const auto eq = kv.find('=');
        if (eq == std::string::npos) throw std::runtime_error("--fixed: expected name=value, got " + kv);
        fixed[kv.substr(0, eq)] = std::stod(kv.substr(eq + 1));
      }
    else throw std::runtime_error("unknown option " + k);
  }
  if (candles_path.empty() || trials_path.empty()) {
    std::fprintf(stderr, "usage: bench_exhaustion_replay --candles FILE --trials RUN/trials.csv [--fixed k=v,...]\n");
    return 2;
  }
  const strategies::ExhaustionStrategy s(io::read_candles_csv(candles_path), {});
  const auto space = testing::slot_space(s, testing::exhaustion_slot_bounds());
  const auto by_batch = read_batches(trials_path, s, fixed);
  std::vector<std::vector<double>> batches;
  for (const auto& [index, rows] : by_batch) batches.push_back(rows);
  const std::size_t n = batches.empty() ? 0 : batches.front().size() / ex::kNumSlots;
  std::printf("exhaustion replay: %d bars, %zu batches of %zu trials from %s, device: %s\n", s.n_bars(),
              batches.size(), n, trials_path.c_str(), gpu::cuda_device_description().c_str());
  if (!gpu::cuda_available()) return 1;
  // The first batch (prior draws) as many times as the run has batches, for comparison.
  const std::vector<std::vector<double>> prior(batches.size(), batches.front());
#ifdef TPEOPT_WITH_CUDA
  std::printf(
      "\n| batch | trials | launch ms (first, in run order) | of which launch() on the host | launch ms (warm, best of "
      "%d) | of which on the host | mean trades | max trades |\n| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: "
      "|\n",
      repeats);
  {
    cudaStream_t stream{};
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    auto dev = gpu::make_exhaustion_device(s, stream, {});
    CUDA_CHECK(cudaStreamSynchronize(stream));
    double sum_first = 0, sum_warm = 0, sum_host_first = 0;
    std::size_t b = 0;
    for (const auto& [index, rows] : by_batch) {
      const LaunchTimes t = time_launch(*dev, rows, repeats);
      sum_first += t.first;
      sum_warm += t.warm;
      sum_host_first += t.host_first;
      if (chosen.empty() || std::find(chosen.begin(), chosen.end(), index) != chosen.end())
        std::printf("| %ld | %zu | %.2f | %.2f | %.2f | %.2f | %.1f | %.0f |\n", index, rows.size() / ex::kNumSlots,
                    t.first, t.host_first, t.warm, t.host_warm, t.mean_trades, t.max_trades);
      std::fflush(stdout);
      ++b;
    }
    const double nb = static_cast<double>(b);
    std::printf("| mean of %zu | | %.2f | %.2f | %.2f | | | |\n", b, sum_first / nb, sum_host_first / nb, sum_warm / nb);
    dev.reset();
    CUDA_CHECK(cudaStreamDestroy(stream));
  }
  if (!segment_counts.empty()) {
    std::printf("\n| segments per walk | trials per launch | launches | mean warm launch ms | trials/s (launches back to back) |\n"
                "| ---: | ---: | ---: | ---: | ---: |\n");
    std::vector<std::vector<std::vector<double>>> sizes{batches};
    if (regroup > 0) sizes.push_back(regroup_batches(batches, regroup));
    for (const auto& set : sizes)
      for (const int g : segment_counts) {
        gpu::ExhaustionDeviceOptions o;
        o.segments = g;
        cudaStream_t stream{};
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
        auto dev = gpu::make_exhaustion_device(s, stream, o);
        CUDA_CHECK(cudaStreamSynchronize(stream));
        double sum = 0;
        std::size_t trials = 0;
        for (const auto& rows : set) {
          sum += time_launch(*dev, rows, 1).warm;
          trials += rows.size() / ex::kNumSlots;
        }
        std::printf("| %s | %zu | %zu | %.2f | %.0f |\n", g == 0 ? "auto" : std::to_string(g).c_str(),
                    set.front().size() / ex::kNumSlots, set.size(), sum / static_cast<double>(set.size()),
                    static_cast<double>(trials) / (sum / 1e3));
        std::fflush(stdout);
        dev.reset();
        CUDA_CHECK(cudaStreamDestroy(stream));
      }
  }
#endif
  std::printf(
      "\n| trials | batches in flight | batches | wall ms | wall ms per batch | busy ms per batch (events) | trials/s "
      "| device occupancy |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
  for (const std::size_t depth : {std::size_t{1}, std::size_t{2}}) time_sequence(s, space, batches, depth, "the run's");
  for (const std::size_t depth : {std::size_t{1}, std::size_t{2}})
    time_sequence(s, space, prior, depth, "the first batch, repeated");
  if (regroup > 0) {
    const auto big = regroup_batches(batches, regroup);
    const std::string label = "the run's, in batches of " + std::to_string(regroup);
    for (const std::size_t depth : {std::size_t{1}, std::size_t{2}}) time_sequence(s, space, big, depth, label.c_str());
  }
  return 0;
}
