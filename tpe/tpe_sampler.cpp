#include "tpe/tpe_sampler.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>

#include <boost/random/uniform_01.hpp>

#include "common/error.hpp"
#include "common/worker_pool.hpp"
#include "tpe/fast_acquisition.hpp"
#include "tpe/parzen_estimator.hpp"
#include "tpe/random_sampler.hpp"
#include "tpe/trial_rng.hpp"
#include "tpe/truncated_normal.hpp"

namespace tpeopt::tpe {

namespace {
// Stream purposes within one trial (trial_rng.hpp). Startup trials use purpose 0 with one
// engine for all axes, exactly as RandomSampler does, so TPE's startup trials are the
// random sampler's trials of the same seed. Univariate TPE uses purpose a + 1 for axis a
// (each axis its own stream, independent of the others' draw counts); multivariate TPE
// draws everything from one stream.
constexpr std::uint64_t kStartupPurpose = 0;
constexpr std::uint64_t kMultivariatePurpose = 0x6d76ULL << 32;  // "mv", apart from the axis purposes
std::uint64_t axis_purpose(std::size_t a) { return static_cast<std::uint64_t>(a) + 1; }

// Stepped axes (int, stepped float, log int) with at most this many grid points keep the
// exact log l(x) and log g(x) of each grid point a worker has evaluated (per ask): every
// trial of a batch shares l and g, and candidates repeat. A value is a pure function of
// the grid point, so caching changes no bit.
constexpr std::uint64_t kMaxCachedGrid = 4096;

// log l(x) - log g(x); NaN (from -inf - -inf) ranks lowest.
double acquisition(double log_l, double log_g) {
  const double v = log_l - log_g;
  return std::isnan(v) ? -std::numeric_limits<double>::infinity() : v;
}
// Fast acquisition: the kernels of l on one continuous axis, sampled by the truncated-normal
// quantile in linear probability space (no log/exp in the central region).
struct FastAxis {
  detail::GridTable score;                 // log l - log g at the grid nodes
  std::vector<double> mu, sigma, a, b;     // l's kernels
  std::vector<double> p_a, q_b, mass;      // Phi(a), Phi(-b), Phi(b) - Phi(a)
  double lower = 0.0, upper = 0.0;

  // The draw of kernel k at uniform u (the exact path's ParzenEstimator::sample, to ~1e-15).
  double sample(std::size_t k, double u) const {
    const double p = p_a[k] + u * mass[k];
    const double q = q_b[k] + (1.0 - u) * mass[k];
    double z;
    if (p <= q) {
      z = 0.5 - p <= 0.425 ? truncnorm::detail::as241_central(p - 0.5)
                           : -truncnorm::detail::as241_tail(std::sqrt(-std::log(p)));
    } else {
      z = 0.5 - q <= 0.425 ? -truncnorm::detail::as241_central(q - 0.5)
                           : truncnorm::detail::as241_tail(std::sqrt(-std::log(q)));
    }
    z = std::clamp(z, a[k], b[k]);
    return std::clamp(z * sigma[k] + mu[k], lower, upper);
  }
};
}  // namespace

struct TpeSampler::State {
  SearchSpace space;
  Direction direction;
  std::uint64_t seed;
  TpeConfig config;
  detail::ParzenParameters params;
  std::vector<detail::AxisModel> models;  // per axis of the space
  std::vector<std::size_t> active;        // axes with more than one value (modelled)
  std::vector<detail::AxisModel> active_models;
  WorkerPool pool;

  // Told, non-failed trials in trial order (structure of arrays).
  std::vector<std::vector<double>> internal;  // [axis][observation], internal values
  std::vector<double> score, violation;
  std::vector<std::uint64_t> trial;

  // Asked blocks not yet told, in ask order, with the internal values of their trials.
  struct Block {
    std::uint64_t first = 0;
    std::size_t n = 0;
    std::vector<double> internal;  // [i * d + a]
  };
  std::deque<Block> pending;
  bool asked_any = false;
  std::uint64_t next_trial = 0;  // the first trial of the next ask

  State(SearchSpace s, Direction dir, std::uint64_t sd, TpeConfig cfg)
      : space(std::move(s)), direction(dir), seed(sd), config(cfg), pool(cfg.threads) {}

