#include "tpe/batch_tpe_sampler.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <deque>
#include <limits>
#include <optional>
#include <unordered_set>
#include <vector>

#include <boost/random/uniform_01.hpp>

#include "common/error.hpp"
#include "common/worker_pool.hpp"
#include "tpe/density_ratio.hpp"
#include "tpe/good_pool.hpp"
#include "tpe/good_set_model.hpp"
#include "tpe/random_sampler.hpp"
#include "tpe/recent_rows.hpp"
#include "tpe/screening.hpp"
#include "tpe/trial_rng.hpp"
#include "tpe/unit_space.hpp"

namespace tpeopt::tpe {

namespace {

// Stream purposes within one trial (trial_rng.hpp). Random (startup) trials are the random
// sampler's trials of the same seed; modelled trials draw from their own purpose.
constexpr std::uint64_t kRandomPurpose = 0;
constexpr std::uint64_t kModelPurpose = 0x6274ULL << 32;  // "bt"
// The evolve distribution's restart means: the stream of (seed, restart number, this purpose).
constexpr std::uint64_t kRestartPurpose = 0x6276ULL << 32;  // "bv"

// g is built from the last kRecentBatches batches' trials (at most kMaxRecent) that are not
// in the good set.
constexpr std::size_t kRecentBatches = 4;
constexpr std::size_t kMaxRecent = 8192;

constexpr int kRandom = -1;  // a block's operator code for its random trials

// Distinct trials: the redraws of a repeated row (round r draws from purpose kDistinctPurpose + r:
// from its operator in the first kDistinctRedraws rounds, at random in the kDistinctRandom
// after); rounds of fewer than kDistinctInline repeats run on the asking thread.
constexpr std::uint64_t kDistinctPurpose = 0x6264ULL << 32;  // "bd"
constexpr int kDistinctRedraws = 8;
constexpr int kDistinctRandom = 8;
constexpr std::size_t kDistinctInline = 64;

// The joint step size's range (joint_success_target).
constexpr double kMinJointStep = 1e-3;
constexpr double kMaxJointStep = 4.0;

}  // namespace

void validate(const BatchTpeConfig& c) {
  if (c.n_startup_trials < 0)
    throw make_error("search.tpe.n_startup_trials: expected an integer >= 0, got {}", c.n_startup_trials);
  if (!(c.good_fraction > 0.0 && c.good_fraction <= 1.0))
    throw make_error("search.tpe.good_fraction: expected a number in (0, 1], got {}", c.good_fraction);
  if (c.min_good < 2 || c.min_good > (1 << 20))
    throw make_error("search.tpe.min_good: expected an integer in [2, {}], got {}", 1 << 20, c.min_good);
  if (c.candidates < 1 || c.candidates > 1024)
    throw make_error("search.tpe.n_ei_candidates: expected an integer in [1, 1024], got {}", c.candidates);
  const int used = static_cast<int>(std::count(c.operators.begin(), c.operators.end(), true));
  if (used == 0) throw make_error("search.tpe.operators: expected at least one of joint, marginal, recombine, evolve");
  if (!(c.joint_success_target >= 0.0 && c.joint_success_target < 1.0))
    throw make_error("search.tpe.joint_success_target: expected a number in [0, 1), got {}", c.joint_success_target);
  if (!(c.min_share >= 0.0 && c.min_share * used <= 1.0))
    throw make_error("search.tpe.min_share: expected a number in [0, 1/{}] ({} operators), got {}", used, used,
                     c.min_share);
}

struct BatchTpeSampler::State {
  SearchSpace space;
  Direction direction;
  std::uint64_t seed;
  BatchTpeConfig config;
  UnitSpace unit;
  GoodPool pool;
  WorkerPool workers;
  std::array<double, kOperators> shares{};  // 0 for an operator not in use
  std::uint64_t n_told = 0;                 // told, non-failed trials
  double joint_step = 1.0;                  // the joint kernel's step size (joint_success_target)
  // The evolve operator: its distribution (made when the model starts) and the best of its
  // trials since its last (re)start.
  std::optional<SearchDistribution> evolve;
  std::optional<RankedTrial> evolve_best;
  // The rows asked most recently (distinct trials), recorded in trial order.
  RecentRows recent_rows;

