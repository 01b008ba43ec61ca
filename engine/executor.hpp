#pragma once
#include <deque>
#include <string>

#include "engine/messages.hpp"

namespace tpeopt::engine {

/// Evaluates batches of trials. Implementations: the CPU reference (cpu_executor.hpp)
/// and the CUDA executor (gpu/cuda_executor.hpp). All of them give the same bits for
/// the same trial (docs/design.md, "Parity: CPU == CUDA"), whatever the batch it arrives in; the halving
/// executor (halving_executor.hpp), whose rungs depend on the whole batch, is the one
/// exception and says so.
///
/// An executor is driven by one thread (the executor thread, or the sampler thread in
/// serial mode) through submit/complete: submit queues a batch (a GPU starts it at
/// once), complete returns the oldest submitted batch's result, waiting for it.
/// At most max_in_flight() batches are submitted and not yet completed.
class Executor {
 public:
  virtual ~Executor() = default;

  /// "cpu", "cuda", ... for logs and the run's metadata.
  virtual std::string name() const = 0;

  /// How many submitted batches may await completion (1 for synchronous executors).
  virtual std::size_t max_in_flight() const { return 1; }

  /// True when complete() would not wait. Synchronous executors compute inside
  /// complete() and answer true.
  virtual bool oldest_ready() { return true; }

  /// Queues a batch. May start work asynchronously.
  virtual void submit(BatchRequest request) { pending_.push_back(std::move(request)); }

  /// Result of the oldest submitted batch (FIFO). Throws on failure.
  virtual BatchResult complete() {
    BatchRequest request = std::move(pending_.front());
    pending_.pop_front();
    return evaluate(request);
  }

  /// Synchronous evaluation of one batch (used by the default submit/complete).
  virtual BatchResult evaluate(const BatchRequest& request) = 0;

 private:
  std::deque<BatchRequest> pending_;
};

}  // namespace tpeopt::engine
