#include "tpe/ga_sampler.hpp"

#include <algorithm>
#include <cmath>
#include <deque>

#include <boost/random/uniform_01.hpp>
#include <boost/random/uniform_int_distribution.hpp>

#include "common/error.hpp"
#include "tpe/ga_genes.hpp"
#include "tpe/random_sampler.hpp"
#include "tpe/trial_rng.hpp"

namespace tpeopt::tpe {

namespace {

// Stream purposes within one trial (trial_rng.hpp). A trial asked while the pool is empty
// is drawn exactly as RandomSampler draws it (purpose 0, one engine for all axes), so the
// GA's first generations are the random sampler's trials of the same seed. Bred trials use
// their own purpose: a bred trial never shares draws with the random trial of its number.
constexpr std::uint64_t kRandomPurpose = 0;
constexpr std::uint64_t kBreedPurpose = 0x6761ULL << 32;  // "ga"

// A told trial as the pool ranks it.
struct Member {
  std::uint64_t trial = 0;
  double score = 0.0;
  double violation = 0.0;
};

// 0: feasible, 1: infeasible (violation > 0), 2: failed (NaN score). Lower ranks first.
int outcome_class(const Member& m) {
  if (std::isnan(m.score)) return 2;
  return m.violation > 0.0 ? 1 : 0;
}

// Total order of the pool: feasible by score, then infeasible by violation, then failed;
// ties go to the older trial, so the order never depends on how members arrived.
bool ranks_before(const Member& x, const Member& y, Direction direction) {
  const int cx = outcome_class(x), cy = outcome_class(y);
  if (cx != cy) return cx < cy;
  if (cx == 0 && x.score != y.score) return direction == Direction::Minimize ? x.score < y.score : x.score > y.score;
  if (cx == 1 && x.violation != y.violation) return x.violation < y.violation;
  return x.trial < y.trial;
}

double uniform01(TrialEngine& engine) { return boost::random::uniform_01<double>()(engine); }

}  // namespace

double effective_mutation_rate(const GaConfig& config, const SearchSpace& space) {
  if (config.mutation_rate >= 0.0) return config.mutation_rate;
  std::size_t searched = 0;
  for (const Axis& axis : space.axes) searched += ga::Gene::of(axis).searched() ? 1 : 0;
  return 1.0 / static_cast<double>(std::max<std::size_t>(searched, 1));
}

void validate(const GaConfig& c) {
  constexpr std::uint64_t kMaxPopulation = 1ULL << 20;
  if (c.population < 1 || c.population > kMaxPopulation)
    throw make_error("search.ga.population: expected an integer in [1, {}], got {}", kMaxPopulation, c.population);
  if (c.elite > c.population)
    throw make_error("search.ga.elite: expected at most search.ga.population ({}), got {}", c.population, c.elite);
  if (c.tournament < 1 || c.tournament > 1024)
    throw make_error("search.ga.tournament: expected an integer in [1, 1024], got {}", c.tournament);
  if (!(c.crossover_rate >= 0.0 && c.crossover_rate <= 1.0))
    throw make_error("search.ga.crossover_rate: expected a probability in [0, 1], got {}", c.crossover_rate);
  if (!(c.blend_alpha >= 0.0 && c.blend_alpha <= 10.0))
    throw make_error("search.ga.blend_alpha: expected a number in [0, 10], got {}", c.blend_alpha);
  if (std::isnan(c.mutation_rate) || c.mutation_rate > 1.0)
    throw make_error("search.ga.mutation_rate: expected a probability in [0, 1], got {}", c.mutation_rate);
  if (!(c.mutation_scale > 0.0 && c.mutation_scale <= 10.0))
    throw make_error("search.ga.mutation_scale: expected a number in (0, 10], got {}", c.mutation_scale);
}

struct GaSampler::State {
  SearchSpace space;
  Direction direction;
  std::uint64_t seed;
  GaConfig config;
  double mutation_rate;
  std::vector<ga::Gene> genes;        // one per axis
  std::vector<std::size_t> searched;  // indices of the axes with more than one value

  // The breeding pool, best first: members[r] and values[r * d .. r * d + d).
  std::vector<Member> members;
  std::vector<double> values;

