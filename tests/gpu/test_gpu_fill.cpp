// [gpu]: filling the device (docs/benchmarks.md, "exhaustion on the GPU") changes no bit. The exhaustion walks cut into
// segments and stitched equal the CPU reference (forced cuts, from 2 to more segments than
// bars allow, and segments with too little room for their trades; EMAs of new spans on the
// host and on the device); batches in flight on
// several streams at once equal one stream and the CPU, through the executor and through
// the device twin directly with a series cache small enough that in-flight batches evict
// each other's series; and the executor reports a device occupancy figure. Run on the GPU
// machine.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "engine/cpu_executor.hpp"
#include "engine/param_binding.hpp"
#include "gpu/cuda_executor.hpp"
#include "io/candles_csv.hpp"
#include "strategies/device/cuda_check.cuh"
#include "strategies/device/device_buffers.hpp"
#include "strategies/exhaustion/exhaustion_device.hpp"
#include "strategies/exhaustion/exhaustion_strategy.hpp"
#include "support/bits.hpp"
#include "support/exhaustion_params.hpp"
#include "support/in_flight.hpp"
#include "support/paths.hpp"
#include "support/result_bits.hpp"
#include "support/slot_space.hpp"
#include "support/trade_parity.hpp"
#include "tpe/search_space.hpp"

using namespace tpeopt;
namespace ex = strategies::exhaustion;
using tpeopt::testing::same_bits;

namespace {

strategies::ExhaustionStrategy load(const std::string& file) {
  return strategies::ExhaustionStrategy(io::read_candles_csv(tpeopt::testing::data_dir() + "/" + file), {});
}

engine::BatchRequest request(std::uint64_t index, const std::vector<double>& params) {
  engine::BatchRequest r;
  r.batch_index = index;
  r.n_trials = params.size() / ex::kNumSlots;
  r.n_axes = ex::kNumSlots;
  r.values = params;
  return r;
}

}  // namespace

TEST_CASE("exhaustion GPU: walks cut into segments and stitched equal the CPU reference exactly",
          "[gpu][exhaustion][segments]") {
  REQUIRE(gpu::cuda_available());
  const std::string file =
      GENERATE(as<std::string>{}, "backtesting-py/EURUSD.csv", "binance-1m/BTCUSDT_1m_2023-03.csv");
  const std::size_t n = GENERATE(1u, 24u, 512u);
  CAPTURE(file, n);
  const auto s = load(file);
  const auto params = tpeopt::testing::random_exhaustion_params(n, 500 + n);
  const auto cpu = testing::cpu_trials<ex::Trade>(s, params, ex::kNumSlots);
  using EmaOn = gpu::ExhaustionDeviceOptions::EmaOn;
  struct Cut {
    int segments, room;
    EmaOn ema_on;
  };
  // Room 0 = from the segment's length; rooms of 1 and 3 make most segments run out of it,
  // so the stitch walks the rest; 997 segments leave some shorter than a trade. The EMAs of
  // new spans computed on the host and on the device, whatever their number.
  for (const Cut cut : {Cut{2, 0, EmaOn::Auto}, Cut{7, 3, EmaOn::Host}, Cut{64, 1, EmaOn::Device},
                        Cut{997, 0, EmaOn::Host}, Cut{997, 2, EmaOn::Auto}, Cut{0, 0, EmaOn::Device}}) {
    CAPTURE(cut.segments, cut.room, static_cast<int>(cut.ema_on));
    gpu::ExhaustionDeviceOptions o;
    o.segments = cut.segments;
    o.segment_room = cut.room;
    o.ema_on = cut.ema_on;
    // The first pass (scores, metrics, trade counts) is the segmented one; trades are
    // recorded by the one-walk kernel and compared too.
    const auto gpu_results = gpu::gpu_exhaustion_trades(s, params.data(), n, o);
    std::size_t total_trades = 0;
    CHECK(testing::count_differing_trials(cpu, gpu_results, &total_trades, [](const ex::Trade& a, const ex::Trade& b) {
            return a.signal_bar == b.signal_bar && a.exit_bar == b.exit_bar && a.reason == b.reason &&
                   same_bits(a.ret, b.ret) && same_bits(a.r_multiple, b.r_multiple);
          }) == 0);
    if (n >= 24) CHECK(total_trades > 0);
  }
}

