#include "common/worker_pool.hpp"

#include <algorithm>

#include "common/hardware_threads.hpp"

namespace tpeopt {

namespace {
// Chunk `part` of `parts` over [0, n): the first n % parts chunks get one more item.
std::pair<std::size_t, std::size_t> chunk(std::size_t n, unsigned parts, unsigned part) {
  const std::size_t base = n / parts, extra = n % parts;
  const std::size_t begin = part * base + std::min<std::size_t>(part, extra);
  return {begin, begin + base + (part < extra ? 1 : 0)};
}
}  // namespace

WorkerPool::WorkerPool(unsigned threads) {
  if (threads == 0) threads = usable_hardware_threads();
  for (unsigned i = 1; i < threads; ++i) workers_.emplace_back([this, i] { worker_loop(i); });
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  start_cv_.notify_all();
  for (auto& t : workers_) t.join();
}

void WorkerPool::parallel_for(std::size_t n, const std::function<void(std::size_t, std::size_t)>& body) {
  if (n == 0) return;
  if (workers_.empty() || n == 1) {
    body(0, n);
    return;
  }
  {
    std::lock_guard lock(mutex_);
    body_ = &body;
    n_ = n;
    pending_ = static_cast<unsigned>(workers_.size());
    error_ = nullptr;
    ++generation_;
  }
  start_cv_.notify_all();
  // The calling thread takes chunk 0.
  std::exception_ptr own_error;
  try {
    auto [b, e] = chunk(n, size(), 0);
    if (b < e) body(b, e);
  } catch (...) {
    own_error = std::current_exception();
  }
  std::unique_lock lock(mutex_);
  done_cv_.wait(lock, [this] { return pending_ == 0; });
  body_ = nullptr;
  if (own_error) std::rethrow_exception(own_error);
  if (error_) std::rethrow_exception(error_);
}

void WorkerPool::worker_loop(unsigned index) {
  unsigned seen = 0;
  for (;;) {
    const std::function<void(std::size_t, std::size_t)>* body;
    std::size_t n;
    {
      std::unique_lock lock(mutex_);
      start_cv_.wait(lock, [&] { return stopping_ || generation_ != seen; });
      if (stopping_) return;
      seen = generation_;
      body = body_;
      n = n_;
    }
    std::exception_ptr err;
    try {
      auto [b, e] = chunk(n, size(), index);
      if (b < e) (*body)(b, e);
    } catch (...) {
      err = std::current_exception();
    }
    {
      std::lock_guard lock(mutex_);
      if (err && !error_) error_ = err;
      if (--pending_ == 0) done_cv_.notify_one();
    }
  }
}

}  // namespace tpeopt
