// The overlap is structural, not timed: a hook in the sampler's ask(k + D) and a hook
// in the executor's evaluate(k + 1) meet at a rendezvous where each waits for the
// other. Only a run where the two really execute at the same time can meet there.
#include <catch2/catch.hpp>

#include <chrono>
#include <condition_variable>
#include <mutex>

#include "engine/cpu_executor.hpp"
#include "engine/pipeline.hpp"
#include "study/study.hpp"
#include "support/study_fixtures.hpp"

using namespace tpeopt;
using namespace std::chrono_literals;

namespace {

/// Two parties; each waits up to a timeout for the other. Never hangs.
class Rendezvous {
 public:
  bool arrive_and_wait(std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex_);
    if (++arrived_ == 2) {
      met_ = true;
      cv_.notify_all();
      return true;
    }
    if (cv_.wait_for(lock, timeout, [&] { return met_; })) return true;
    --arrived_;  // withdraw: a later arrival must not count this one as present
    return false;
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  int arrived_ = 0;
  bool met_ = false;
};

class HookedSampler final : public tpe::Sampler {
 public:
  HookedSampler(tpe::Sampler& inner, std::uint64_t hook_trial, Rendezvous& r, std::chrono::milliseconds timeout)
      : inner_(inner), hook_trial_(hook_trial), rendezvous_(r), timeout_(timeout) {}
  std::string name() const override { return inner_.name(); }
  void ask(std::uint64_t first, std::size_t n, double* out) override {
    if (first == hook_trial_) met = rendezvous_.arrive_and_wait(timeout_);
    inner_.ask(first, n, out);
  }
  void tell(std::uint64_t first, std::span<const tpe::TrialOutcome> o) override { inner_.tell(first, o); }
  bool met = false;

 private:
  tpe::Sampler& inner_;
  std::uint64_t hook_trial_;
  Rendezvous& rendezvous_;
  std::chrono::milliseconds timeout_;
};

class HookedExecutor final : public engine::Executor {
 public:
  HookedExecutor(engine::Executor& inner, std::uint64_t hook_batch, Rendezvous& r, std::chrono::milliseconds timeout)
      : inner_(inner), hook_batch_(hook_batch), rendezvous_(r), timeout_(timeout) {}
  std::string name() const override { return "hooked"; }
  engine::BatchResult evaluate(const engine::BatchRequest& request) override {
    if (request.batch_index == hook_batch_) met = rendezvous_.arrive_and_wait(timeout_);
    return inner_.evaluate(request);
  }
  bool met = false;

 private:
  engine::Executor& inner_;
  std::uint64_t hook_batch_;
  Rendezvous& rendezvous_;
  std::chrono::milliseconds timeout_;
};

class NullObserver final : public engine::BatchObserver {
 public:
  void on_batch(const engine::BatchRequest&, const engine::BatchResult&, const engine::BatchTimings&) override {}
};

struct Outcome {
  bool sampler_met, executor_met;
};

Outcome run_with_rendezvous(bool serial, std::size_t depth, std::uint64_t k, std::chrono::milliseconds timeout) {
  const std::size_t batch = 8;
  const auto config = testing::functions_config("sphere", 4, -5, 5, 8 * 10, batch, depth, 5);
  auto strategy = engine::make_strategy(config);
  auto sampler = engine::make_sampler(config);
  engine::CpuExecutor cpu(*strategy, engine::ParamBinding(*strategy, config.space, config.fixed), 1);
  Rendezvous r;
  HookedSampler hooked_sampler(*sampler, (k + depth) * batch, r, timeout);
  HookedExecutor hooked_executor(cpu, k + 1, r, timeout);
  engine::PipelineSettings s;
  s.n_trials = 80;
  s.batch_size = batch;
  s.depth = depth;
  s.serial = serial;
  NullObserver observer;
  engine::run_pipeline(hooked_sampler, hooked_executor, config.space.size(), s, observer);
  return {hooked_sampler.met, hooked_executor.met};
}

}  // namespace

TEST_CASE("pipelined: ask(k+D) runs while the executor evaluates batch k+1", "[cpu][pipeline][overlap]") {
  const std::size_t depth = GENERATE(2u, 3u);
  const std::uint64_t k = GENERATE(0u, 3u);
  CAPTURE(depth, k);
  // Generous timeout: in the pipelined mode the two meet as soon as both arrive.
  const auto o = run_with_rendezvous(false, depth, k, 30s);
  REQUIRE(o.sampler_met);
  REQUIRE(o.executor_met);
}

TEST_CASE("serial: the rendezvous times out (no overlap), and the run still ends", "[cpu][pipeline][overlap]") {
  const auto started = std::chrono::steady_clock::now();
  const auto o = run_with_rendezvous(true, 2, 1, 300ms);
  REQUIRE_FALSE(o.sampler_met);
  REQUIRE_FALSE(o.executor_met);
  REQUIRE(std::chrono::steady_clock::now() - started < 20s);
}
