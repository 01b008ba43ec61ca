// ask+tell time of one TPE batch versus observations, axes, batch size and acquisition.
//
//   bench_ask_tell --single AXES OBSERVATIONS BATCH batch|batch-repeats|fast|exact|multivariate [THREADS] [WARM] [float|int]
//       one case (batch: batch TPE, the default preset; batch-repeats: the same with
//       search.tpe.distinct false, what the repeat check costs; fast, exact: the optuna preset's
//       acquisitions; multivariate: its `multivariate: true`, exact scoring); prints one JSON line {"axes", "observations", "batch", "acquisition",
//       "threads", "warm", "kind", "ask_ms", "tell_ms", "build_ms"}. KIND (default float): the
//       axes are floats on [0, 1] or ints on [0, 1000] (1,001 grid points). WARM (default 0) TPE batches are
//       asked and told before the timed one (the random block is then OBSERVATIONS - WARM x
//       BATCH trials, so the timed batch still sees OBSERVATIONS): the steady state of a long
//       run, whose buffers are already allocated and touched, rather than a fresh sampler's
//       first batch.
//   bench_ask_tell --sweep OUT.csv [THREADS] [MAX_OBSERVATIONS]
//       the grid of docs/benchmarks.md: observations 1e3 .. 1e6, axes 8/32/142, batch
//       64 .. 16384, fast everywhere and exact where it takes under ~30 s of CPU per batch.
//       Fast rows are warmed by up to 2 TPE batches (the CSV's "warm" column).
//
// Observations are random (float axes on [0, 1], uniform scores): one random block of
// OBSERVATIONS - WARM x BATCH trials is asked and told first, then WARM TPE batches; then one
// TPE batch is asked and told, timed.
// Each case is timed 3 times on fresh samplers (the median is reported).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "common/hardware_threads.hpp"
#include "tpe/batch_tpe_sampler.hpp"
#include "tpe/tpe_sampler.hpp"
#include "tpe/trial_rng.hpp"

using namespace tpeopt::tpe;
using Clock = std::chrono::steady_clock;

namespace {

struct Result {
  double ask_ms = 0, tell_ms = 0, build_ms = 0, ask_cpu_ms = 0, tell_cpu_ms = 0;
};

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

// CPU time of the whole process (all threads), in ms: on a shared machine wall time counts
// other processes' turns, CPU time does not (it is the wall time of an idle machine with
// one thread, and at most threads x the wall time with more).
double cpu_ms() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) * 1e-6;
}

