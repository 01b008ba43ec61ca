// [gpu]: the ema_cross kernels reproduce the CPU reference exactly: the same trades (bars,
// reasons, fills, returns) and the same score and metric bits, for random populations of
// 1, 24, 512 and 4096 trials on every data set of the repository's data/, with the warp kernel
// (4, 8 and 16 steps per load round) and the one-thread-per-trial kernel, EMAs computed
// on the host and on the device,
// several block sizes and a series cache small enough to split a batch into parts; and
// the CUDA executor's batches equal the CPU executor's bits; launches on three streams at once,
// through a series cache small enough that they evict each other's series, with and without
// folds, equal the CPU. Run on the GPU machine.
#include <catch2/catch.hpp>

#include "support/trade_parity.hpp"

#include "support/paths.hpp"

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "config/study_config.hpp"
#include "engine/cpu_executor.hpp"
#include "engine/param_binding.hpp"
#include "gpu/cuda_executor.hpp"
#include "io/candles_csv.hpp"
#include "strategies/device/cuda_check.cuh"
#include "strategies/device/device_buffers.hpp"
#include "strategies/ema_cross/ema_cross_device.hpp"
#include "strategies/ema_cross/ema_cross_strategy.hpp"
#include "study/study.hpp"
#include "support/conformance.hpp"

using namespace tpeopt;
namespace ec = strategies::ema_cross;

namespace {

using tpeopt::testing::same_bits;

/// Random sets: spans 1..max_span in any order (a few equal), stops off in about a
/// quarter of the sets each, costs 0..20 bp; spans occasionally beyond the data (no trades).
std::vector<double> random_population(std::size_t n, int max_span, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto u = [&](double a, double b) { return std::uniform_real_distribution<double>(a, b)(rng); };
  auto k = [&](int a, int b) { return static_cast<double>(std::uniform_int_distribution<int>(a, b)(rng)); };
  std::vector<double> p;
  for (std::size_t i = 0; i < n; ++i) {
    double row[ec::kNumSlots] = {
        k(1, max_span), k(1, max_span), u(0, 1) < 0.25 ? 0.0 : u(0.1, 6), u(0, 1) < 0.25 ? 0.0 : u(0.1, 9),
        u(0, 20),       u(0, 10)};
    if (u(0, 1) < 0.02) row[1] = row[0];              // equal spans: never a cross
    if (u(0, 1) < 0.01) row[0] = 3.0 * max_span + 5;  // beyond short data
    p.insert(p.end(), row, row + ec::kNumSlots);
  }
  return p;
}

using CpuTrial = testing::CpuTrial<ec::Trade>;

std::vector<CpuTrial> cpu_reference(const strategies::EmaCrossStrategy& s, const std::vector<double>& params) {
  return testing::cpu_trials<ec::Trade>(s, params, ec::kNumSlots);
}

/// Trials whose GPU score, metrics or trade list differ from the CPU's in any bit.
std::size_t count_differing(const std::vector<CpuTrial>& cpu, const std::vector<gpu::GpuEmaCrossTrial>& gpu,
                            std::size_t* total_trades) {
  return testing::count_differing_trials(cpu, gpu, total_trades, [](const ec::Trade& a, const ec::Trade& b) {
    return a.signal_bar == b.signal_bar && a.entry_bar == b.entry_bar && a.exit_bar == b.exit_bar &&
           a.reason == b.reason && same_bits(a.entry_price, b.entry_price) && same_bits(a.exit_price, b.exit_price) &&
           same_bits(a.ret, b.ret);
  });
}

}  // namespace