  // Asked blocks not yet told, in ask order, with their trials' external values.
  struct Block {
    std::uint64_t first = 0;
    std::size_t n = 0;
    std::vector<double> values;  // [i * d + a]
  };
  std::deque<Block> pending;
  bool asked_any = false;
  std::uint64_t next_trial = 0;

  State(SearchSpace s, Direction dir, std::uint64_t sd, GaConfig cfg)
      : space(std::move(s)), direction(dir), seed(sd), config(cfg), mutation_rate(effective_mutation_rate(cfg, space)) {
    for (std::size_t a = 0; a < space.size(); ++a) {
      genes.push_back(ga::Gene::of(space.axes[a]));
      if (genes.back().searched()) searched.push_back(a);
    }
  }

  std::size_t d() const { return space.size(); }
  std::size_t tournament(TrialEngine& engine) const;
  void breed(std::uint64_t trial, double* child) const;
  void check_next(std::uint64_t first_trial, const char* verb) const;
  void start_block(std::uint64_t first_trial, std::size_t n, const double* values);
  void update_pool(const Block& block, std::span<const RankedOutcome> outcomes);
};

// The best of `tournament` pool members drawn uniformly with replacement. The pool is sorted
// best first, so the best drawn is the smallest rank.
std::size_t GaSampler::State::tournament(TrialEngine& engine) const {
  boost::random::uniform_int_distribution<std::size_t> pick(0, members.size() - 1);
  std::size_t best = pick(engine);
  for (std::uint64_t k = 1; k < config.tournament; ++k) best = std::min(best, pick(engine));
  return best;
}

// One child from its own stream: parent A by tournament; with probability crossover_rate a
// parent B by a second tournament and crossover; then each searched gene mutates with
// probability mutation_rate, and if none did, one searched gene chosen uniformly does.
void GaSampler::State::breed(std::uint64_t trial, double* child) const {
  const std::size_t dim = d();
  TrialEngine engine = make_trial_engine(seed, trial, kBreedPurpose);
  const double* a = &values[tournament(engine) * dim];
  std::copy(a, a + dim, child);
  if (uniform01(engine) < config.crossover_rate) {
    const double* b = &values[tournament(engine) * dim];
    for (std::size_t j : searched) {
      const Axis& axis = space.axes[j];
      if (config.crossover == Crossover::Uniform) child[j] = uniform01(engine) < 0.5 ? a[j] : b[j];
      else child[j] = ga::blend(genes[j], axis, a[j], b[j], config.blend_alpha, engine);
    }
  }
  bool mutated = false;
  for (std::size_t j : searched) {
    if (uniform01(engine) < mutation_rate) {
      child[j] = ga::mutate(genes[j], space.axes[j], child[j], config.mutation_scale, engine);
      mutated = true;
    }
  }
  if (!mutated && !searched.empty()) {
    // Without this, about 37% of children ((1 - 1/d)^d at the default rate 1/d) would carry
    // only their parents' values, often exactly one parent: a trial spent on a known score.
    const std::size_t j =
        searched[boost::random::uniform_int_distribution<std::size_t>(0, searched.size() - 1)(engine)];
    child[j] = ga::mutate(genes[j], space.axes[j], child[j], config.mutation_scale, engine);
  }
}

void GaSampler::State::check_next(std::uint64_t first_trial, const char* verb) const {
  if (asked_any && first_trial != next_trial)
    throw make_error("ga sampler: {} of trials {}.. out of order (expected trial {} next)", verb, first_trial,
                     next_trial);
}

void GaSampler::State::start_block(std::uint64_t first_trial, std::size_t n, const double* block_values) {
  pending.push_back({first_trial, n, std::vector<double>(block_values, block_values + n * d())});
  asked_any = true;
  next_trial = first_trial + n;
}

// The next pool: the new generation and the old pool's `elite` best compete for the
// `population` places; places they leave empty (a generation smaller than the pool) go to
// the rest of the old pool, best first.
void GaSampler::State::update_pool(const Block& block, std::span<const RankedOutcome> outcomes) {
  const std::size_t dim = d();
  struct Candidate {
    Member member;
    const double* values;
  };
  std::vector<Candidate> contenders;
  contenders.reserve(block.n + config.elite);
  for (std::size_t i = 0; i < block.n; ++i)
    contenders.push_back({{block.first + i, outcomes[i].score, outcomes[i].violation}, &block.values[i * dim]});
  const std::size_t n_elite = std::min<std::size_t>(config.elite, members.size());
  for (std::size_t r = 0; r < n_elite; ++r) contenders.push_back({members[r], &values[r * dim]});
  auto better = [&](const Candidate& x, const Candidate& y) { return ranks_before(x.member, y.member, direction); };
  const std::size_t population = static_cast<std::size_t>(config.population);
  const std::size_t kept = std::min(population, contenders.size());
  std::partial_sort(contenders.begin(), contenders.begin() + static_cast<std::ptrdiff_t>(kept), contenders.end(),
                    better);
  contenders.resize(kept);
  for (std::size_t r = n_elite; r < members.size() && contenders.size() < population; ++r)
    contenders.push_back({members[r], &values[r * dim]});
  std::sort(contenders.begin(), contenders.end(), better);

  std::vector<Member> next_members(contenders.size());
  std::vector<double> next_values(contenders.size() * dim);
  for (std::size_t r = 0; r < contenders.size(); ++r) {
    next_members[r] = contenders[r].member;
    std::copy(contenders[r].values, contenders[r].values + dim, &next_values[r * dim]);
  }
  members.swap(next_members);
  values.swap(next_values);
}

GaSampler::GaSampler(SearchSpace space, Direction direction, std::uint64_t seed, GaConfig config) {
  space.validate();
  validate(config);
  state_ = std::make_unique<State>(std::move(space), direction, seed, config);
}

GaSampler::~GaSampler() = default;

void GaSampler::ask(std::uint64_t first_trial, std::size_t n, double* out) {
  State& s = *state_;
  s.check_next(first_trial, "ask");
  if (n == 0) return;
  const std::size_t d = s.d();
  for (std::size_t i = 0; i < n; ++i) {
    double* row = out + i * d;
    if (s.members.empty()) {
      // Nothing told yet (the first D generations): the random sampler's trial.
      TrialEngine engine = make_trial_engine(s.seed, first_trial + i, kRandomPurpose);
      for (std::size_t a = 0; a < d; ++a) row[a] = sample_uniform(s.space.axes[a], engine);
    } else {
      s.breed(first_trial + i, row);
    }
  }
  s.start_block(first_trial, n, out);
}

void GaSampler::adopt(std::uint64_t first_trial, std::size_t n, const double* values) {
  State& s = *state_;
  s.check_next(first_trial, "adopt");
  if (n == 0) return;
  s.space.check_rows("ga sampler: adopt", first_trial, n, values);
  s.start_block(first_trial, n, values);
}

void GaSampler::tell(std::uint64_t first_trial, std::span<const TrialOutcome> outcomes) {
  State& s = *state_;
  if (outcomes.empty()) return;
  if (s.pending.empty())
    throw make_error("ga sampler: tell of trials {}..{} that were not asked", first_trial,
                     first_trial + outcomes.size() - 1);
  const State::Block& block = s.pending.front();
  if (block.first != first_trial || block.n != outcomes.size())
    throw make_error(
        "ga sampler: tell of trials {}..{} does not match the oldest asked block (trials {}..{}); blocks are told in "
        "the order they were asked",
        first_trial, first_trial + outcomes.size() - 1, block.first, block.first + block.n - 1);
  const std::vector<RankedOutcome> told = ranked(outcomes, s.direction);
  for (std::size_t i = 0; i < told.size(); ++i)
    if (std::isnan(told[i].violation))
      throw make_error("ga sampler: trial {}: constraint violation is NaN", first_trial + i);
  s.update_pool(block, told);
  s.pending.pop_front();
}

std::vector<std::uint64_t> GaSampler::pool_trials() const {
  std::vector<std::uint64_t> trials;
  for (const Member& m : state_->members) trials.push_back(m.trial);
  return trials;
}

}  // namespace tpeopt::tpe