Result run_case(std::size_t d, std::size_t n_obs, std::size_t batch, Acquisition acq, unsigned threads, int repeats,
                std::size_t warm = 0, bool int_axes = false, bool multivariate = false, bool batch_tpe = false,
                bool distinct = true) {
  SearchSpace space;
  for (std::size_t a = 0; a < d; ++a) {
    Axis axis;
    axis.name = "x" + std::to_string(a);
    if (int_axes) {
      axis.kind = Axis::Kind::Int;
      axis.step = 1.0;
    }
    axis.low = 0.0;
    axis.high = int_axes ? 1000.0 : 1.0;
    space.axes.push_back(axis);
  }
  std::vector<Result> results;
  for (int rep = 0; rep < repeats; ++rep) {
    TpeConfig config;
    config.acquisition = acq;
    config.multivariate = multivariate ? Multivariate::On : Multivariate::Off;
    config.threads = threads;
    config.batch.threads = threads;
    config.batch.distinct = distinct;
    auto t0 = Clock::now();
    const std::uint64_t seed = 1234 + static_cast<std::uint64_t>(rep);
    std::unique_ptr<Sampler> owned;
    if (batch_tpe) owned = std::make_unique<BatchTpeSampler>(space, Direction::Minimize, seed, config.batch);
    else owned = std::make_unique<TpeSampler>(space, Direction::Minimize, seed, config);
    Sampler& sampler = *owned;
    std::vector<double> params(std::max(n_obs, batch) * d);
    std::vector<TrialOutcome> outcomes(std::max(n_obs, batch));
    SplitMix64 rng(99 + static_cast<std::uint64_t>(rep));
    auto u01 = [&] { return static_cast<double>(rng() >> 11) * 0x1.0p-53; };
    const std::size_t n_random = n_obs - warm * batch;
    sampler.ask(0, n_random, params.data());  // startup: random
    for (std::size_t i = 0; i < n_random; ++i) outcomes[i] = {u01(), 0.0};
    sampler.tell(0, std::span<const TrialOutcome>(outcomes.data(), n_random));
    for (std::size_t w = 0; w < warm; ++w) {
      const std::size_t first = n_random + w * batch;
      sampler.ask(first, batch, params.data());
      for (std::size_t i = 0; i < batch; ++i) outcomes[i] = {u01(), 0.0};
      sampler.tell(first, std::span<const TrialOutcome>(outcomes.data(), batch));
    }
    Result r;
    r.build_ms = ms_since(t0);
    t0 = Clock::now();
    double c0 = cpu_ms();
    sampler.ask(n_obs, batch, params.data());
    r.ask_ms = ms_since(t0);
    r.ask_cpu_ms = cpu_ms() - c0;
    for (std::size_t i = 0; i < batch; ++i) outcomes[i] = {u01(), 0.0};
    t0 = Clock::now();
    c0 = cpu_ms();
    sampler.tell(n_obs, std::span<const TrialOutcome>(outcomes.data(), batch));
    r.tell_ms = ms_since(t0);
    r.tell_cpu_ms = cpu_ms() - c0;
    results.push_back(r);
  }
  std::sort(results.begin(), results.end(), [](const Result& x, const Result& y) { return x.ask_ms < y.ask_ms; });
  return results[results.size() / 2];
}