TEST_CASE("ema_cross GPU trade lists equal the CPU reference exactly", "[gpu][ema_cross]") {
  REQUIRE(gpu::cuda_available());
  const std::string file = GENERATE(as<std::string>{}, "backtesting-py/GOOG.csv", "backtesting-py/EURUSD.csv",
                                    "backtesting-py/BTCUSD.csv", "binance-1m/BTCUSDT_1m_2023-03.csv",
                                    "binance-1m/BTCUSD_1m_2023-03.csv", "binance-1m/BTCUSDC_1m_2023-03.csv");
  const std::size_t n = GENERATE(1u, 24u, 512u, 4096u);
  const std::uint64_t seed = 91 + n;
  CAPTURE(file, n, seed);
  const strategies::EmaCrossStrategy s(io::read_candles_csv(tpeopt::testing::data_dir() + "/" + file), {});
  const int max_span = std::max(2, std::min(400, s.n_bars() / 2));
  const auto params = random_population(n, max_span, seed);
  const auto cpu = cpu_reference(s, params);
  using EmaOn = gpu::EmaCrossDeviceOptions::EmaOn;
  struct Launch {
    bool warp;
    int steps;
    EmaOn ema_on;
    int block;
    std::size_t max_series;
  };
  for (const Launch launch : {Launch{true, 8, EmaOn::Auto, 128, 0}, Launch{true, 4, EmaOn::Device, 256, 0},
                              Launch{true, 16, EmaOn::Host, 32, 0}, Launch{true, 8, EmaOn::Device, 64, 5},
                              Launch{false, 8, EmaOn::Auto, 128, 0}}) {
    CAPTURE(launch.warp, launch.steps, static_cast<int>(launch.ema_on), launch.block, launch.max_series);
    gpu::EmaCrossDeviceOptions o;
    o.warp_per_trial = launch.warp;
    o.steps = launch.steps;
    o.ema_on = launch.ema_on;
    o.max_series = launch.max_series;
    const auto g = gpu::gpu_ema_cross_trades(s, params.data(), n, o, launch.block);
    REQUIRE(g.size() == n);
    std::size_t total_trades = 0;
    CHECK(count_differing(cpu, g, &total_trades) == 0);
    if (n >= 24) CHECK(total_trades > 0);
  }
}

TEST_CASE("ema_cross GPU: the long generated walk (1,000,000 bars), stops on and off", "[gpu][ema_cross]") {
  // A seeded random walk long enough for many steps of every finder round.
  REQUIRE(gpu::cuda_available());
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int> step(-20, 20), wick(0, 7);
  Candles c;
  c.source = "walk";
  long long close = 1000000;
  for (int i = 0; i < 1000000; ++i) {
    const long long open = close;
    close = open + step(rng);
    const long long hi = std::max(open, close) + wick(rng), lo = std::min(open, close) - wick(rng);
    c.time_ms.push_back(i * 60000LL);
    c.open.push_back(open / 100.0);
    c.high.push_back(hi / 100.0);
    c.low.push_back(lo / 100.0);
    c.close.push_back(close / 100.0);
    c.volume.push_back(1.0);
  }
  const strategies::EmaCrossStrategy s(c, {});
  const std::vector<double> params = {50, 200,  2,   4, 10, 5, 50,  200, 0, 0,   10, 5,
                                      3,  1000, 0.5, 0, 0,  0, 700, 20,  0, 1.5, 3,  1};
  const auto cpu = cpu_reference(s, params);
  for (const int steps : {0, 4, 16}) {  // 0: one thread per set
    gpu::EmaCrossDeviceOptions o;
    o.warp_per_trial = steps > 0;
    o.steps = steps;
    const auto g = gpu::gpu_ema_cross_trades(s, params.data(), 4, o);
    std::size_t total_trades = 0;
    CHECK(count_differing(cpu, g, &total_trades) == 0);
    CHECK(total_trades > 1000);
  }
}

