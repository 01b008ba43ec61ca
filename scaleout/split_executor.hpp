#pragma once
// Several executors as one (several GPUs of a host, or CPU executors in tests): each
// batch is cut into contiguous slices, one per child, sized by each child's measured
// speed; every child works on its slice on its own worker thread, and the results
// are gathered in trial order. A trial's result depends only on its parameters and
// the data (docs/design.md, "Determinism", rule 3), so how a batch is cut never changes a bit:
// a run on 1 or N devices gives the same digest.
#include <cstddef>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "engine/executor.hpp"

namespace tpeopt::engine {

/// Sizes of contiguous slices of n trials proportional to `speeds` (trials per ms; any
/// positive scale). Deterministic; the sizes add up to n.
std::vector<std::size_t> slice_sizes(std::size_t n, const std::vector<double>& speeds);

class SplitExecutor final : public Executor {
 public:
  /// `children` must be non-empty; `label` describes them for logs ("cuda x2").
  SplitExecutor(std::vector<std::unique_ptr<Executor>> children, std::string label);
  ~SplitExecutor() override;

  /// The children's name ("cuda", "cpu"): what a run directory records.
  std::string name() const override { return children_.front()->name(); }
  std::size_t max_in_flight() const override { return in_flight_limit_; }
  bool oldest_ready() override;
  void submit(BatchRequest request) override;
  BatchResult complete() override;
  BatchResult evaluate(const BatchRequest& request) override;

  const std::string& label() const { return label_; }
  /// Current relative speeds (trials per ms of busy time), for logs and benches.
  std::vector<double> speeds() const { return speeds_; }

 private:
  struct Worker;
  std::vector<std::unique_ptr<Executor>> children_;
  std::vector<std::unique_ptr<Worker>> workers_;
  std::string label_;
  std::size_t in_flight_limit_ = 1;
  std::vector<double> speeds_;
  std::deque<std::vector<std::size_t>> slices_;  // per submitted batch: each child's slice size
};

}  // namespace tpeopt::engine
