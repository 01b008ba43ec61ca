#pragma once
// Batch TPE: the default TPE of tpeopt, built for batches of hundreds to thousands of trials
// and budgets of 10^4 to 10^6 (docs/tpe.md, "Batch TPE", states every rule; the quality
// benchmark that chose it is docs/benchmarks.md, "Search quality").
//
// Each ask takes the good set (the best trials so far, a tenth of the batch or at least 25)
// and draws every trial from one of three shapes of l's Parzen estimator (good_set_model.hpp)
// or, when the evolve operator is on, from a search distribution that persists across
// batches (search_distribution.hpp); marginal and recombine trials are the best of a few
// candidates by log l(x) - log g(x), joint and evolve trials a single draw (screening.hpp).
// How many trials each operator proposes follows, batch by batch, how many of its trials
// entered the good set. Every trial draws from its own stream, and the shares, the good set and the
// tables change only in tell(), so a pipelined run equals the serial one.
#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "tpe/batch_tpe_config.hpp"
#include "tpe/sampler.hpp"
#include "tpe/search_distribution.hpp"
#include "tpe/search_space.hpp"

namespace tpeopt::tpe {

class BatchTpeSampler final : public Sampler {
 public:
  BatchTpeSampler(SearchSpace space, Direction direction, std::uint64_t seed, BatchTpeConfig config = {});
  ~BatchTpeSampler() override;

  std::string name() const override { return "tpe"; }
  void ask(std::uint64_t first_trial, std::size_t n, double* out) override;
  void tell(std::uint64_t first_trial, std::span<const TrialOutcome> outcomes) override;
  void adopt(std::uint64_t first_trial, std::size_t n, const double* values) override;

  /// Share of the next batch each proposal operator gets (ProposalOperator's order; 0 for
  /// one not in use).
  std::array<double, kOperators> shares() const;
  /// The joint kernel's step size (1 unless search.tpe.joint_success_target is set).
  double joint_step() const;
  /// The evolve operator's search distribution (null before the model starts or without
  /// the operator).
  const SearchDistribution* evolve_distribution() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

/// Throws tpeopt::Error naming the search.tpe key of the first setting out of its range.
void validate(const BatchTpeConfig& config);

}  // namespace tpeopt::tpe
