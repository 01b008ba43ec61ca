// [gpu]: the CUDA executor reproduces the CPU executor bit for bit. Run on the GPU
// machine (scripts/gpu_check.sh); never faked on the CPU.
#include <catch2/catch.hpp>

#include <cstring>

#include "engine/cpu_executor.hpp"
#include "gpu/cuda_executor.hpp"
#include "study/study.hpp"
#include "support/bits.hpp"
#include "support/study_fixtures.hpp"
#include "tpe/random_sampler.hpp"

using namespace tpeopt;

namespace {

using tpeopt::testing::same_bits;

engine::BatchRequest random_batch(const io::StudyConfig& c, std::size_t n, std::uint64_t seed) {
  tpe::RandomSampler sampler(c.space, seed);
  engine::BatchRequest r;
  r.batch_index = 0;
  r.first_trial = 0;
  r.n_trials = n;
  r.n_axes = c.space.size();
  r.values.resize(n * r.n_axes);
  sampler.ask(0, n, r.values.data());
  return r;
}

}  // namespace

TEST_CASE("CUDA functions scores equal the CPU reference bit for bit", "[gpu]") {
  REQUIRE(gpu::cuda_available());
  struct F {
    const char* name;
    int dim;
    double low, high;
  };
  const F f = GENERATE(F{"sphere", 10, -5, 5}, F{"rastrigin", 10, -5.12, 5.12}, F{"rastrigin", 3, -1000, 1000},
                       F{"styblinski_tang", 10, -5, 5}, F{"hartmann6", 6, 0, 1});
  const std::size_t n = GENERATE(1u, 33u, 4097u);
  const std::uint64_t seed = GENERATE(1u, 2u);
  CAPTURE(f.name, f.dim, n, seed);
  const auto config = testing::functions_config(f.name, f.dim, f.low, f.high, n, n, 1, seed);
  auto strategy = engine::make_strategy(config);
  engine::CpuExecutor cpu(*strategy, engine::ParamBinding(*strategy, config.space, config.fixed), 2);
  auto cuda = gpu::make_cuda_executor(*strategy, engine::ParamBinding(*strategy, config.space, config.fixed));
  const auto request = random_batch(config, n, seed);
  const auto a = cpu.evaluate(request);
  const auto b = cuda->evaluate(request);
  REQUIRE(b.n_trials == n);
  std::size_t differing = 0;
  for (std::size_t i = 0; i < n; ++i)
    if (!same_bits(a.scores[i], b.scores[i]) || !same_bits(a.violations[i], b.violations[i])) ++differing;
  REQUIRE(differing == 0);
}

TEST_CASE("two CUDA launch configurations give the same bits", "[gpu]") {
  REQUIRE(gpu::cuda_available());
  const auto config = testing::functions_config("rastrigin", 10, -5.12, 5.12, 10000, 10000, 1, 3);
  auto strategy = engine::make_strategy(config);
  gpu::CudaExecutorOptions small, large;
  small.block_size = 32;
  large.block_size = 512;
  auto a = gpu::make_cuda_executor(*strategy, engine::ParamBinding(*strategy, config.space, config.fixed), small);
  auto b = gpu::make_cuda_executor(*strategy, engine::ParamBinding(*strategy, config.space, config.fixed), large);
  const auto request = random_batch(config, 10000, 3);
  const auto ra = a->evaluate(request);
  const auto rb = b->evaluate(request);
  for (std::size_t i = 0; i < request.n_trials; ++i) REQUIRE(same_bits(ra.scores[i], rb.scores[i]));
}

TEST_CASE("a pipelined TPE run on the GPU equals a serial run on the CPU", "[gpu][determinism]") {
  REQUIRE(gpu::cuda_available());
  const auto config = testing::functions_config("styblinski_tang", 8, -5, 5, 2000, 256, 2, 17);
  engine::RunOptions gpu_run, cpu_run;
  gpu_run.executor = "cuda";
  cpu_run.executor = "cpu";
  cpu_run.serial = true;
  const auto g = engine::run_study(config, gpu_run);
  const auto c = engine::run_study(config, cpu_run);
  REQUIRE(g.executor == "cuda");
  REQUIRE(g.result.n_trials() == 2000);
  REQUIRE(g.result.digest_hex() == c.result.digest_hex());
}

TEST_CASE("a batch split into device parts gives the same bits as one part", "[gpu]") {
  REQUIRE(gpu::cuda_available());
  const auto config = testing::functions_config("hartmann6", 6, 0, 1, 5000, 5000, 1, 9);
  auto strategy = engine::make_strategy(config);
  gpu::CudaExecutorOptions whole, parts;
  parts.max_part_trials = 777;  // 5000 = 6 x 777 + 338: an awkward remainder
  auto a = gpu::make_cuda_executor(*strategy, engine::ParamBinding(*strategy, config.space, config.fixed), whole);
  auto b = gpu::make_cuda_executor(*strategy, engine::ParamBinding(*strategy, config.space, config.fixed), parts);
  const auto request = random_batch(config, 5000, 9);
  const auto ra = a->evaluate(request);
  const auto rb = b->evaluate(request);
  REQUIRE(rb.n_trials == 5000);
  for (std::size_t i = 0; i < request.n_trials; ++i) REQUIRE(same_bits(ra.scores[i], rb.scores[i]));
}