  // Asked blocks not yet told, in ask order.
  struct Block {
    std::uint64_t first = 0;
    std::size_t n = 0;
    std::vector<double> codes;                               // [i * n_codes + c]
    std::vector<int> ops;                                    // per trial: ProposalOperator, or kRandom
    std::shared_ptr<const SearchDistribution::Frame> frame;  // what its evolve trials drew from
  };
  std::deque<Block> pending;
  bool asked_any = false;
  std::uint64_t next_trial = 0;

  State(SearchSpace s, Direction dir, std::uint64_t sd, BatchTpeConfig cfg)
      : space(std::move(s)), direction(dir), seed(sd), config(cfg), unit(space), pool(unit.n_codes(), dir),
        workers(cfg.threads), recent_rows(cfg.distinct_window) {
    validate(config);
    // Evolve draws numeric codes only: listed, it is refused on a space without them; as part of
    // the default set it is left out there and the other three run.
    if (evolving() && numeric_count() == 0) {
      if (config.operators_listed)
        throw make_error("search.tpe.operators: \"evolve\" draws the numeric axes, and no searched axis is numeric");
      config.operators[static_cast<std::size_t>(ProposalOperator::Evolve)] = false;
    }
    // The Parzen operators share the first batches evenly; evolve, when on with others, starts
    // at min_share and earns more only as its trials enter the good set (a distribution that
    // starts wide wastes a large share of the few batches of a small budget).
    const auto evolve_index = static_cast<std::size_t>(ProposalOperator::Evolve);
    const bool evolve_with_others = config.operators[evolve_index] && n_used() > 1;
    const double evolve_share = evolve_with_others ? config.min_share : 0.0;
    const double others = static_cast<double>(n_used() - (evolve_with_others ? 1 : 0));
    for (std::size_t o = 0; o < kOperators; ++o)
      shares[o] = !config.operators[o]                      ? 0.0
                  : o == evolve_index && evolve_with_others ? evolve_share
                                                            : (1.0 - evolve_share) / others;
  }

  std::size_t n_used() const {
    return static_cast<std::size_t>(std::count(config.operators.begin(), config.operators.end(), true));
  }

  std::size_t good_size_for(std::size_t n) const {
    const auto target = static_cast<std::size_t>(std::ceil(config.good_fraction * static_cast<double>(n)));
    return std::max<std::size_t>(static_cast<std::size_t>(config.min_good), target);
  }

  bool modelled() const {
    return pool.size() > 0 && n_told >= static_cast<std::uint64_t>(std::max(config.n_startup_trials, 1));
  }

  // How many trials of a block of n each operator proposes: floor(share * n), the rest to the
  // operator with the largest share (the first on ties).
  std::array<std::size_t, kOperators> counts(std::size_t n) const {
    std::array<std::size_t, kOperators> out{};
    std::size_t used = 0;
    for (std::size_t o = 0; o < kOperators; ++o) {
      out[o] = static_cast<std::size_t>(std::floor(shares[o] * static_cast<double>(n)));
      used += out[o];
    }
    out[static_cast<std::size_t>(std::max_element(shares.begin(), shares.end()) - shares.begin())] += n - used;
    return out;
  }

  std::vector<int> operators_of(std::size_t n) const {
    std::vector<int> ops;
    ops.reserve(n);
    const auto c = counts(n);
    for (std::size_t o = 0; o < kOperators; ++o) ops.insert(ops.end(), c[o], static_cast<int>(o));
    return ops;
  }

  void check_next(std::uint64_t first_trial, const char* verb) const {
    if (asked_any && first_trial != next_trial)
      throw make_error("tpe sampler: {} of trials {}.. out of order (expected trial {} next)", verb, first_trial,
                       next_trial);
  }

  // A row drawn uniformly over the space (the random sampler's draw) and its codes.
  void draw_uniform(TrialEngine& engine, double* row, double* codes) const {
    for (std::size_t a = 0; a < space.size(); ++a) row[a] = sample_uniform(space.axes[a], engine);
    unit.to_codes(row, codes);
  }

  // Records the block's n rows (out, d values each) in trial order, as adopt() does.
  void record_rows(const double* out, std::size_t n) {
    if (!config.distinct) return;
    const std::size_t d = space.size();
    for (std::size_t i = 0; i < n; ++i) recent_rows.record(row_key(out + i * d, d));
  }

  void start_block(Block block) {
    asked_any = true;
    next_trial = block.first + block.n;
    pending.push_back(std::move(block));
  }

  bool evolving() const { return config.operators[static_cast<std::size_t>(ProposalOperator::Evolve)]; }
  std::size_t numeric_count() const { return unit.numeric_codes().size(); }