const char* name(Acquisition a) { return a == Acquisition::Fast ? "fast" : "exact"; }

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 6 && std::strcmp(argv[1], "--single") == 0) {
    const std::size_t d = std::strtoull(argv[2], nullptr, 10), n = std::strtoull(argv[3], nullptr, 10),
                      batch = std::strtoull(argv[4], nullptr, 10);
    const bool multivariate = std::strcmp(argv[5], "multivariate") == 0;
    const bool repeats_allowed = std::strcmp(argv[5], "batch-repeats") == 0;
    const bool batch_tpe = std::strcmp(argv[5], "batch") == 0 || repeats_allowed;
    const Acquisition acq = std::strcmp(argv[5], "exact") == 0 || multivariate ? Acquisition::Exact : Acquisition::Fast;
    const unsigned threads = argc >= 7 ? static_cast<unsigned>(std::atoi(argv[6])) : 0;
    const std::size_t warm = argc >= 8 ? std::strtoull(argv[7], nullptr, 10) : 0;
    const bool int_axes = argc >= 9 && std::strcmp(argv[8], "int") == 0;
    if (warm * batch >= n) {
      std::fprintf(stderr, "bench_ask_tell: WARM x BATCH (%zu) must be under OBSERVATIONS (%zu)\n", warm * batch, n);
      return 2;
    }
    const int repeats = acq == Acquisition::Exact ? 1 : 3;
    const Result r =
        run_case(d, n, batch, acq, threads, repeats, warm, int_axes, multivariate, batch_tpe, !repeats_allowed);
    std::printf(
        "{\"axes\": %zu, \"observations\": %zu, \"batch\": %zu, \"acquisition\": \"%s\", \"threads\": %u, "
        "\"warm\": %zu, \"kind\": \"%s\", \"ask_ms\": %.3f, \"tell_ms\": %.3f, \"ask_cpu_ms\": %.3f, \"tell_cpu_ms\": "
        "%.3f, "
        "\"build_ms\": %.1f}\n",
        d, n, batch,
        repeats_allowed ? "batch-repeats"
        : batch_tpe     ? "batch"
        : multivariate  ? "multivariate"
                        : name(acq),
        threads == 0 ? tpeopt::usable_hardware_threads() : threads, warm, int_axes ? "int" : "float", r.ask_ms,
        r.tell_ms, r.ask_cpu_ms, r.tell_cpu_ms, r.build_ms);
    return 0;
  }
  if (argc >= 3 && std::strcmp(argv[1], "--sweep") == 0) {
    const unsigned threads = argc >= 4 ? static_cast<unsigned>(std::atoi(argv[3])) : 0;
    const std::size_t max_obs = argc >= 5 ? std::strtoull(argv[4], nullptr, 10) : 1000000;
    std::FILE* f = std::fopen(argv[2], "w");
    if (!f) return 1;
    std::fprintf(f, "acquisition,axes,observations,batch,warm,ask_ms,tell_ms,ask_tell_ms,ask_tell_cpu_ms\n");
    auto emit = [&](Acquisition acq, std::size_t d, std::size_t n, std::size_t b) {
      // A run's steady state where the observations allow it: two TPE batches before the
      // timed one (a fresh sampler's first tell also grows every column past its capacity, a
      // copy of all of them). Exact asks are too slow to warm, and their tell keeps no order.
      const std::size_t warm = acq == Acquisition::Fast ? std::min<std::size_t>(2, (n - 1) / b) : 0;
      const Result r = run_case(d, n, b, acq, threads, acq == Acquisition::Exact || n >= 1000000 ? 1 : 3, warm);
      std::fprintf(f, "%s,%zu,%zu,%zu,%zu,%.3f,%.3f,%.3f,%.3f\n", name(acq), d, n, b, warm, r.ask_ms, r.tell_ms,
                   r.ask_ms + r.tell_ms, r.ask_cpu_ms + r.tell_cpu_ms);
      std::fflush(f);
      std::fprintf(stderr, "%s d=%zu n=%zu batch=%zu ask=%.1fms tell=%.1fms\n", name(acq), d, n, b, r.ask_ms,
                   r.tell_ms);
    };
    // Observations sweep at batch 4096; batch sweep at 20,000 observations.
    for (std::size_t d : {8u, 32u, 142u})
      for (std::size_t n : {1000u, 10000u, 100000u, 1000000u})
        if (n <= max_obs) emit(Acquisition::Fast, d, n, 4096);
    for (std::size_t d : {8u, 32u, 142u})
      for (std::size_t b : {64u, 256u, 1024u, 4096u, 16384u}) emit(Acquisition::Fast, d, 20000, b);
    // Exact only where a batch takes under ~30 s of CPU: its cost is about 28 ns per kernel
    // evaluation, axes x observations x batch x 24 of them (1e9 evaluations ~ 28 s).
    auto exact_ok = [](double d, double n, double b) { return d * n * b * 24.0 <= 1e9; };
    for (std::size_t d : {8u, 32u, 142u})
      for (std::size_t n : {1000u, 10000u, 100000u})
        if (exact_ok(static_cast<double>(d), static_cast<double>(n), 4096.0)) emit(Acquisition::Exact, d, n, 4096);
    for (std::size_t d : {8u, 32u, 142u})
      for (std::size_t b : {64u, 256u, 1024u})
        if (exact_ok(static_cast<double>(d), 20000.0, static_cast<double>(b))) emit(Acquisition::Exact, d, 20000, b);
    std::fclose(f);
    return 0;
  }
  std::fprintf(stderr,
               "usage: bench_ask_tell --single AXES OBSERVATIONS BATCH batch|fast|exact|multivariate [THREADS] [WARM] "
               "[float|int]\n"
               "       bench_ask_tell --sweep OUT.csv [THREADS] [MAX_OBSERVATIONS]\n");
  return 2;
}
