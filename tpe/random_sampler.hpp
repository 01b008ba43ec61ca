#pragma once
#include "tpe/sampler.hpp"
#include "tpe/search_space.hpp"

namespace tpeopt::tpe {

/// Draws one value of `axis` uniformly (in log space for log axes; uniformly over the
/// grid points of stepped and int axes; uniformly over the choices of categoricals).
/// This is also TPE's startup sampler.
template <typename Engine>
double sample_uniform(const Axis& axis, Engine& engine);

/// Independent uniform sampling of every axis from each trial's own stream.
class RandomSampler final : public Sampler {
 public:
  RandomSampler(SearchSpace space, std::uint64_t seed);
  std::string name() const override { return "random"; }
  void ask(std::uint64_t first_trial, std::size_t n, double* out) override;
  void tell(std::uint64_t, std::span<const TrialOutcome>) override {}

 private:
  SearchSpace space_;
  std::uint64_t seed_;
};

}  // namespace tpeopt::tpe

#include "tpe/random_sampler_impl.hpp"