  // The block's evolve frame: the distribution's current one when the block has evolve trials.
  void attach_frame(Block& block) const {
    if (evolve && std::count(block.ops.begin(), block.ops.end(), static_cast<int>(ProposalOperator::Evolve)) > 0)
      block.frame = evolve->frame();
  }

  void make_distinct(Block& block, const GoodSetModel& model, const DensityRatio* ratio, double* out);
  void update_shares(const Block& block);
  void update_evolve(const Block& block, std::span<const TrialOutcome> outcomes);
  std::vector<double> numeric_codes(const double* codes) const;
};

BatchTpeSampler::BatchTpeSampler(SearchSpace space, Direction direction, std::uint64_t seed, BatchTpeConfig config)
    : state_(std::make_unique<State>(std::move(space), direction, seed, config)) {}

BatchTpeSampler::~BatchTpeSampler() = default;

std::array<double, kOperators> BatchTpeSampler::shares() const { return state_->shares; }

const SearchDistribution* BatchTpeSampler::evolve_distribution() const {
  return state_->evolve ? &*state_->evolve : nullptr;
}

double BatchTpeSampler::joint_step() const { return state_->joint_step; }

void BatchTpeSampler::ask(std::uint64_t first_trial, std::size_t n, double* out) {
  State& s = *state_;
  s.check_next(first_trial, "ask");
  const std::size_t d = s.space.size(), nc = s.unit.n_codes();
  s.pool.reserve_best(s.good_size_for(n));
  s.pool.reserve_recent(std::min(kRecentBatches * n, kMaxRecent));
  State::Block block{first_trial, n, std::vector<double>(n * nc), {}, nullptr};
  if (!s.modelled()) {
    block.ops.assign(n, kRandom);
    for (std::size_t i = 0; i < n; ++i) {
      auto engine = make_trial_engine(s.seed, first_trial + i, kRandomPurpose);
      s.draw_uniform(engine, out + i * d, &block.codes[i * nc]);
    }
    s.record_rows(out, n);
    s.start_block(std::move(block));
    return;
  }
  block.ops = s.operators_of(n);
  s.attach_frame(block);
  const GoodSetModel model(s.unit, s.pool, std::min(s.pool.size(), s.good_size_for(n)), s.joint_step,
                           block.frame.get());
  const int candidates = s.config.candidates;
  std::optional<DensityRatio> ratio;
  if (candidates > 1) ratio.emplace(s.unit, model, s.pool, s.workers);
  s.workers.parallel_for(n, [&](std::size_t begin, std::size_t end) {
    std::vector<double> candidate(nc);
    for (std::size_t i = begin; i < end; ++i) {
      TrialEngine engine = make_trial_engine(s.seed, first_trial + i, kModelPurpose);
      double* best = &block.codes[i * nc];
      screen(model, ratio ? &*ratio : nullptr, static_cast<ProposalOperator>(block.ops[i]), candidates, engine, best,
             candidate.data());
      s.unit.to_external(best, out + i * d);
      // Keep the codes of what is proposed, as adopt() computes them from a journal's values.
      s.unit.to_codes(out + i * d, best);
    }
  });
  if (s.config.distinct && n > 0) s.make_distinct(block, model, ratio ? &*ratio : nullptr, out);
  s.record_rows(out, n);
  s.start_block(std::move(block));
}

void BatchTpeSampler::adopt(std::uint64_t first_trial, std::size_t n, const double* values) {
  State& s = *state_;
  s.check_next(first_trial, "adopt");
  s.space.check_rows("tpe sampler: adopt", first_trial, n, values);
  const std::size_t d = s.space.size(), nc = s.unit.n_codes();
  s.pool.reserve_best(s.good_size_for(n));
  s.pool.reserve_recent(std::min(kRecentBatches * n, kMaxRecent));
  State::Block block{first_trial, n, std::vector<double>(n * nc), {}, nullptr};
  // The operators ask() would have given these trials: they depend only on what was told.
  block.ops = s.modelled() ? s.operators_of(n) : std::vector<int>(n, kRandom);
  s.attach_frame(block);
  for (std::size_t i = 0; i < n; ++i) s.unit.to_codes(values + i * d, &block.codes[i * nc]);
  s.record_rows(values, n);
  s.start_block(std::move(block));
}

void BatchTpeSampler::tell(std::uint64_t first_trial, std::span<const TrialOutcome> outcomes) {
  State& s = *state_;
  if (s.pending.empty()) throw make_error("tpe sampler: tell of trials {}.. that were not asked", first_trial);
  const State::Block& block = s.pending.front();
  if (first_trial != block.first || outcomes.size() != block.n)
    throw make_error("tpe sampler: tell of trials {}..{} does not match the oldest asked block {}..{}", first_trial,
                     first_trial + outcomes.size(), block.first, block.first + block.n);
  const std::size_t nc = s.unit.n_codes();
  std::vector<RankedTrial> told;
  std::vector<double> codes;
  for (std::size_t i = 0; i < block.n; ++i) {
    const RankedOutcome o = ranked(outcomes[i], s.direction);
    if (std::isnan(o.violation)) throw make_error("tpe sampler: trial {} was told a NaN violation", block.first + i);
    if (std::isnan(o.score)) continue;  // failed: not an observation
    told.push_back({block.first + i, o.score, o.violation});
    codes.insert(codes.end(), &block.codes[i * nc], &block.codes[i * nc] + nc);
  }
  s.pool.add(told, codes);
  s.n_told += told.size();
  s.update_shares(block);
  s.update_evolve(block, outcomes);
  s.pending.pop_front();
}

// A modelled trial whose row repeats a recent row or another accepted trial of its block is
// drawn again: rounds 1 .. kDistinctRedraws draw it from its operator, screened as before,
// from the stream (seed, trial, kDistinctPurpose + round); the kDistinctRandom rounds after
// draw it uniformly (when the model has nothing new to propose, the search explores). A
// round draws its trials (on the workers when there are many), then accepts them one after
// the other in trial order, so the result does not depend on the thread count. A row that
// still repeats after the last round is asked as that round drew it (a space nearly
// exhausted). A redrawn trial keeps its operator: adopt() rebuilds the operators from the
// told history alone. A repeat tells the model nothing: in a discrete space of a few million
// points a batch of 4,096 around a converged good set was 19 in 20 repeats.
void BatchTpeSampler::State::make_distinct(Block& block, const GoodSetModel& model, const DensityRatio* ratio,
                                           double* out) {
  const std::size_t d = space.size(), nc = unit.n_codes(), n = block.n;
  RecentRows in_block(n);
  std::vector<std::size_t> repeats;
  auto accept = [&](std::size_t i) {
    const std::uint64_t key = row_key(out + i * d, d);
    if (recent_rows.contains(key) || in_block.contains(key)) return false;
    in_block.record(key);
    return true;
  };
  for (std::size_t i = 0; i < n; ++i)
    if (!accept(i)) repeats.push_back(i);
  for (int round = 1; round <= kDistinctRedraws + kDistinctRandom && !repeats.empty(); ++round) {
    auto redraw = [&](std::size_t begin, std::size_t end) {
      std::vector<double> candidate(nc);
      for (std::size_t k = begin; k < end; ++k) {
        const std::size_t i = repeats[k];
        TrialEngine engine =
            make_trial_engine(seed, block.first + i, kDistinctPurpose + static_cast<std::uint64_t>(round));
        double* codes = &block.codes[i * nc];
        if (round <= kDistinctRedraws) {
          screen(model, ratio, static_cast<ProposalOperator>(block.ops[i]), config.candidates, engine, codes,
                 candidate.data());
          unit.to_external(codes, out + i * d);
          unit.to_codes(out + i * d, codes);
        } else {
          draw_uniform(engine, out + i * d, codes);
        }
      }
    };
    // A few repeats are redrawn on this thread: waking the workers costs more than they do.
    if (repeats.size() < kDistinctInline) redraw(0, repeats.size());
    else workers.parallel_for(repeats.size(), redraw);
    std::vector<std::size_t> still;
    for (std::size_t i : repeats)
      if (!accept(i)) still.push_back(i);
    repeats.swap(still);
  }
}

// Each operator's success rate in this block: the share of its trials that are now among the
// good set of a batch of this size. The new shares move half way to the rates' proportions,
// each kept at least min_share. Operators with no trial in the block count as the average.
void BatchTpeSampler::State::update_shares(const Block& block) {
  if (block.ops.empty() || block.ops.front() == kRandom) return;
  const std::size_t good = std::min(pool.size(), good_size_for(block.n));
  std::unordered_set<std::uint64_t> top;
  for (std::size_t r = 0; r < good; ++r) top.insert(pool.best(r).trial);
  std::array<double, kOperators> hits{}, tried{};
  for (std::size_t i = 0; i < block.n; ++i) {
    const auto o = static_cast<std::size_t>(block.ops[i]);
    tried[o] += 1.0;
    if (top.count(block.first + i)) hits[o] += 1.0;
  }
  std::array<double, kOperators> rate{};
  double sum = 0.0, with_trials = 0.0;
  for (std::size_t o = 0; o < kOperators; ++o)
    if (config.operators[o] && tried[o] > 0.0) {
      rate[o] = hits[o] / tried[o];
      sum += rate[o];
      with_trials += 1.0;
    }
  for (std::size_t o = 0; o < kOperators; ++o)
    if (config.operators[o] && tried[o] == 0.0) rate[o] = sum / with_trials;
  // The joint step size: a success rule on the joint trials of this block (none: no change).
  const double target = config.joint_success_target;
  const auto joint = static_cast<std::size_t>(ProposalOperator::Joint);
  if (target > 0.0 && tried[joint] > 0.0) {
    joint_step =
        std::clamp(joint_step * std::exp((rate[joint] - target) / (2.0 * target)), kMinJointStep, kMaxJointStep);
    if (joint_step <= kMinJointStep) joint_step = 1.0;  // collapsed: restart at Scott's factor
  }
  double total = 0.0;
  for (double r : rate) total += r;
  if (!(total > 0.0)) return;
  const double free = 1.0 - static_cast<double>(n_used()) * config.min_share;
  for (std::size_t o = 0; o < kOperators; ++o)
    if (config.operators[o]) shares[o] = 0.5 * shares[o] + 0.5 * (config.min_share + free * rate[o] / total);
}

}  // namespace tpeopt::tpe