TEST_CASE("ema_cross CUDA executor scores equal the CPU executor's bits", "[gpu][ema_cross]") {
  REQUIRE(gpu::cuda_available());
  const std::string path = tpeopt::testing::source_dir() + "/examples/ema_cross_btc.json";
  io::Json json = io::parse_json_text(io::read_file_bytes(path), path);
  // The example's path is relative to examples/; the tests' copy of the tree may be
  // elsewhere (TPEOPT_SOURCE_DIR on the GPU machine), so the data is named from it.
  json["data"]["candles"] = tpeopt::testing::data_dir() + "/binance-1m/BTCUSDT_1m_2023-03.csv";
  const auto config = io::parse_study_config(json, path, tpeopt::testing::source_dir() + "/examples");
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
  engine::make_sampler(config)->ask(0, n, r.values.data());
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

TEST_CASE("ema_cross device: launches on three streams at once, evicting each other's series, equal the CPU",
          "[gpu][overlap][ema_cross]") {
  REQUIRE(gpu::cuda_available());
  const strategies::EmaCrossStrategy plain(io::read_candles_csv(tpeopt::testing::data_dir() +
                                                                "/binance-1m/BTCUSDT_1m_2023-03.csv"),
                                           {});
  const std::size_t K = GENERATE(0u, 8u);  // without folds, and with the folds' scratch in the stages
  CAPTURE(K);
  std::unique_ptr<strategies::Strategy> folded;
  if (K > 0)
    folded = plain.with_folds(testing::equal_folds(0, static_cast<std::size_t>(plain.n_bars()), K),
                              {strategies::AcrossFolds::Rule::Min});
  const auto& s = K > 0 ? dynamic_cast<const strategies::EmaCrossStrategy&>(*folded) : plain;
  const std::size_t M = s.metric_names().size();
  gpu::EmaCrossDeviceOptions o;
  o.max_series = 9;  // parts of a few trials; every launch evicts series that others may still read
  CUDA_CHECK(cudaSetDevice(0));
  gpu::OwnedStream setup;
  auto device = gpu::make_ema_cross_device(s, setup.get(), o);
  REQUIRE(device->concurrent_launches());
  CUDA_CHECK(cudaStreamSynchronize(setup.get()));
  struct Lane {
    gpu::OwnedStream stream;
    std::vector<double> params;
    gpu::DeviceBuffer<double> d_params, d_scores, d_viol, d_metrics;
    std::vector<double> scores, violations, metrics;
  };
  const std::size_t n = 96;
  std::vector<std::unique_ptr<Lane>> lanes;
  for (int k = 0; k < 3; ++k) {
    auto lane = std::make_unique<Lane>();
    lane->params = random_population(n, 400, 70 + k);
    lane->d_params = gpu::DeviceBuffer<double>(n * ec::kNumSlots);
    lane->d_scores = gpu::DeviceBuffer<double>(n);
    lane->d_viol = gpu::DeviceBuffer<double>(n);
    lane->d_metrics = gpu::DeviceBuffer<double>(n * M);
    CUDA_CHECK(cudaMemcpy(lane->d_params.data(), lane->params.data(), n * ec::kNumSlots * sizeof(double),
                          cudaMemcpyHostToDevice));
    lanes.push_back(std::move(lane));
  }
  std::size_t checked = 0;
  for (int round = 0; round < 2; ++round) {
    CAPTURE(round);
    for (auto& lane : lanes) {  // no wait between the launches
      const gpu::DeviceBatch b{lane->d_params.data(), lane->params.data(),    lane->d_scores.data(),
                               lane->d_viol.data(),   lane->d_metrics.data(), n};
      device->launch(b, lane->stream.get(), 128);
    }
    for (auto& lane : lanes) {
      lane->scores.resize(n);
      lane->violations.resize(n);
      lane->metrics.resize(n * M);
      CUDA_CHECK(cudaStreamSynchronize(lane->stream.get()));
      CUDA_CHECK(cudaMemcpy(lane->scores.data(), lane->d_scores.data(), n * sizeof(double), cudaMemcpyDeviceToHost));
      CUDA_CHECK(cudaMemcpy(lane->violations.data(), lane->d_viol.data(), n * sizeof(double), cudaMemcpyDeviceToHost));
      CUDA_CHECK(
          cudaMemcpy(lane->metrics.data(), lane->d_metrics.data(), n * M * sizeof(double), cudaMemcpyDeviceToHost));
      std::size_t d = 0;
      std::vector<double> m(M);
      for (std::size_t i = 0; i < n; ++i) {
        const auto ref = s.evaluate(&lane->params[i * ec::kNumSlots], m.data());
        bool same = same_bits(ref.score, lane->scores[i]) && same_bits(ref.violation, lane->violations[i]);
        for (std::size_t q = 0; q < M; ++q) same = same && same_bits(m[q], lane->metrics[i * M + q]);
        d += same ? 0 : 1;
        ++checked;
      }
      CHECK(d == 0);
    }
  }
  CHECK(checked == 2 * 3 * n);
}

namespace {

/// The device twin's scores, violations and metrics of `params` (one launch on one stream).
struct DeviceRows {
  std::vector<double> scores, violations, metrics;
};

DeviceRows device_rows(const strategies::EmaCrossStrategy& s, const std::vector<double>& params,
                       const gpu::EmaCrossDeviceOptions& o) {
  const std::size_t n = params.size() / ec::kNumSlots, M = s.metric_names().size();
  CUDA_CHECK(cudaSetDevice(0));
  gpu::OwnedStream stream;
  auto device = gpu::make_ema_cross_device(s, stream.get(), o);
  gpu::DeviceBuffer<double> d_params(params.size()), d_scores(n), d_viol(n), d_metrics(n * M);
  CUDA_CHECK(cudaMemcpy(d_params.data(), params.data(), params.size() * sizeof(double), cudaMemcpyHostToDevice));
  device->launch({d_params.data(), params.data(), d_scores.data(), d_viol.data(), d_metrics.data(), n}, stream.get(),
                 128);
  CUDA_CHECK(cudaStreamSynchronize(stream.get()));
  DeviceRows r{std::vector<double>(n), std::vector<double>(n), std::vector<double>(n * M)};
  CUDA_CHECK(cudaMemcpy(r.scores.data(), d_scores.data(), n * sizeof(double), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(r.violations.data(), d_viol.data(), n * sizeof(double), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(r.metrics.data(), d_metrics.data(), n * M * sizeof(double), cudaMemcpyDeviceToHost));
  return r;
}

/// Trials whose device score, violation or metrics differ from the CPU reference's in any bit.
std::size_t differing_rows(const strategies::EmaCrossStrategy& s, const std::vector<double>& params,
                           const DeviceRows& d) {
  const std::size_t n = params.size() / ec::kNumSlots, M = s.metric_names().size();
  std::vector<double> m(M);
  std::size_t differing = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const auto ref = s.evaluate(&params[i * ec::kNumSlots], m.data());
    bool same = same_bits(ref.score, d.scores[i]) && same_bits(ref.violation, d.violations[i]);
    for (std::size_t q = 0; q < M; ++q) same = same && same_bits(m[q], d.metrics[i * M + q]);
    differing += same ? 0 : 1;
  }
  return differing;
}

}  // namespace

TEST_CASE("ema_cross GPU: walks cut into segments and stitched equal the CPU", "[gpu][ema_cross][segments]") {
  REQUIRE(gpu::cuda_available());
  const std::string file =
      GENERATE(as<std::string>{}, "backtesting-py/EURUSD.csv", "binance-1m/BTCUSDT_1m_2023-03.csv");
  CAPTURE(file);
  const strategies::EmaCrossStrategy plain(io::read_candles_csv(tpeopt::testing::data_dir() + "/" + file), {});
  const std::size_t bars = static_cast<std::size_t>(plain.n_bars());
  // The whole series; one block (a hold-out's in-sample part, segmented); two blocks (walked
  // whole); folds over the whole series.
  const auto one_block = plain.subset({{bars / 9, bars * 7 / 10}}, 0);
  const auto two_blocks = plain.subset({{0, bars / 3}, {bars / 2, bars}}, 0);
  const auto folded = plain.with_folds(testing::equal_folds(0, bars, 5), {strategies::AcrossFolds::Rule::Min});
  const std::size_t n = 512;
  const auto params = random_population(n, 400, 5);
  struct Cut {
    int G, room;
  };
  const std::vector<const strategies::Strategy*> cases = {&plain, one_block.get(), two_blocks.get(), folded.get()};
  for (const strategies::Strategy* sp : cases) {
    const auto& s = dynamic_cast<const strategies::EmaCrossStrategy&>(*sp);
    CAPTURE(s.blocks().size(), s.folds().n_folds());
    const auto cpu = s.folds().n_folds() == 0 ? cpu_reference(s, params) : std::vector<CpuTrial>{};
    // 1: none; 0: auto (512 trials: segmented); rooms of 1 and 3 trades leave records incomplete.
    for (const Cut cut : {Cut{1, 0}, Cut{0, 0}, Cut{2, 0}, Cut{7, 1}, Cut{7, 3}, Cut{64, 0}, Cut{997, 2}}) {
      CAPTURE(cut.G, cut.room);
      gpu::EmaCrossDeviceOptions o;
      o.segments = cut.G;
      o.segment_room = cut.room;
      o.steps = cut.G == 7 ? 16 : 4;
      CHECK(differing_rows(s, params, device_rows(s, params, o)) == 0);
      if (s.folds().n_folds() == 0) {  // the record pass stitches too
        const auto g = gpu::gpu_ema_cross_trades(s, params.data(), n, o);
        std::size_t total_trades = 0;
        CHECK(count_differing(cpu, g, &total_trades) == 0);
        CHECK(total_trades > n);
      }
    }
  }
}