  void ask_startup(const Block& block, double* out);
  void ask_tpe(Block& block, double* out);
};

TpeSampler::TpeSampler(SearchSpace space, Direction direction, std::uint64_t seed, TpeConfig config) {
  space.validate();
  if (config.n_startup_trials < 0)
    throw make_error("search.tpe.n_startup_trials: must be >= 0 (got {})", config.n_startup_trials);
  if (config.n_ei_candidates < 1)
    throw make_error("search.tpe.n_ei_candidates: must be >= 1 (got {})", config.n_ei_candidates);
  if (!(config.prior_weight > 0.0) || !std::isfinite(config.prior_weight))
    throw make_error("search.tpe.prior_weight: must be a positive number (got {})", config.prior_weight);
  state_ = std::make_unique<State>(std::move(space), direction, seed, config);
  State& s = *state_;
  s.params = {config.prior_weight, config.consider_magic_clip, config.consider_endpoints, config.multivariate,
              config.acquisition == Acquisition::Fast && !config.multivariate};
  for (std::size_t a = 0; a < s.space.size(); ++a) {
    s.models.push_back(detail::AxisModel::of(s.space.axes[a]));
    if (!s.models.back().single) {
      s.active.push_back(a);
      s.active_models.push_back(s.models.back());
    }
  }
  s.internal.resize(s.space.size());
}

TpeSampler::~TpeSampler() = default;

std::size_t TpeSampler::n_observations() const { return state_->score.size(); }

void TpeSampler::State::ask_startup(const Block& block, double* out) {
  const std::size_t d = space.size();
  pool.parallel_for(block.n, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      auto engine = make_trial_engine(seed, block.first + i, kStartupPurpose);
      for (std::size_t a = 0; a < d; ++a) out[i * d + a] = sample_uniform(space.axes[a], engine);
    }
  });
}

