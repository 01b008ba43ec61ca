#pragma once
// A fixed set of worker threads that run one data-parallel loop at a time.
//
// parallel_for splits [0, n) into contiguous chunks, one per worker, runs them and
// waits; the first exception thrown by any chunk is re-thrown on the caller's thread.
// Results must not depend on how [0, n) is split (callers write only to slots owned
// by their indices): that is what keeps runs identical for every thread count.
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace tpeopt {

class WorkerPool {
 public:
  /// threads == 0 means usable_hardware_threads() (common/hardware_threads.hpp); threads == 1 runs inline.
  explicit WorkerPool(unsigned threads = 0);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  unsigned size() const { return static_cast<unsigned>(workers_.size()) + 1; }

  /// Runs body(begin, end) over contiguous chunks covering [0, n). Blocks until done.
  /// Call from one thread at a time (the pool's owner).
  void parallel_for(std::size_t n, const std::function<void(std::size_t, std::size_t)>& body);

 private:
  void worker_loop(unsigned index);

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable start_cv_;
  std::condition_variable done_cv_;
  const std::function<void(std::size_t, std::size_t)>* body_ = nullptr;
  std::size_t n_ = 0;
  unsigned generation_ = 0;
  unsigned pending_ = 0;
  bool stopping_ = false;
  std::exception_ptr error_;
};

}  // namespace tpeopt
