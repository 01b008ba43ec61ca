#include "engine/pipeline.hpp"

#include <algorithm>
#include <deque>
#include <thread>

#include <readerwriterqueue/readerwriterqueue.h>  // for moodycamel::BlockingReaderWriterQueue (SPSC)

#include "common/error.hpp"
#include "engine/interrupt.hpp"

namespace tpeopt::engine {

namespace {

double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

/// Moves batches between the schedule (on the sampler thread) and the executor.
class Driver {
 public:
  virtual ~Driver() = default;
  /// Hands batch k to the executor side.
  virtual void send(BatchRequest request) = 0;
  /// The result of the oldest batch sent and not yet received.
  virtual BatchResult receive() = 0;
  /// Normal end: no more batches.
  virtual void finish() = 0;
};

/// Serial mode: the executor runs on the sampler thread, at the point of the schedule
/// where the result is awaited.
class SerialDriver final : public Driver {
 public:
  explicit SerialDriver(Executor& executor) : executor_(executor) {}
  void send(BatchRequest request) override { pending_.push_back(std::move(request)); }
  BatchResult receive() override {
    TPEOPT_ASSERT(!pending_.empty(), "receive without a batch sent");
    executor_.submit(std::move(pending_.front()));
    pending_.pop_front();
    return executor_.complete();
  }
  void finish() override {}

 private:
  Executor& executor_;
  std::deque<BatchRequest> pending_;
};

/// Pipelined mode: an executor thread fed through moodycamel's blocking SPSC queues.
/// The thread owns the executor while the driver lives (a CUDA executor's context is
/// used from this thread only).
class ThreadedDriver final : public Driver {
 public:
  explicit ThreadedDriver(Executor& executor) : executor_(executor), thread_([this] { executor_loop(); }) {}

  ~ThreadedDriver() override {
    if (thread_.joinable()) {
      to_executor_.enqueue(ToExecutor{ToExecutor::Kind::StopNow, {}});
      thread_.join();
    }
  }

  void send(BatchRequest request) override {
    to_executor_.enqueue(ToExecutor{ToExecutor::Kind::Batch, std::move(request)});
  }

  BatchResult receive() override {
    FromExecutor message;
    from_executor_.wait_dequeue(message);
    if (message.error) std::rethrow_exception(message.error);
    return std::move(message.result);
  }

  void finish() override {
    to_executor_.enqueue(ToExecutor{ToExecutor::Kind::EndOfStream, {}});
    thread_.join();
  }

 private:
  // Runs on the executor thread. Keeps up to max_in_flight batches submitted; while a
  // batch runs on an asynchronous executor it polls for the next request so that the
  // device gets it the moment it is asked, not when the running batch is collected.
  void executor_loop() {
    try {
      std::size_t in_flight = 0;
      bool end_of_stream = false;
      const std::size_t max_in_flight = std::max<std::size_t>(1, executor_.max_in_flight());
      for (;;) {
        if (!end_of_stream && in_flight < max_in_flight) {
          ToExecutor message;
          bool got = false;
          if (in_flight == 0) {
            to_executor_.wait_dequeue(message);
            got = true;
          } else {
            got = to_executor_.wait_dequeue_timed(message, std::chrono::microseconds(20));
          }
          if (got) {
            if (message.kind == ToExecutor::Kind::StopNow) return;
            if (message.kind == ToExecutor::Kind::EndOfStream) {
              end_of_stream = true;
            } else {
              executor_.submit(std::move(message.request));
              ++in_flight;
            }
            continue;
          }
          if (!executor_.oldest_ready()) continue;
        }
        if (in_flight == 0) {
          if (end_of_stream) return;
          continue;
        }
        BatchResult result = executor_.complete();
        --in_flight;
        from_executor_.enqueue(FromExecutor{std::move(result), nullptr});
      }
    } catch (...) {
      from_executor_.enqueue(FromExecutor{{}, std::current_exception()});
    }
  }

