#include "tpe/random_sampler.hpp"

#include "tpe/trial_rng.hpp"

namespace tpeopt::tpe {

RandomSampler::RandomSampler(SearchSpace space, std::uint64_t seed) : space_(std::move(space)), seed_(seed) {}

void RandomSampler::ask(std::uint64_t first_trial, std::size_t n, double* out) {
  const std::size_t d = space_.size();
  for (std::size_t i = 0; i < n; ++i) {
    auto engine = make_trial_engine(seed_, first_trial + i);
    for (std::size_t a = 0; a < d; ++a) out[i * d + a] = sample_uniform(space_.axes[a], engine);
  }
}

}  // namespace tpeopt::tpe