void TpeSampler::State::ask_tpe(Block& block, double* out) {
  const std::size_t d = space.size();
  const std::size_t n_obs = score.size();
  const std::size_t n_cand = static_cast<std::size_t>(config.n_ei_candidates);

  // Split the observations once per ask; both groups in trial order.
  const std::vector<char> is_below = detail::split_below(score, violation, direction, detail::default_gamma(n_obs));
  std::vector<std::size_t> below, above;
  for (std::size_t i = 0; i < n_obs; ++i) (is_below[i] ? below : above).push_back(i);

  // l(x) and g(x) over the modelled axes, shared by every trial of the batch.
  std::vector<std::span<const double>> columns(active.size());
  for (std::size_t j = 0; j < active.size(); ++j) columns[j] = internal[active[j]];
  const detail::ParzenEstimator l(active_models, columns, below, params);
  const detail::ParzenEstimator g(active_models, columns, above, params);

  // Fast acquisition: per continuous axis, log l - log g on a grid, built once per ask.
  const bool fast = config.acquisition == Acquisition::Fast && !config.multivariate;
  std::vector<FastAxis> fast_axes(fast ? active.size() : 0);
  std::vector<char> has_table(active.size(), 0);
  if (fast) {
    pool.parallel_for(active.size(), [&](std::size_t begin, std::size_t end) {
      detail::GridTable tl, tg;
      for (std::size_t j = begin; j < end; ++j) {
        const detail::AxisModel& m = active_models[j];
        if (m.type != detail::AxisModel::Type::Continuous) continue;
        if (!detail::log_density_grid(l, j, m, detail::kGridCells, tl)) continue;
        if (!detail::log_density_grid(g, j, m, detail::kGridCells, tg)) continue;
        FastAxis& f = fast_axes[j];
        f.score = std::move(tl);
        for (std::size_t i = 0; i < f.score.node.size(); ++i) {
          const double v = f.score.node[i] - tg.node[i];
          f.score.node[i] = std::isnan(v) ? -std::numeric_limits<double>::infinity() : v;
        }
        f.mu = l.mus(j);
        f.sigma = l.sigmas(j);
        f.a = l.lower_z(j);
        f.b = l.upper_z(j);
        const std::size_t K = f.mu.size();
        f.p_a.resize(K);
        f.q_b.resize(K);
        f.mass.resize(K);
        for (std::size_t k = 0; k < K; ++k) {
          f.p_a[k] = truncnorm::ndtr(f.a[k]);
          f.q_b[k] = truncnorm::ndtr(-f.b[k]);
          f.mass[k] = std::max(1.0 - f.p_a[k] - f.q_b[k], 0.0);
        }
        f.lower = m.low;
        f.upper = m.high;
        has_table[j] = 1;
      }
    });
  }

  // Axes with one value: constant.
  for (std::size_t a = 0; a < d; ++a) {
    if (!models[a].single) continue;
    const Axis& axis = space.axes[a];
    const double v = axis.is_numeric() ? axis.low : axis.choice_value(0);
    for (std::size_t i = 0; i < block.n; ++i) out[i * d + a] = v;
  }

  pool.parallel_for(block.n, [&](std::size_t begin, std::size_t end) {
    boost::random::uniform_01<double> uniform;
    std::vector<double> scratch;
    // Per-worker grid caches: [2 * grid index] = log l, [2 * grid index + 1] = log g; NaN = not yet.
    std::vector<std::vector<double>> grid_cache(config.multivariate ? 0 : active.size());
    std::vector<std::size_t> component(n_cand);
    std::vector<double> raw(n_cand * active.size()), cand(n_cand * active.size());
    for (std::size_t i = begin; i < end; ++i) {
      const std::uint64_t t = block.first + i;
      if (!config.multivariate) {
        for (std::size_t j = 0; j < active.size(); ++j) {
          const std::size_t a = active[j];
          const Axis& axis = space.axes[a];
          const detail::AxisModel& m = active_models[j];
          auto engine = make_trial_engine(seed, t, axis_purpose(a));
          for (std::size_t c = 0; c < n_cand; ++c) component[c] = l.pick_component(uniform(engine));
          if (has_table[j]) {
            // Fast: draw in linear space, score by interpolation; only the winner is mapped.
            const FastAxis& f = fast_axes[j];
            const bool rounded = axis.step > 0.0;  // log int: scored after rounding, as in Optuna
            double best_score = -std::numeric_limits<double>::infinity(), best_raw = 0.0;
            for (std::size_t c = 0; c < n_cand; ++c) {
              const double r = f.sample(component[c], uniform(engine));
              const double x = rounded ? m.to_internal(axis, m.to_external(axis, r)) : r;
              const double acq = f.score.at(x);
              if (c == 0 || acq > best_score) {
                best_score = acq;
                best_raw = r;
              }
            }
            const double external = m.to_external(axis, best_raw);
            out[i * d + a] = external;
            block.internal[i * d + a] = m.to_internal(axis, external);
            continue;
          }
          for (std::size_t c = 0; c < n_cand; ++c) raw[c] = l.sample(j, component[c], uniform(engine));
          // The first candidate with the largest log l(x) - log g(x) (NaN counts as -inf).
          double best_score = -std::numeric_limits<double>::infinity();
          double best_external = 0.0, best_internal = 0.0;
          const std::uint64_t n_grid = axis.n_steps();
          std::vector<double>* cache = nullptr;
          if (n_grid > 0 && n_grid <= kMaxCachedGrid) {
            cache = &grid_cache[j];
            if (cache->empty()) cache->assign(2 * n_grid, std::numeric_limits<double>::quiet_NaN());
          }
          for (std::size_t c = 0; c < n_cand; ++c) {
            const double external = m.to_external(axis, raw[c]);
            const double x = m.type == detail::AxisModel::Type::Categorical ? raw[c] : m.to_internal(axis, external);
            double log_l, log_g;
            if (cache) {
              const auto grid_index = static_cast<std::size_t>(std::llround((external - axis.low) / axis.step));
              double* slot = &(*cache)[2 * grid_index];
              if (std::isnan(slot[0])) {
                slot[0] = l.log_pdf(j, x, scratch);
                slot[1] = g.log_pdf(j, x, scratch);
              }
              log_l = slot[0];
              log_g = slot[1];
            } else {
              log_l = l.log_pdf(j, x, scratch);
              log_g = g.log_pdf(j, x, scratch);
            }
            const double acq = acquisition(log_l, log_g);
            if (c == 0 || acq > best_score) {
              best_score = acq;
              best_external = external;
              best_internal = x;
            }
          }
          out[i * d + a] = best_external;
          block.internal[i * d + a] = best_internal;
        }
      } else {
        const std::size_t k = active.size();
        auto engine = make_trial_engine(seed, t, kMultivariatePurpose);
        for (std::size_t c = 0; c < n_cand; ++c) component[c] = l.pick_component(uniform(engine));
        for (std::size_t j = 0; j < k; ++j) {
          const Axis& axis = space.axes[active[j]];
          const detail::AxisModel& m = active_models[j];
          for (std::size_t c = 0; c < n_cand; ++c) {
            raw[c * k + j] = m.to_external(axis, l.sample(j, component[c], uniform(engine)));  // external
            cand[c * k + j] = m.to_internal(axis, raw[c * k + j]);
          }
        }
        std::size_t best = 0;
        double best_score = -std::numeric_limits<double>::infinity();
        for (std::size_t c = 0; c < n_cand; ++c) {
          const double acq =
              acquisition(l.log_pdf_joint(&cand[c * k], scratch), g.log_pdf_joint(&cand[c * k], scratch));
          if (c == 0 || acq > best_score) {
            best = c;
            best_score = acq;
          }
        }
        for (std::size_t j = 0; j < k; ++j) {
          out[i * d + active[j]] = raw[best * k + j];
          block.internal[i * d + active[j]] = cand[best * k + j];
        }
      }
    }
  });
}