TEST_CASE("CUDA executor: batches overlapping on the device give the bits of one stream and of the CPU",
          "[gpu][overlap]") {
  REQUIRE(gpu::cuda_available());
  const auto s = load("binance-1m/BTCUSDT_1m_2023-03.csv");
  const auto space = testing::slot_space(s, testing::exhaustion_slot_bounds());
  engine::CpuExecutor cpu(s, engine::ParamBinding(s, space, {}), 0);
  gpu::CudaExecutorOptions one, three;
  one.max_in_flight = 1;
  three.max_in_flight = 3;
  auto serial = gpu::make_cuda_executor(s, engine::ParamBinding(s, space, {}), one);
  auto overlapped = gpu::make_cuda_executor(s, engine::ParamBinding(s, space, {}), three);
  REQUIRE(overlapped->max_in_flight() == 3);
  // Sizes that take the segmented kernels (few trials), the one-walk kernel (many) and both.
  const std::vector<std::size_t> sizes = {700, 4096, 33, 20000, 1, 2048};
  std::vector<engine::BatchRequest> batches;
  for (std::size_t k = 0; k < sizes.size(); ++k)
    batches.push_back(request(k, tpeopt::testing::random_exhaustion_params(sizes[k], 900 + k)));
  // Three in flight at all times: submit k + 3 before k completes.
  const std::vector<engine::BatchResult> got = testing::run_in_flight(*overlapped, batches, 3);
  for (std::size_t k = 0; k < batches.size(); ++k) {
    CAPTURE(k, sizes[k]);
    CHECK(got[k].batch_index == k);
    const auto on_one_stream = serial->evaluate(batches[k]);
    const auto reference = cpu.evaluate(batches[k]);
    CHECK(testing::differing_trials(got[k], on_one_stream) == 0);
    CHECK(testing::differing_trials(got[k], reference) == 0);
    // The occupancy probe measured every batch: some SM time, never more than the span.
    CHECK(got[k].timings.sm_span_ms > 0.0);
    CHECK(got[k].timings.sm_busy_ms > 0.0);
    CHECK(got[k].timings.sm_busy_ms <= got[k].timings.sm_span_ms * 1.0001);
  }
}

TEST_CASE("exhaustion device: launches on three streams at once, evicting each other's series, equal the CPU",
          "[gpu][overlap][exhaustion]") {
  REQUIRE(gpu::cuda_available());
  const auto s = load("binance-1m/BTCUSDT_1m_2023-03.csv");
  const std::size_t segments = GENERATE(0u, 1u);  // the segmented kernels (auto) and the one-walk kernel
  CAPTURE(segments);
  gpu::ExhaustionDeviceOptions o;
  o.max_series = 9;  // parts of a few trials; every launch evicts series that others may still read
  o.segments = static_cast<int>(segments);
  CUDA_CHECK(cudaSetDevice(0));
  gpu::OwnedStream setup;
  auto device = gpu::make_exhaustion_device(s, setup.get(), o);
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
    lane->params = tpeopt::testing::random_exhaustion_params(n, 70 + k);
    lane->d_params = gpu::DeviceBuffer<double>(n * ex::kNumSlots);
    lane->d_scores = gpu::DeviceBuffer<double>(n);
    lane->d_viol = gpu::DeviceBuffer<double>(n);
    lane->d_metrics = gpu::DeviceBuffer<double>(n * ex::kNumMetrics);
    CUDA_CHECK(cudaMemcpy(lane->d_params.data(), lane->params.data(), n * ex::kNumSlots * sizeof(double),
                          cudaMemcpyHostToDevice));
    lanes.push_back(std::move(lane));
  }
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
      lane->metrics.resize(n * ex::kNumMetrics);
      CUDA_CHECK(cudaStreamSynchronize(lane->stream.get()));
      CUDA_CHECK(cudaMemcpy(lane->scores.data(), lane->d_scores.data(), n * sizeof(double), cudaMemcpyDeviceToHost));
      CUDA_CHECK(cudaMemcpy(lane->violations.data(), lane->d_viol.data(), n * sizeof(double), cudaMemcpyDeviceToHost));
      CUDA_CHECK(cudaMemcpy(lane->metrics.data(), lane->d_metrics.data(), n * ex::kNumMetrics * sizeof(double),
                            cudaMemcpyDeviceToHost));
      std::size_t d = 0;
      for (std::size_t i = 0; i < n; ++i) {
        double m[ex::kNumMetrics];
        const auto ref = s.evaluate(&lane->params[i * ex::kNumSlots], m);
        bool same = same_bits(ref.score, lane->scores[i]) && same_bits(ref.violation, lane->violations[i]);
        for (int q = 0; q < ex::kNumMetrics; ++q)
          same = same && same_bits(m[q], lane->metrics[i * ex::kNumMetrics + q]);
        d += same ? 0 : 1;
      }
      CHECK(d == 0);
    }
  }
}