namespace tpeopt::tpe {

std::vector<double> BatchTpeSampler::State::numeric_codes(const double* codes) const {
  std::vector<double> out;
  for (std::size_t c : unit.numeric_codes()) out.push_back(codes[c]);
  return out;
}

// The evolve distribution: made at the pool's best trial once the model starts; updated from
// each told block with the frame its evolve trials were drawn from. The selected trials are
// the block's best max(2, evolve trials / 2) of ALL its trials (ranked as the pool ranks): the
// other operators' good trials are injected, their steps shortened in update(), so the
// distribution learns from every trial the batch spent, not from its own share alone
// (docs/tpe.md, "Evolve", has what was measured). Restarted at a uniform random mean when
// should_restart() says; blocks drawn before a restart are not used.
void BatchTpeSampler::State::update_evolve(const Block& block, std::span<const TrialOutcome> outcomes) {
  if (!evolving()) return;
  const std::size_t n_numeric = numeric_count();
  if (!evolve) {
    if (modelled()) evolve.emplace(n_numeric, numeric_codes(pool.best_codes(0)));
    return;
  }
  if (!block.frame) return;
  std::vector<RankedTrial> trials;
  for (std::size_t i = 0; i < block.n; ++i) {
    const RankedOutcome o = ranked(outcomes[i], direction);
    if (!std::isnan(o.score)) trials.push_back({i, o.score, o.violation});  // .trial: index in the block
  }
  if (trials.size() < 2) return;
  std::stable_sort(trials.begin(), trials.end(),
                   [&](const RankedTrial& a, const RankedTrial& b) { return ranks_before(a, b, direction); });
  const std::size_t n_evolve = static_cast<std::size_t>(
      std::count(block.ops.begin(), block.ops.end(), static_cast<int>(ProposalOperator::Evolve)));
  // At least two selected (the update's weights need them), so that a batch too small to give
  // the operator four trials still moves it.
  const std::size_t nc = unit.n_codes(), mu = std::min(trials.size(), std::max<std::size_t>(2, n_evolve / 2));
  std::vector<std::vector<double>> selected;
  std::vector<const double*> rows;
  for (std::size_t r = 0; r < mu; ++r) selected.push_back(numeric_codes(&block.codes[trials[r].trial * nc]));
  for (const auto& v : selected) rows.push_back(v.data());
  RankedTrial top = trials.front();
  top.trial += block.first;
  const bool improved = !evolve_best || ranks_before(top, *evolve_best, direction);
  if (improved) evolve_best = top;
  evolve->update(*block.frame, rows, n_evolve, improved);
  if (evolve->should_restart()) {
    auto engine = make_trial_engine(seed, evolve->restarts(), kRestartPurpose);
    std::vector<double> mean(n_numeric);
    for (double& v : mean) v = boost::random::uniform_01<double>()(engine);
    evolve->restart(mean);
    evolve_best.reset();
  }
}

}  // namespace tpeopt::tpe
