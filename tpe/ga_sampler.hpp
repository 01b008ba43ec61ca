#pragma once
// A genetic sampler: each batch is a generation bred from a pool of the best trials told so
// far. docs/samplers.md states every rule (selection, crossover, mutation per axis kind,
// elitism, the pool under D batches in flight, population 1).
#include <cstdint>
#include <memory>
#include <vector>

#include "tpe/sampler.hpp"
#include "tpe/search_space.hpp"

namespace tpeopt::tpe {

enum class Crossover {
  Uniform,  ///< each gene from either parent with probability 1/2
  Blend,    ///< BLX-alpha on numeric genes (in internal coordinates), uniform on categoricals
};

/// GA settings (`search.ga`); the defaults are docs/samplers.md's.
struct GaConfig {
  /// Size of the breeding pool (the parents). 1 makes the GA a mutation hill-climber.
  std::uint64_t population = 64;
  /// Best members of the old pool that stay in the next one whatever the new generation
  /// scores (0 .. population). population keeps the best `population` ever told.
  std::uint64_t elite = 2;
  /// Pool members drawn (with replacement) per tournament; the best of them is a parent.
  std::uint64_t tournament = 3;
  Crossover crossover = Crossover::Uniform;
  /// Probability that a child has two parents (else it is a copy of one, then mutated).
  double crossover_rate = 0.9;
  /// BLX-alpha's widening of the parents' interval on each side, in its lengths.
  double blend_alpha = 0.5;
  /// Probability that each searched gene is mutated; < 0 means 1 / (searched axes).
  /// Every child has at least one mutated gene.
  double mutation_rate = -1.0;
  /// Mutation's standard deviation as a fraction of each axis' internal range.
  double mutation_scale = 0.1;
};

/// The mutation rate `config` gives on `space`: its own, or 1 / (axes with more than one value).
double effective_mutation_rate(const GaConfig& config, const SearchSpace& space);

/// Throws tpeopt::Error naming the `search.ga` key of the first invalid setting.
void validate(const GaConfig& config);

class GaSampler final : public Sampler {
 public:
  GaSampler(SearchSpace space, Direction direction, std::uint64_t seed, GaConfig config = {});
  ~GaSampler() override;

  std::string name() const override { return "ga"; }
  void ask(std::uint64_t first_trial, std::size_t n, double* out) override;
  void tell(std::uint64_t first_trial, std::span<const TrialOutcome> outcomes) override;
  void adopt(std::uint64_t first_trial, std::size_t n, const double* values) override;

  /// The breeding pool's trial numbers, best first (empty before the first tell).
  std::vector<std::uint64_t> pool_trials() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace tpeopt::tpe