  Executor& executor_;
  moodycamel::BlockingReaderWriterQueue<ToExecutor> to_executor_;
  moodycamel::BlockingReaderWriterQueue<FromExecutor> from_executor_;
  std::thread thread_;  // last member: started after the queues exist
};

}  // namespace

tpe::TrialOutcome told_outcome(const BatchResult& result, std::size_t i) {
  tpe::TrialOutcome o{result.scores[i], result.violations[i]};
  if (!result.rung.empty()) {
    o.state = result.pruned(i) ? tpe::TrialState::Pruned : tpe::TrialState::Complete;
    o.rung = result.rung[i];
  }
  return o;
}

std::uint64_t batch_count(std::uint64_t n_trials, std::size_t batch_size) {
  TPEOPT_ASSERT(batch_size > 0, "batch size must be positive");
  return (n_trials + batch_size - 1) / batch_size;
}

PipelineSummary run_pipeline(tpe::Sampler& sampler, Executor& executor, std::size_t n_axes,
                             const PipelineSettings& settings, BatchObserver& observer) {
  if (settings.batch_size == 0) throw make_error("search.batch: must be at least 1");
  if (settings.depth == 0) throw make_error("search.depth: must be at least 1");
  const std::uint64_t n_batches = batch_count(settings.n_trials, settings.batch_size);
  const std::uint64_t n_replayed = settings.replay.size();
  TPEOPT_ASSERT(n_replayed <= n_batches, "more replayed batches than the study has");

  const Clock::time_point start = Clock::now();
  PipelineSummary summary;
  ExecutorTimeline timeline(start);

  std::unique_ptr<Driver> driver;
  if (settings.serial) driver = std::make_unique<SerialDriver>(executor);
  else driver = std::make_unique<ThreadedDriver>(executor);

  // Requests asked and not yet told, oldest first, with their ask intervals.
  struct Asked {
    BatchRequest request;
    Interval ask;
  };
  std::deque<Asked> asked;

  auto issue = [&](std::uint64_t k) {
    BatchRequest request;
    request.batch_index = k;
    request.first_trial = k * settings.batch_size;
    request.n_trials =
        static_cast<std::size_t>(std::min<std::uint64_t>(settings.batch_size, settings.n_trials - request.first_trial));
    request.n_axes = n_axes;
    Interval ask;
    ask.begin = Clock::now();
    if (k < n_replayed) {
      const BatchRequest& journaled = settings.replay[k].request;
      TPEOPT_ASSERT(journaled.first_trial == request.first_trial && journaled.n_trials == request.n_trials &&
                        journaled.n_axes == n_axes,
                    "replayed batch does not match the schedule");
      request.values = journaled.values;
      sampler.adopt(request.first_trial, request.n_trials, request.values.data());
    } else {
      request.values.resize(request.n_trials * n_axes);
      sampler.ask(request.first_trial, request.n_trials, request.values.data());
    }
    ask.end = Clock::now();
    if (k >= n_replayed) driver->send(request);  // a copy: the observer needs the values after the tell
    asked.push_back({std::move(request), ask});
  };

  const std::uint64_t primed = std::min<std::uint64_t>(settings.depth, n_batches);
  for (std::uint64_t k = 0; k < primed; ++k) issue(k);

  std::vector<tpe::TrialOutcome> outcomes;
  for (std::uint64_t k = 0; k < n_batches; ++k) {
    Asked current = std::move(asked.front());
    asked.pop_front();
    const bool replayed = k < n_replayed;
    BatchResult result;
    try {
      result = replayed ? settings.replay[k].result : driver->receive();
    } catch (const Interrupted&) {
      summary.stopped_early = true;  // the executor abandoned batch k: it is not told
      break;
    }
    TPEOPT_ASSERT(result.batch_index == k && result.n_trials == current.request.n_trials,
                  "executor returned batches out of order");

    outcomes.resize(result.n_trials);
    for (std::size_t i = 0; i < result.n_trials; ++i) outcomes[i] = told_outcome(result, i);
    Interval tell;
    tell.begin = Clock::now();
    sampler.tell(current.request.first_trial, outcomes);
    tell.end = Clock::now();

    BatchTimings t;
    t.batch_index = k;
    t.first_trial = current.request.first_trial;
    t.n_trials = current.request.n_trials;
    t.ask = current.ask;
    t.tell = tell;
    t.replayed = replayed;
    t.ask_ms = current.ask.ms();
    t.tell_ms = tell.ms();
    if (!replayed) {
      t.exec = {result.timings.begin, result.timings.end};
      t.busy_ms = result.timings.busy_ms;
      // A batch that overlaps earlier ones on the device counts only the time it adds, so
      // that the run's exec_ms is the device's busy time (batch_timings.hpp).
      const double added = timeline.add(t.exec);
      t.exec_ms = added < t.exec.ms() ? std::max(0.0, t.busy_ms - (t.exec.ms() - added)) : t.busy_ms;
      t.idle_ms = timeline.idle_before_last_ms();
      t.overlap_ms = timeline.covered_ms(current.ask);
      t.sm_busy_ms = result.timings.sm_busy_ms;
      t.sm_span_ms = result.timings.sm_span_ms;
      t.device_occupancy = occupancy_fraction(t.sm_busy_ms, t.sm_span_ms);
    }
    t.wall_ms = ms_between(start, Clock::now());

    summary.batches_told += 1;
    summary.trials_told += result.n_trials;
    summary.ask_ms += t.ask_ms;
    summary.exec_ms += t.exec_ms;
    summary.tell_ms += t.tell_ms;
    summary.overlap_ms += t.overlap_ms;
    summary.idle_ms += t.idle_ms;
    if (!replayed) {
      summary.sm_busy_ms += result.timings.sm_union_busy_ms;
      summary.sm_span_ms += result.timings.sm_new_span_ms;
    }

    // ask(k+D) goes to the executor before batch k is recorded: the record (the journal's
    // fsync, trials.csv) takes milliseconds in which the device would otherwise wait for
    // its next batch (docs/design.md, "Pipeline protocol"). The order changes no result:
    // ask(k+D) depends on the tells, not on the record. A batch told to the sampler is
    // recorded even when the ask after it fails.
    const bool stopping = observer.stop_requested() && k + 1 < n_batches;
    if (!stopping && k + settings.depth < n_batches) {
      try {
        issue(k + settings.depth);
      } catch (...) {
        observer.on_batch(current.request, result, t);
        throw;
      }
    }
    observer.on_batch(current.request, result, t);

    if ((stopping || observer.stop_requested()) && k + 1 < n_batches) {
      summary.stopped_early = true;
      break;  // the driver's destructor drops the batches in flight
    }
  }
  if (!summary.stopped_early) driver->finish();
  driver.reset();
  summary.wall_ms = ms_between(start, Clock::now());
  return summary;
}

}  // namespace tpeopt::engine
