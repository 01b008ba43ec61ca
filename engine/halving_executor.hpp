#pragma once
// Successive halving inside a batch (docs/user-guide.md, "Successive
// halving"). The data's slices are shuffled once with the study seed; rung r's executor
// evaluates the trials still in the race on the first m * eta^r slices (the last rung on
// every slice); after each rung but the last only the best ceil(n / eta) of the n trials
// evaluated go on (engine/trial_ranking.hpp's order: ties by the lower trial number).
//
// Determinism: which trials survive depends only on the batch's trials and their rung
// results, which depend only on their parameters (docs/design.md, "Determinism", rule 3) - not on
// thread timing - so pipelined == serial and a resumed run replays the same batches. A
// batch's result does depend on the batch's other trials (that is the point of halving),
// so different batch sizes give different runs.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/executor.hpp"
#include "tpe/search_space.hpp"

namespace tpeopt::engine {

/// Keeps objects (the rungs' strategies) alive as long as the executors that use them.
using KeepAlive = std::vector<std::shared_ptr<const void>>;

class HalvingExecutor final : public Executor {
 public:
  /// rungs[r] evaluates a trial on rung r's slices (the last: all of them); eta >= 2.
  HalvingExecutor(std::vector<std::unique_ptr<Executor>> rungs, std::uint64_t eta, tpe::Direction direction,
                  KeepAlive keep_alive = {});
  ~HalvingExecutor() override;

  /// The last rung's executor's name ("cpu", "cuda", ...).
  std::string name() const override { return rungs_.back()->name(); }
  /// result.rung[i]: the last rung trial i was evaluated on; result.n_rungs = rungs.size().
  /// busy_ms: the sum of the rungs' busy times.
  BatchResult evaluate(const BatchRequest& request) override;

  std::size_t n_rungs() const { return rungs_.size(); }

 private:
  KeepAlive keep_alive_;  // declared first: destroyed after the executors
  std::vector<std::unique_ptr<Executor>> rungs_;
  std::uint64_t eta_;
  tpe::Direction direction_;
};

/// Forwards to `inner` and keeps `keep_alive` (the strategy it evaluates) alive with it.
class KeepAliveExecutor final : public Executor {
 public:
  KeepAliveExecutor(std::unique_ptr<Executor> inner, KeepAlive keep_alive)
      : keep_alive_(std::move(keep_alive)), inner_(std::move(inner)) {}
  std::string name() const override { return inner_->name(); }
  std::size_t max_in_flight() const override { return inner_->max_in_flight(); }
  bool oldest_ready() override { return inner_->oldest_ready(); }
  void submit(BatchRequest request) override { inner_->submit(std::move(request)); }
  BatchResult complete() override { return inner_->complete(); }
  BatchResult evaluate(const BatchRequest& request) override { return inner_->evaluate(request); }

 private:
  KeepAlive keep_alive_;
  std::unique_ptr<Executor> inner_;
};

}  // namespace tpeopt::engine
