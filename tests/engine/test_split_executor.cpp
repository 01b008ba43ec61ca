// The executor that spreads each batch over several executors (several GPUs of a
// host): slices are contiguous and sized by speed, results come back in trial order,
// and the run is the same bit for bit whatever the number of children.
#include <catch2/catch.hpp>

#include <condition_variable>
#include <deque>
#include <mutex>
#include <numeric>
#include <thread>

#include "engine/cpu_executor.hpp"
#include "engine/param_binding.hpp"
#include "engine/study_result.hpp"
#include "scaleout/split_executor.hpp"
#include "study/study.hpp"
#include "support/study_fixtures.hpp"

using namespace tpeopt;

namespace {

struct Collect final : engine::BatchObserver {
  explicit Collect(engine::StudyResult& r) : result(r) {}
  void on_batch(const engine::BatchRequest& q, const engine::BatchResult& r, const engine::BatchTimings&) override {
    result.add(q, r);
  }
  engine::StudyResult& result;
};

/// A CPU executor behind a thread of its own, two batches in flight: like a GPU, submit
/// returns at once and oldest_ready() turns true while the caller polls.
class AsyncExecutor final : public engine::Executor {
 public:
  explicit AsyncExecutor(std::unique_ptr<engine::Executor> inner)
      : inner_(std::move(inner)), worker_([this] { loop(); }) {}
  ~AsyncExecutor() override {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    worker_.join();
  }
  std::string name() const override { return "async cpu"; }
  std::size_t max_in_flight() const override { return 2; }
  bool oldest_ready() override {
    std::lock_guard lock(mutex_);
    return !done_.empty();
  }
  void submit(engine::BatchRequest request) override {
    {
      std::lock_guard lock(mutex_);
      todo_.push_back(std::move(request));
    }
    wake_.notify_all();
  }
  engine::BatchResult complete() override {
    std::unique_lock lock(mutex_);
    wake_.wait(lock, [&] { return !done_.empty(); });
    engine::BatchResult r = std::move(done_.front());
    done_.pop_front();
    return r;
  }
  engine::BatchResult evaluate(const engine::BatchRequest& request) override {
    submit(request);
    return complete();
  }

 private:
  void loop() {
    for (;;) {
      engine::BatchRequest request;
      {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, [&] { return stop_ || !todo_.empty(); });
        if (todo_.empty()) return;
        request = std::move(todo_.front());
        todo_.pop_front();
      }
      engine::BatchResult result = inner_->evaluate(request);
      {
        std::lock_guard lock(mutex_);
        done_.push_back(std::move(result));
      }
      wake_.notify_all();
    }
  }
  std::unique_ptr<engine::Executor> inner_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<engine::BatchRequest> todo_;
  std::deque<engine::BatchResult> done_;
  bool stop_ = false;
  std::thread worker_;  // last: starts once the rest is built
};

/// Runs `config` pipelined over `children` CPU executors (1 = a plain CPU executor);
/// `async`: each child behind a thread of its own (AsyncExecutor).
std::string digest_with(const io::StudyConfig& config, std::size_t children, bool serial, bool async = false) {
  auto strategy = engine::make_strategy(config);
  engine::ParamBinding binding(*strategy, config.space, config.fixed);
  std::unique_ptr<engine::Executor> executor;
  if (children == 1) {
    executor = std::make_unique<engine::CpuExecutor>(*strategy, binding, 1);
  } else {
    std::vector<std::unique_ptr<engine::Executor>> cpus;
    for (std::size_t i = 0; i < children; ++i) {
      auto cpu = std::make_unique<engine::CpuExecutor>(*strategy, binding, 1);
      if (async) cpus.push_back(std::make_unique<AsyncExecutor>(std::move(cpu)));
      else cpus.push_back(std::move(cpu));
    }
    executor = std::make_unique<engine::SplitExecutor>(std::move(cpus), "cpu x" + std::to_string(children));
  }
  auto sampler = engine::make_sampler(config);
  engine::StudyResult result(config.space.size(), strategy->metric_names().size(), config.objective.direction, 5,
                             false);
  Collect collect(result);
  engine::PipelineSettings s;
  s.n_trials = config.search.trials;
  s.batch_size = config.search.batch;
  s.depth = config.search.depth;
  s.serial = serial;
  const auto summary = engine::run_pipeline(*sampler, *executor, config.space.size(), s, collect);
  REQUIRE(summary.trials_told == config.search.trials);
  return result.digest_hex();
}

}  // namespace

TEST_CASE("slice sizes follow the speeds, add up, and are contiguous", "[cpu][scale-out]") {
  for (std::size_t n : {0, 1, 2, 7, 100, 4097}) {
    for (const auto& speeds : std::vector<std::vector<double>>{{1.0}, {1.0, 1.0}, {3.0, 1.0}, {0.2, 0.5, 0.3}}) {
      const auto sizes = engine::slice_sizes(n, speeds);
      REQUIRE(sizes.size() == speeds.size());
      REQUIRE(std::accumulate(sizes.begin(), sizes.end(), std::size_t{0}) == n);
      const double total = std::accumulate(speeds.begin(), speeds.end(), 0.0);
      for (std::size_t i = 0; i < sizes.size(); ++i) {
        CAPTURE(n, i);
        REQUIRE(static_cast<double>(sizes[i]) >= static_cast<double>(n) * speeds[i] / total - 1.0);
        REQUIRE(static_cast<double>(sizes[i]) <= static_cast<double>(n) * speeds[i] / total + 1.0);
      }
      REQUIRE(engine::slice_sizes(n, speeds) == sizes);
    }
  }
}

TEST_CASE("a run spread over 1, 2 or 3 executors has the same digest", "[cpu][scale-out][determinism]") {
  // Batches of 100 over 2 or 3 children: the slices, and after the first batches the
  // measured speeds, differ from batch to batch; the results must not.
  const auto tpe = testing::functions_config("styblinski_tang", 6, -5, 5, 700, 100, 2, 41);
  const std::string one = digest_with(tpe, 1, false);
  REQUIRE(digest_with(tpe, 2, false) == one);
  REQUIRE(digest_with(tpe, 3, false) == one);
  REQUIRE(digest_with(tpe, 3, true) == one);
  const auto mixed = testing::mixed_space_config(300, 37, 3, 5);
  REQUIRE(digest_with(mixed, 2, false) == digest_with(mixed, 1, true));
}

TEST_CASE("a run spread over asynchronous executors, two batches in flight, has the same digest",
          "[cpu][scale-out][determinism][pipeline]") {
  // Children that work on threads of their own (as the GPUs do) while the executor thread
  // polls oldest_ready() and the sampler asks ahead: the TSan build runs this one too.
  const auto tpe = testing::functions_config("rastrigin", 5, -5.12, 5.12, 900, 60, 3, 7);
  const std::string one = digest_with(tpe, 1, true);
  REQUIRE(digest_with(tpe, 2, false, true) == one);
  REQUIRE(digest_with(tpe, 3, false, true) == one);
  REQUIRE(digest_with(tpe, 3, true, true) == one);
}
