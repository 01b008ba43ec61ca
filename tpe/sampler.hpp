#pragma once
// The sampler interface the pipeline drives (docs/design.md, "Pipeline protocol").
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "tpe/search_space.hpp"

namespace tpeopt::tpe {

/// Proposes trials and learns from their outcomes.
///
/// Trials are numbered 0, 1, 2, ... and asked in contiguous blocks (one block per
/// batch). ask() and tell() are called from one thread (the sampler thread), in the
/// schedule order of docs/design.md, "Pipeline protocol"; a block may be asked before earlier blocks
/// are told (D batches in flight). The sampler's state changes only through these
/// calls, and each trial draws its random numbers from its own stream
/// (trial_rng.hpp), so the same schedule gives the same trials bit for bit whatever
/// the thread count or timing.
class Sampler {
 public:
  virtual ~Sampler() = default;

  /// Short name for logs ("tpe", "random", "grid", "ga").
  virtual std::string name() const = 0;

  /// Fills out[i * space.size() + a] with the external value of axis a for trial
  /// first_trial + i, i in [0, n). Blocks must be asked in increasing order without gaps.
  virtual void ask(std::uint64_t first_trial, std::size_t n, double* out) = 0;

  /// Reports the outcomes of trials first_trial .. first_trial + outcomes.size() - 1,
  /// a block previously asked. Blocks are told in the order they were asked.
  virtual void tell(std::uint64_t first_trial, std::span<const TrialOutcome> outcomes) = 0;

  /// Resume support: records trials first_trial .. first_trial + n - 1 as asked with
  /// the given external values (from a journal) instead of sampling them, so that a
  /// later tell() of the block works as if ask() had produced them. Same contract on
  /// order as ask(). The default suits samplers that keep no per-trial state.
  virtual void adopt(std::uint64_t first_trial, std::size_t n, const double* values) {
    (void)first_trial, (void)n, (void)values;
  }
};

}  // namespace tpeopt::tpe