void TpeSampler::ask(std::uint64_t first_trial, std::size_t n, double* out) {
  State& s = *state_;
  if (s.asked_any && first_trial != s.next_trial)
    throw make_error("tpe sampler: ask of trials {}.. out of order (expected trial {} next)", first_trial, s.next_trial);
  if (n == 0) return;
  const std::size_t d = s.space.size();
  State::Block block{first_trial, n, std::vector<double>(n * d, 0.0)};

  // Startup: counted in told, non-failed trials at the time of this ask.
  if (s.score.size() < static_cast<std::size_t>(s.config.n_startup_trials)) {
    s.ask_startup(block, out);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t a = 0; a < d; ++a)
        block.internal[i * d + a] = s.models[a].to_internal(s.space.axes[a], out[i * d + a]);
  } else {
    s.ask_tpe(block, out);
    for (std::size_t a = 0; a < d; ++a)
      if (s.models[a].single)
        for (std::size_t i = 0; i < n; ++i)
          block.internal[i * d + a] = s.models[a].to_internal(s.space.axes[a], out[i * d + a]);
  }
  s.pending.push_back(std::move(block));
  s.asked_any = true;
  s.next_trial = first_trial + n;
}

void TpeSampler::adopt(std::uint64_t first_trial, std::size_t n, const double* values) {
  State& s = *state_;
  if (s.asked_any && first_trial != s.next_trial)
    throw make_error("tpe sampler: adopt of trials {}.. out of order (expected trial {} next)", first_trial,
                     s.next_trial);
  if (n == 0) return;
  const std::size_t d = s.space.size();
  State::Block block{first_trial, n, std::vector<double>(n * d, 0.0)};
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t a = 0; a < d; ++a)
      block.internal[i * d + a] = s.models[a].to_internal(s.space.axes[a], values[i * d + a]);
  s.pending.push_back(std::move(block));
  s.asked_any = true;
  s.next_trial = first_trial + n;
}

void TpeSampler::tell(std::uint64_t first_trial, std::span<const TrialOutcome> outcomes) {
  State& s = *state_;
  if (outcomes.empty()) return;
  if (s.pending.empty())
    throw make_error("tpe sampler: tell of trials {}..{} that were not asked", first_trial,
                     first_trial + outcomes.size() - 1);
  const State::Block& block = s.pending.front();
  if (block.first != first_trial || block.n != outcomes.size())
    throw make_error(
        "tpe sampler: tell of trials {}..{} does not match the oldest asked block (trials {}..{}); blocks are "
        "told in the order they were asked",
        first_trial, first_trial + outcomes.size() - 1, block.first, block.first + block.n - 1);
  for (std::size_t i = 0; i < outcomes.size(); ++i)
    if (std::isnan(outcomes[i].violation))
      throw make_error("tpe sampler: trial {}: constraint violation is NaN", first_trial + i);
  const std::size_t d = s.space.size();
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    if (std::isnan(outcomes[i].score)) continue;  // failed: ignored, like Optuna's FAIL
    for (std::size_t a = 0; a < d; ++a) s.internal[a].push_back(block.internal[i * d + a]);
    s.score.push_back(outcomes[i].score);
    s.violation.push_back(outcomes[i].violation);
    s.trial.push_back(first_trial + i);
  }
  s.pending.pop_front();
}

}  // namespace tpeopt::tpe
