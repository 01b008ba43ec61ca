#include "scaleout/split_executor.hpp"

#include <algorithm>
#include <condition_variable>
#include <functional>
#include <future>
#include <mutex>
#include <numeric>
#include <thread>

#include "common/error.hpp"

namespace tpeopt::engine {

std::vector<std::size_t> slice_sizes(std::size_t n, const std::vector<double>& speeds) {
  const double total = std::accumulate(speeds.begin(), speeds.end(), 0.0);
  std::vector<std::size_t> sizes(speeds.size(), 0);
  std::size_t given = 0;
  for (std::size_t i = 0; i < speeds.size(); ++i) {
    sizes[i] = total > 0 ? static_cast<std::size_t>(static_cast<double>(n) * (speeds[i] / total)) : 0;
    given += sizes[i];
  }
  // The rounding remainder (fewer than one trial per child) goes to the fastest children.
  std::vector<std::size_t> order(speeds.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return speeds[a] > speeds[b]; });
  for (std::size_t k = 0; given < n; k = (k + 1) % order.size(), ++given) ++sizes[order[k]];
  return sizes;
}

/// One thread per child: runs the child's submit/complete, so that devices are fed
/// and drained in parallel (host staging and result copies included).
struct SplitExecutor::Worker {
  Worker() : thread([this] { loop(); }) {}
  ~Worker() {
    {
      std::lock_guard lock(mutex);
      done = true;
    }
    wake.notify_one();
    thread.join();
  }
  template <typename F>
  auto post(F f) -> std::future<decltype(f())> {
    auto task = std::make_shared<std::packaged_task<decltype(f())()>>(std::move(f));
    auto result = task->get_future();
    {
      std::lock_guard lock(mutex);
      tasks.emplace_back([task] { (*task)(); });
    }
    wake.notify_one();
    return result;
  }

 private:
  void loop() {
    for (;;) {
      std::function<void()> task;
      {
        std::unique_lock lock(mutex);
        wake.wait(lock, [&] { return done || !tasks.empty(); });
        if (tasks.empty()) return;
        task = std::move(tasks.front());
        tasks.pop_front();
      }
      task();
    }
  }
  std::mutex mutex;
  std::condition_variable wake;
  std::deque<std::function<void()>> tasks;
  bool done = false;
  std::thread thread;  // last: starts once the rest is built
};

SplitExecutor::SplitExecutor(std::vector<std::unique_ptr<Executor>> children, std::string label)
    : children_(std::move(children)), label_(std::move(label)) {
  if (children_.empty()) throw make_error("executor: no device to run on");
  in_flight_limit_ = children_.front()->max_in_flight();
  for (const auto& c : children_) {
    in_flight_limit_ = std::min(in_flight_limit_, c->max_in_flight());
    workers_.push_back(std::make_unique<Worker>());
  }
  speeds_.assign(children_.size(), 1.0);  // equal until measured
}

SplitExecutor::~SplitExecutor() {
  workers_.clear();  // join before the children go
}

bool SplitExecutor::oldest_ready() {
  if (slices_.empty()) return true;
  const auto& sizes = slices_.front();
  for (std::size_t i = 0; i < children_.size(); ++i)
    if (sizes[i] > 0 && !children_[i]->oldest_ready()) return false;
  return true;
}

void SplitExecutor::submit(BatchRequest request) {
  std::vector<std::size_t> sizes = slice_sizes(request.n_trials, speeds_);
  std::vector<std::future<void>> posted;
  std::size_t first = 0;
  for (std::size_t i = 0; i < children_.size(); ++i) {
    if (sizes[i] == 0) continue;
    BatchRequest slice;
    slice.batch_index = request.batch_index;
    slice.first_trial = request.first_trial + first;
    slice.n_trials = sizes[i];
    slice.n_axes = request.n_axes;
    slice.values.assign(request.values.begin() + static_cast<std::ptrdiff_t>(first * request.n_axes),
                        request.values.begin() + static_cast<std::ptrdiff_t>((first + sizes[i]) * request.n_axes));
    first += sizes[i];
    Executor* child = children_[i].get();
    posted.push_back(workers_[i]->post([child, s = std::move(slice)]() mutable { child->submit(std::move(s)); }));
  }
  // Every child's submit has returned before the next call touches any child.
  std::exception_ptr error;
  for (auto& f : posted) try {
      f.get();
    } catch (...) {
      if (!error) error = std::current_exception();
    }
  slices_.push_back(std::move(sizes));
  if (error) std::rethrow_exception(error);
}

BatchResult SplitExecutor::complete() {
  const std::vector<std::size_t> sizes = std::move(slices_.front());
  slices_.pop_front();
  std::vector<std::future<BatchResult>> parts(children_.size());
  for (std::size_t i = 0; i < children_.size(); ++i)
    if (sizes[i] > 0) parts[i] = workers_[i]->post([c = children_[i].get()] { return c->complete(); });

  BatchResult out;
  std::exception_ptr error;
  bool first_part = true;
  std::vector<double> rates(children_.size(), 0.0);
  bool measured = true;
  for (std::size_t i = 0; i < children_.size(); ++i) {
    if (sizes[i] == 0) {
      measured = false;
      continue;
    }
    BatchResult r;
    try {
      r = parts[i].get();
    } catch (...) {
      if (!error) error = std::current_exception();
      continue;
    }
    if (first_part) {
      out.batch_index = r.batch_index;
      out.first_trial = r.first_trial;
      out.n_metrics = r.n_metrics;
      out.timings = r.timings;
      out.timings.sm_busy_ms = out.timings.sm_span_ms = out.timings.sm_new_span_ms = out.timings.sm_union_busy_ms = 0.0;  // added below, as every device's
      first_part = false;
    }
    out.n_trials += r.n_trials;
    out.scores.insert(out.scores.end(), r.scores.begin(), r.scores.end());
    out.violations.insert(out.violations.end(), r.violations.begin(), r.violations.end());
    out.metrics.insert(out.metrics.end(), r.metrics.begin(), r.metrics.end());
    out.timings.begin = std::min(out.timings.begin, r.timings.begin);
    out.timings.end = std::max(out.timings.end, r.timings.end);
    out.timings.busy_ms = std::max(out.timings.busy_ms, r.timings.busy_ms);
    out.timings.sm_busy_ms += r.timings.sm_busy_ms;
    out.timings.sm_span_ms += r.timings.sm_span_ms;
    out.timings.sm_new_span_ms += r.timings.sm_new_span_ms;
    out.timings.sm_union_busy_ms += r.timings.sm_union_busy_ms;
    if (r.timings.busy_ms > 0 && r.n_trials >= 64) rates[i] = static_cast<double>(r.n_trials) / r.timings.busy_ms;
    else measured = false;
  }
  if (error) std::rethrow_exception(error);
  // Measured speeds, normalized and smoothed: the next batches' slices follow them.
  // They shape only the cut, never a result. Batches too small to time well (or that
  // left a child idle) teach nothing.
  if (measured && children_.size() > 1) {
    const double rate_sum = std::accumulate(rates.begin(), rates.end(), 0.0);
    const double speed_sum = std::accumulate(speeds_.begin(), speeds_.end(), 0.0);
    for (std::size_t i = 0; i < speeds_.size(); ++i)
      speeds_[i] = 0.5 * speeds_[i] / speed_sum + 0.5 * rates[i] / rate_sum;
  }
  return out;
}

BatchResult SplitExecutor::evaluate(const BatchRequest& request) {
  submit(request);
  return complete();
}

}  // namespace tpeopt::engine
