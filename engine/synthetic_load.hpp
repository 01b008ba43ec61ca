#pragma once
// Synthetic per-batch load on either side of the pipeline, to explore the regimes
// ask < executor, ask = executor and ask > executor with `tpeopt bench`. The load is a
// busy wait (not a sleep), so it behaves like real work on a dedicated core.
#include <memory>

#include "engine/executor.hpp"
#include "tpe/sampler.hpp"

namespace tpeopt::engine {

/// Busy-waits for `ms` milliseconds.
void spin_for_ms(double ms);

/// A sampler whose ask() takes `extra_ms` longer per batch.
class LoadedSampler final : public tpe::Sampler {
 public:
  LoadedSampler(tpe::Sampler& inner, double extra_ms) : inner_(inner), extra_ms_(extra_ms) {}
  std::string name() const override { return inner_.name(); }
  void ask(std::uint64_t first, std::size_t n, double* out) override;
  void tell(std::uint64_t first, std::span<const tpe::TrialOutcome> o) override { inner_.tell(first, o); }
  void adopt(std::uint64_t first, std::size_t n, const double* v) override { inner_.adopt(first, n, v); }

 private:
  tpe::Sampler& inner_;
  double extra_ms_;
};

/// An executor whose batches take `extra_ms` longer, modelling a device that runs
/// batches one after another in FIFO order: batch k starts when it was really started
/// or when the modelled batch k-1 ended, whichever is later, and ends extra_ms after
/// its real busy time; its result is not handed out before that.
class LoadedExecutor final : public Executor {
 public:
  LoadedExecutor(Executor& inner, double extra_ms) : inner_(inner), extra_ms_(extra_ms) {}
  std::string name() const override { return inner_.name(); }
  std::size_t max_in_flight() const override { return inner_.max_in_flight(); }
  bool oldest_ready() override { return inner_.oldest_ready(); }
  void submit(BatchRequest request) override { inner_.submit(std::move(request)); }
  BatchResult complete() override;
  BatchResult evaluate(const BatchRequest& request) override;

 private:
  BatchResult delay(BatchResult r);
  Executor& inner_;
  double extra_ms_;
  Clock::time_point last_end_{};
};

}  // namespace tpeopt::engine
