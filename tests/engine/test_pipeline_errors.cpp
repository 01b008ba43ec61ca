// An error on either side ends the run with that error: no hang, no lost message.
#include <catch2/catch.hpp>

#include <csignal>

#include "common/error.hpp"
#include "engine/cpu_executor.hpp"
#include "engine/interrupt.hpp"
#include "engine/pipeline.hpp"
#include "study/study.hpp"
#include "support/study_fixtures.hpp"

using namespace tpeopt;

namespace {

class FailingExecutor final : public engine::Executor {
 public:
  FailingExecutor(engine::Executor& inner, std::uint64_t fail_batch) : inner_(inner), fail_batch_(fail_batch) {}
  std::string name() const override { return "failing"; }
  engine::BatchResult evaluate(const engine::BatchRequest& request) override {
    if (request.batch_index == fail_batch_) throw make_error("device lost at batch {}", request.batch_index);
    ++evaluated;
    return inner_.evaluate(request);
  }
  int evaluated = 0;

 private:
  engine::Executor& inner_;
  std::uint64_t fail_batch_;
};

class FailingSampler final : public tpe::Sampler {
 public:
  FailingSampler(tpe::Sampler& inner, std::uint64_t fail_trial) : inner_(inner), fail_trial_(fail_trial) {}
  std::string name() const override { return "failing"; }
  void ask(std::uint64_t first, std::size_t n, double* out) override {
    if (first == fail_trial_) throw make_error("sampler broke at trial {}", first);
    inner_.ask(first, n, out);
  }
  void tell(std::uint64_t first, std::span<const tpe::TrialOutcome> o) override { inner_.tell(first, o); }

 private:
  tpe::Sampler& inner_;
  std::uint64_t fail_trial_;
};

class CountingObserver final : public engine::BatchObserver {
 public:
  explicit CountingObserver(std::uint64_t throw_at = UINT64_MAX) : throw_at_(throw_at) {}
  void on_batch(const engine::BatchRequest& r, const engine::BatchResult&, const engine::BatchTimings&) override {
    if (r.batch_index == throw_at_) throw make_error("disk full while writing batch {}", r.batch_index);
    ++told;
  }
  std::uint64_t told = 0;

 private:
  std::uint64_t throw_at_;
};

struct Fixture {
  io::StudyConfig config = testing::functions_config("sphere", 3, -1, 1, 100, 10, 2, 1, "random");
  std::unique_ptr<strategies::Strategy> strategy = engine::make_strategy(config);
  std::unique_ptr<tpe::Sampler> sampler = engine::make_sampler(config);
  engine::CpuExecutor cpu{*strategy, engine::ParamBinding(*strategy, config.space, config.fixed), 1};
  engine::PipelineSettings settings(bool serial, std::size_t depth) const {
    engine::PipelineSettings s;
    s.n_trials = 100;
    s.batch_size = 10;
    s.depth = depth;
    s.serial = serial;
    return s;
  }
};

}  // namespace

TEST_CASE("an executor error at batch k stops the run with that error, an interruption stops it early without it",
          "[cpu][pipeline][errors]") {
  const bool serial = GENERATE(false, true);
  const std::size_t depth = GENERATE(1u, 2u, 3u);
  const std::uint64_t k = GENERATE(0u, 4u, 9u);
  CAPTURE(serial, depth, k);
  Fixture f;
  FailingExecutor executor(f.cpu, k);
  CountingObserver observer;
  REQUIRE_THROWS_WITH(engine::run_pipeline(*f.sampler, executor, 3, f.settings(serial, depth), observer),
                      Catch::Contains(fmt::format("device lost at batch {}", k)));
  // Every batch before k was told, none after.
  REQUIRE(observer.told == k);

  // An executor that abandons batch k (a signal, engine/interrupt.hpp): no error, the run
  // stops early with the batches before k told and batch k not.
  struct InterruptedAt final : engine::Executor {
    engine::Executor* inner = nullptr;
    std::uint64_t at = 0;
    std::string name() const override { return "interrupted"; }
    engine::BatchResult evaluate(const engine::BatchRequest& request) override {
      if (request.batch_index == at) throw engine::Interrupted{};
      return inner->evaluate(request);
    }
  } interrupted;
  Fixture g;
  interrupted.inner = &g.cpu;
  interrupted.at = k;
  CountingObserver stopped;
  const auto summary = engine::run_pipeline(*g.sampler, interrupted, 3, g.settings(serial, depth), stopped);
  CHECK(summary.stopped_early);
  CHECK(summary.batches_told == k);
  CHECK(stopped.told == k);
}

TEST_CASE("the CPU executor abandons its batch once a signal arrived", "[cpu][pipeline][errors]") {
  Fixture f;
  engine::BatchRequest request;
  request.n_trials = 10;
  request.n_axes = 3;
  request.values.assign(30, 0.5);
  CHECK(f.cpu.evaluate(request).n_trials == 10);
  {
    engine::InterruptGuard guard;
    ::raise(SIGINT);  // the guard's handler: the first signal only asks to stop
    CHECK(engine::InterruptGuard::requested());
    CHECK_THROWS_AS(f.cpu.evaluate(request), engine::Interrupted);
  }
  CHECK_FALSE(engine::InterruptGuard::requested());  // forgotten with the guard
  CHECK(f.cpu.evaluate(request).n_trials == 10);
}

TEST_CASE("a sampler error stops the run and the executor thread", "[cpu][pipeline][errors]") {
  const bool serial = GENERATE(false, true);
  const std::size_t depth = GENERATE(1u, 2u);
  CAPTURE(serial, depth);
  Fixture f;
  FailingSampler sampler(*f.sampler, 50);
  CountingObserver observer;
  REQUIRE_THROWS_WITH(engine::run_pipeline(sampler, f.cpu, 3, f.settings(serial, depth), observer),
                      Catch::Contains("sampler broke at trial 50"));
  REQUIRE(observer.told == 6 - depth);  // batches 0 .. 5-D were told before ask(5)
}

TEST_CASE("an observer error (e.g. the disk) stops the run with that error", "[cpu][pipeline][errors]") {
  const bool serial = GENERATE(false, true);
  Fixture f;
  CountingObserver observer(3);
  REQUIRE_THROWS_WITH(engine::run_pipeline(*f.sampler, f.cpu, 3, f.settings(serial, 2), observer),
                      Catch::Contains("disk full while writing batch 3"));
  REQUIRE(observer.told == 3);
}

TEST_CASE("batch and depth of zero are refused", "[cpu][pipeline][errors]") {
  Fixture f;
  CountingObserver observer;
  auto s = f.settings(false, 2);
  s.batch_size = 0;
  REQUIRE_THROWS_WITH(engine::run_pipeline(*f.sampler, f.cpu, 3, s, observer), Catch::Contains("search.batch"));
  s = f.settings(false, 0);
  REQUIRE_THROWS_WITH(engine::run_pipeline(*f.sampler, f.cpu, 3, s, observer), Catch::Contains("search.depth"));
}
