#include "tpe/tpe_sampler.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <limits>

#include <boost/random/uniform_01.hpp>

#include "common/error.hpp"
#include "common/worker_pool.hpp"
#include "tpe/fast_acquisition.hpp"
#include "tpe/observed_kernels.hpp"
#include "tpe/parzen_estimator.hpp"
#include "tpe/random_sampler.hpp"
#include "tpe/sorted_keys.hpp"
#include "tpe/trial_rng.hpp"

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

// The memo of stepped axis j's grid densities in a worker's caches, or null when the
// axis is continuous or has more than kMaxCachedGrid points.
std::vector<double>* grid_cache_for(std::vector<std::vector<double>>& caches, std::size_t j, const Axis& axis) {
  const std::uint64_t n_grid = axis.n_steps();
  if (n_grid == 0 || n_grid > kMaxCachedGrid) return nullptr;
  if (caches[j].empty()) caches[j].assign(2 * n_grid, std::numeric_limits<double>::quiet_NaN());
  return &caches[j];
}

// The candidate with the largest log l(x) - log g(x) among the n raw draws of one axis
// (the first on ties; NaN ranks lowest), scored exactly: l's axis jl, g's axis jg.
// Stepped axes memoise the densities of the grid points in `cache` (null: no cache).
// Returns {external value, internal value}.
std::pair<double, double> best_exact_candidate(const detail::ParzenEstimator& l, std::size_t jl,
                                               const detail::ParzenEstimator& g, std::size_t jg,
                                               const detail::AxisModel& m, const Axis& axis, const double* raw,
                                               std::size_t n, std::vector<double>* cache,
                                               std::vector<double>& scratch) {
  double best_score = -std::numeric_limits<double>::infinity();
  double best_external = 0.0, best_internal = 0.0;
  for (std::size_t c = 0; c < n; ++c) {
    const double external = m.to_external(axis, raw[c]);
    const double x = m.type == detail::AxisModel::Type::Categorical ? raw[c] : m.to_internal(axis, external);
    double log_l, log_g;
    if (cache) {
      const auto grid_index = static_cast<std::size_t>(std::llround((external - axis.low) / axis.step));
      double* slot = &(*cache)[2 * grid_index];
      if (std::isnan(slot[0])) {
        slot[0] = l.log_pdf(jl, x, scratch);
        slot[1] = g.log_pdf(jg, x, scratch);
      }
      log_l = slot[0];
      log_g = slot[1];
    } else {
      log_l = l.log_pdf(jl, x, scratch);
      log_g = g.log_pdf(jg, x, scratch);
    }
    const double acq = acquisition(log_l, log_g);
    if (c == 0 || acq > best_score) {
      best_score = acq;
      best_external = external;
      best_internal = x;
    }
  }
  return {best_external, best_internal};
}
// boost::random::uniform_01<double> on a SplitMix64 engine, bit for bit: double(x) * 2^-64,
// drawn again when that rounds to 1. double(x) is formed from two exact 32-bit halves and
// one correctly rounded addition (the same value as the compiler's conversion, without its
// branch on the top bit).
inline double uniform01(TrialEngine& engine) {
  for (;;) {
    const std::uint64_t x = engine();
    const double v = static_cast<double>(static_cast<std::uint32_t>(x >> 32)) * 0x1p32 +
                     static_cast<double>(static_cast<std::uint32_t>(x));
    const double u = v * 0x1p-64;
    if (u < 1.0) return u;
  }
}

// ParzenEstimator::pick_component (numpy's searchsorted right over the cumulative weights)
// by a bucket table: start[b] is the answer for u = b / buckets, and the answer for u in
// bucket b is found by stepping from it (usually no step). The same component for every u.
struct ComponentPicker {
  static constexpr std::size_t kBuckets = 4096;
  std::vector<double> cum;
  std::vector<std::uint32_t> start;
  void build(const std::vector<double>& cumulative) {
    cum = cumulative;
    start.resize(kBuckets);
    const std::size_t K = cum.size();
    for (std::size_t b = 0; b < kBuckets; ++b) {
      const double u = static_cast<double>(b) / static_cast<double>(kBuckets);
      const auto k = static_cast<std::size_t>(std::upper_bound(cum.begin(), cum.end(), u) - cum.begin());
      start[b] = static_cast<std::uint32_t>(std::min(k, K - 1));
    }
  }
  std::size_t pick(double u) const {
    std::size_t k = start[static_cast<std::size_t>(u * static_cast<double>(kBuckets))];
    const std::size_t last = cum.size() - 1;
    while (k < last && cum[k] <= u) ++k;
    return k;
  }
};

// A joint kernel term of a stepped axis (int, stepped float, log int) is a cell's mass, a
// difference of two normal CDFs in log space: about 17 times a continuous axis' term on the
// 2-core development box (`bench_ask_tell --single 10 500 100 multivariate 1 0 int|float`:
// 1,332 ms against 78 ms: docs/benchmarks.md, "Multivariate (joint) asks").
// Auto's budget counts it 20, a little above the measurement.
constexpr double kSteppedTermCost = 20.0;

double joint_term_cost_of(const detail::AxisModel& m) {
  const bool cell_mass = m.type == detail::AxisModel::Type::Discrete || m.log_step > 0.0;
  return cell_mass ? kSteppedTermCost : 1.0;
}

// Trials per work item of the candidate loop (one axis each).
constexpr std::size_t kTrialRun = 1024;
}  // namespace

struct TpeSampler::State {
  SearchSpace space;
  Direction direction;
  std::uint64_t seed;
  TpeConfig config;
  // The per-axis estimators' settings, and the joint estimator's.
  detail::ParzenParameters params, joint_params;
  std::vector<detail::AxisModel> models;  // per axis of the space
  std::vector<std::size_t> active;        // axes with more than one value (modelled)
  std::vector<detail::AxisModel> active_models;
  WorkerPool pool;

  // Told, non-failed trials in trial order (structure of arrays).
  std::vector<std::vector<double>> internal;  // [axis][observation], internal values
  std::vector<double> score, violation;
  std::vector<std::uint64_t> trial;
  // Fast univariate acquisition: per axis (empty unless the axis is numeric and modelled),
  // the observations in (internal value, index) order as sorted runs (tpe/sorted_runs.hpp),
  // kept by tell().
  std::vector<detail::SortedRuns> sorted;
  bool keep_sorted = false;
  // ... and g's kernels over those observations as running sums (tpe/observed_kernels.hpp),
  // built by the tell() that reaches ObservedKernels::kFromObservations, updated by later ones.
  std::vector<detail::ObservedKernels> observed;
  // Fast acquisition tables of the last ask, per modelled axis (rebuilt by every ask).
  std::vector<detail::ContinuousFastAxis> fast_axes_;
  std::vector<detail::GridFastAxis> grid_axes_;

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
  // The joint estimator's cost per (candidate, observation), in continuous kernel terms
  // (kSteppedTermCost per stepped axis, 1 per other modelled axis).
  double joint_term_cost = 0.0;
  // Whether an ask over n_obs observations uses the joint estimator (config.multivariate).
  bool joint_model(std::size_t n_obs) const;
  void ask_tpe(Block& block, double* out);
  void ask_tpe_fast(Block& block, double* out);
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
  s.params = {config.prior_weight, config.consider_magic_clip, config.consider_endpoints, false,
              config.acquisition == Acquisition::Fast};
  s.joint_params = {config.prior_weight, config.consider_magic_clip, config.consider_endpoints, true, false};
  for (std::size_t a = 0; a < s.space.size(); ++a) {
    s.models.push_back(detail::AxisModel::of(s.space.axes[a]));
    if (!s.models.back().single) {
      s.active.push_back(a);
      s.active_models.push_back(s.models.back());
      s.joint_term_cost += joint_term_cost_of(s.models.back());
    }
  }
  s.internal.resize(s.space.size());
  s.sorted.resize(s.space.size());
  s.observed.resize(s.space.size());
  s.keep_sorted = config.acquisition == Acquisition::Fast && config.multivariate != Multivariate::On;
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

bool TpeSampler::State::joint_model(std::size_t n_obs) const {
  switch (config.multivariate) {
    case Multivariate::Off:
      return false;
    case Multivariate::On:
      return true;
    case Multivariate::Auto:
      break;
  }
  // Cost of one trial's joint scoring, in continuous kernel terms; a double, so no product
  // can wrap.
  const double terms = static_cast<double>(config.n_ei_candidates) * static_cast<double>(n_obs) * joint_term_cost;
  return terms <= static_cast<double>(config.multivariate_budget);
}

void TpeSampler::State::ask_tpe(Block& block, double* out) {
  const std::size_t n_obs = score.size();
  const bool joint = joint_model(n_obs);
  if (config.acquisition == Acquisition::Fast && !joint) {
    ask_tpe_fast(block, out);
    return;
  }
  const std::size_t d = space.size();
  const std::size_t n_cand = static_cast<std::size_t>(config.n_ei_candidates);

  // Split the observations once per ask; both groups in trial order.
  const std::vector<char> is_below = detail::split_below(score, violation, direction, detail::default_gamma(n_obs));
  std::vector<std::size_t> below, above;
  for (std::size_t i = 0; i < n_obs; ++i) (is_below[i] ? below : above).push_back(i);

  // l(x) and g(x) over the modelled axes, shared by every trial of the batch.
  std::vector<std::span<const double>> columns(active.size());
  for (std::size_t j = 0; j < active.size(); ++j) columns[j] = internal[active[j]];
  const detail::ParzenParameters& model_params = joint ? joint_params : params;
  const detail::ParzenEstimator l(active_models, columns, below, model_params);
  const detail::ParzenEstimator g(active_models, columns, above, model_params);

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
    std::vector<std::vector<double>> grid_cache(joint ? 0 : active.size());
    std::vector<std::size_t> component(n_cand);
    std::vector<double> raw(n_cand * active.size()), cand(n_cand * active.size());
    for (std::size_t i = begin; i < end; ++i) {
      const std::uint64_t t = block.first + i;
      if (!joint) {
        for (std::size_t j = 0; j < active.size(); ++j) {
          const std::size_t a = active[j];
          const Axis& axis = space.axes[a];
          const detail::AxisModel& m = active_models[j];
          auto engine = make_trial_engine(seed, t, axis_purpose(a));
          for (std::size_t c = 0; c < n_cand; ++c) component[c] = l.pick_component(uniform(engine));
          for (std::size_t c = 0; c < n_cand; ++c) raw[c] = l.sample(j, component[c], uniform(engine));
          std::vector<double>* cache = grid_cache_for(grid_cache, j, axis);
          const auto [best_external, best_internal] =
              best_exact_candidate(l, j, g, j, m, axis, raw.data(), n_cand, cache, scratch);
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

// Fast univariate acquisition (docs/tpe.md, "Fast acquisition"). The same split, estimators
// and per-(trial, axis) streams as ask_tpe; candidates are drawn from per-ask tables of l
// (a tabulated quantile function, or an alias table over a grid axis' points) and scored
// by lookup of log l - log g, g's table built straight from the incrementally sorted
// observations; other axes fall back to ask_tpe's exact candidates.
void TpeSampler::State::ask_tpe_fast(Block& block, double* out) {
  const std::size_t d = space.size();
  const std::size_t n_obs = score.size();
  const std::size_t n_cand = static_cast<std::size_t>(config.n_ei_candidates);
  const std::size_t n_active = active.size();

  // Split the observations once per ask; both groups in trial order.
  const std::vector<char> is_below = detail::split_below(score, violation, direction, detail::default_gamma(n_obs));
  std::vector<std::size_t> below, above;
  for (std::size_t i = 0; i < n_obs; ++i) (is_below[i] ? below : above).push_back(i);

  // l(x) over the modelled axes (at most 26 kernels), shared by every trial of the batch.
  std::vector<std::span<const double>> columns(n_active);
  for (std::size_t j = 0; j < n_active; ++j) columns[j] = internal[active[j]];
  const detail::ParzenEstimator l(active_models, columns, below, params);
  ComponentPicker picker;
  picker.build(l.cumulative());

  // g's weights per observation (ParzenEstimator's: default_weights in trial order, then
  // the prior's, normalized by their sum in that order); 0 for the below group. Axes whose
  // g is kept as running sums (from ObservedKernels::kFromObservations on) ramp the weights
  // over all observations instead (detail::TrialOrderWeights; docs/tpe.md).
  std::vector<char> in_above(n_obs);
  for (std::size_t i = 0; i < n_obs; ++i) in_above[i] = is_below[i] ? 0 : 1;
  std::vector<double> above_weight(n_obs, 0.0);
  double prior_w = 1.0;
  if (!above.empty()) {
    const std::vector<double> w = detail::default_weights(above.size());
    double total = 0.0;
    for (double x : w) total += x;
    total += config.prior_weight;
    for (std::size_t r = 0; r < above.size(); ++r) above_weight[above[r]] = w[r] / total;
    prior_w = config.prior_weight / total;
  }
  const detail::TrialOrderWeights trial_order_weights(n_obs);
  double trial_order_total = config.prior_weight;
  for (const std::size_t i : above) trial_order_total += trial_order_weights.of(i);

  // Per continuous axis: log l - log g on the grid, and l's tabulated quantile function.
  // The per-axis tables live in the state: their buffers are reused from ask to ask.
  std::vector<detail::ContinuousFastAxis>& fast_axes = fast_axes_;
  std::vector<detail::GridFastAxis>& grid_axes = grid_axes_;
  fast_axes.resize(n_active);
  grid_axes.resize(n_active);
  std::vector<char> has_table(n_active, 0), has_grid(n_active, 0);
  pool.parallel_for(n_active, [&](std::size_t begin, std::size_t end) {
    detail::GridTable tl, tg;
    detail::GridScratch scratch;
    std::vector<double> coef, pl, pg;
    for (std::size_t j = begin; j < end; ++j) {
      const detail::AxisModel& m = active_models[j];
      const detail::SortedRuns& runs = sorted[active[j]];
      if (runs.size() != n_obs) continue;
      const double* value = internal[active[j]].data();
      const detail::ObservedKernels& kernels = observed[active[j]];
      // log g on the axis' cells from the running sums (false: not built, or not finite).
      auto g_from_sums = [&] {
        return kernels.ready() && kernels.log_density(runs, value, is_below.data(), below, trial_order_weights,
                                                      trial_order_total, config.prior_weight, tg, scratch);
      };
      if (m.type == detail::AxisModel::Type::Discrete) {
        // g's masses from the running sums (the others wait for the exact estimator below).
        if (!kernels.ready() || !detail::grid_masses(l, j, m, pl, scratch) || !g_from_sums() ||
            !detail::discrete_masses(tg, m, pg, scratch))
          continue;
        if (grid_axes[j].build_discrete(space.axes[active[j]], m, pl, pg)) has_grid[j] = 1;
        continue;
      }
      if (m.type != detail::AxisModel::Type::Continuous) continue;
      const std::vector<double>& mu = l.mus(j);
      detail::kernel_coefficients(l, j, coef);
      if (!detail::log_density_grid(mu.data(), l.sigmas(j).data(), coef.data(), mu.size(), m.low, m.high,
                                    detail::kGridCells, tl, scratch))
        continue;
      if (kernels.ready() ? !g_from_sums()
                          : runs.flat() == nullptr ||
                                !detail::log_density_grid_sorted(runs.flat()->index.data(), n_obs, value,
                                                                 in_above.data(), above_weight.data(), above.size(),
                                                                 prior_w, m, params, detail::kGridCells, tg, scratch))
        continue;
      if (!fast_axes[j].build(tl, tg)) continue;
      has_table[j] = 1;
      if (grid_axes[j].build_log_int(space.axes[active[j]], m, fast_axes[j])) has_grid[j] = 1;
    }
  });

  // g for the axes scored without a table yet (discrete before their running sums,
  // categorical, or not resolved by the grid).
  std::vector<std::size_t> exact_index(n_active, 0);
  std::vector<detail::AxisModel> exact_models;
  std::vector<std::span<const double>> exact_columns;
  for (std::size_t j = 0; j < n_active; ++j) {
    if (has_table[j] || has_grid[j]) continue;
    exact_index[j] = exact_models.size();
    exact_models.push_back(active_models[j]);
    exact_columns.push_back(columns[j]);
  }
  const detail::ParzenEstimator g(exact_models, exact_columns, above, params);

  // Discrete axes (int, stepped float) with at most kMaxFastGrid points: l's and g's mass of
  // every grid point from Simpson-integrated tables; draws by alias table, scores by lookup.
  pool.parallel_for(n_active, [&](std::size_t begin, std::size_t end) {
    detail::GridScratch scratch;
    std::vector<double> pl, pg;
    for (std::size_t j = begin; j < end; ++j) {
      const detail::AxisModel& m = active_models[j];
      if (m.type != detail::AxisModel::Type::Discrete || has_grid[j]) continue;
      if (!detail::grid_masses(l, j, m, pl, scratch) || !detail::grid_masses(g, exact_index[j], m, pg, scratch))
        continue;
      if (grid_axes[j].build_discrete(space.axes[active[j]], m, pl, pg)) has_grid[j] = 1;
    }
  });

  // Axes with one value: constant.
  for (std::size_t a = 0; a < d; ++a) {
    if (!models[a].single) continue;
    const Axis& axis = space.axes[a];
    const double v = axis.is_numeric() ? axis.low : axis.choice_value(0);
    for (std::size_t i = 0; i < block.n; ++i) out[i * d + a] = v;
  }

  // Work items are (axis, run of kTrialRun trials), axis-major, so that a worker keeps one
  // axis' tables in cache while it draws that axis for many trials.
  const std::size_t n_runs = (block.n + kTrialRun - 1) / kTrialRun;
  pool.parallel_for(n_active * n_runs, [&](std::size_t item_begin, std::size_t item_end) {
    std::vector<double> scratch;
    // Per-worker grid caches: [2 * grid index] = log l, [2 * grid index + 1] = log g; NaN = not yet.
    std::vector<std::vector<double>> grid_cache(n_active);
    std::vector<std::size_t> component(n_cand);
    std::vector<double> raw(n_cand);
    for (std::size_t item = item_begin; item < item_end; ++item) {
      const std::size_t run = item % n_runs, j = item / n_runs;
      const std::size_t i_begin = run * kTrialRun, i_end = std::min(block.n, i_begin + kTrialRun);
      const std::size_t a = active[j];
      const Axis& axis = space.axes[a];
      const detail::AxisModel& m = active_models[j];
      if (has_grid[j]) {
        // One random word a candidate: alias draw of a grid point, score by lookup.
        const detail::GridFastAxis& ga = grid_axes[j];
        for (std::size_t i = i_begin; i < i_end; ++i) {
          auto engine = make_trial_engine(seed, block.first + i, axis_purpose(a));
          const std::size_t best = ga.best(engine, n_cand);
          out[i * d + a] = ga.external[best];
          block.internal[i * d + a] = ga.internal[best];
        }
        continue;
      }
      if (has_table[j]) {
        // One random word a candidate, scored along u; only the winner is mapped.
        const detail::ContinuousFastAxis& f = fast_axes[j];
        if (detail::log_int_points(axis, m) > 0) {
          // Log int with more than kMaxFastGrid integers: scored after rounding, as in Optuna.
          for (std::size_t i = i_begin; i < i_end; ++i) {
            auto engine = make_trial_engine(seed, block.first + i, axis_purpose(a));
            double best_score = -std::numeric_limits<double>::infinity(), best_raw = 0.0;
            for (std::size_t c = 0; c < n_cand; ++c) {
              const double r = f.cand.draw(engine());
              const double acq = f.score.at(m.to_internal(axis, m.to_external(axis, r)));
              if (c == 0 || acq > best_score) {
                best_score = acq;
                best_raw = r;
              }
            }
            const double external = m.to_external(axis, best_raw);
            out[i * d + a] = external;
            block.internal[i * d + a] = m.to_internal(axis, external);
          }
          continue;
        }
        for (std::size_t i = i_begin; i < i_end; ++i) {
          auto engine = make_trial_engine(seed, block.first + i, axis_purpose(a));
          const double external = m.to_external(axis, f.cand.draw(f.best(engine, n_cand)));
          out[i * d + a] = external;
          block.internal[i * d + a] = m.to_internal(axis, external);
        }
        continue;
      }
      const std::size_t jg = exact_index[j];
      std::vector<double>* cache = grid_cache_for(grid_cache, j, axis);
      for (std::size_t i = i_begin; i < i_end; ++i) {
        auto engine = make_trial_engine(seed, block.first + i, axis_purpose(a));
        for (std::size_t c = 0; c < n_cand; ++c) component[c] = picker.pick(uniform01(engine));
        for (std::size_t c = 0; c < n_cand; ++c) raw[c] = l.sample(j, component[c], uniform01(engine));
        const auto [best_external, best_internal] =
            best_exact_candidate(l, j, g, jg, m, axis, raw.data(), n_cand, cache, scratch);
        out[i * d + a] = best_external;
        block.internal[i * d + a] = best_internal;
      }
    }
  });
}

void TpeSampler::ask(std::uint64_t first_trial, std::size_t n, double* out) {
  State& s = *state_;
  if (s.asked_any && first_trial != s.next_trial)
    throw make_error("tpe sampler: ask of trials {}.. out of order (expected trial {} next)", first_trial,
                     s.next_trial);
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
  s.space.check_rows("tpe sampler: adopt", first_trial, n, values);
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
  const std::vector<RankedOutcome> told = ranked(outcomes, s.direction);
  for (std::size_t i = 0; i < told.size(); ++i)
    if (std::isnan(told[i].violation))
      throw make_error("tpe sampler: trial {}: constraint violation is NaN", first_trial + i);
  const std::size_t d = s.space.size();
  const std::size_t n_before = s.score.size();
  std::vector<std::size_t> kept;  // the block's non-failed trials
  for (std::size_t i = 0; i < told.size(); ++i) {
    if (std::isnan(told[i].score)) continue;  // failed: ignored, like Optuna's FAIL
    kept.push_back(i);
    s.score.push_back(told[i].score);
    s.violation.push_back(told[i].violation);
    s.trial.push_back(first_trial + i);
  }
  const std::size_t n_after = s.score.size();
  // Append the kept rows to the columns, in runs of trials (each run's rows stay in cache
  // while a worker's axes read them).
  s.pool.parallel_for(d, [&](std::size_t begin, std::size_t end) {
    for (std::size_t a = begin; a < end; ++a) s.internal[a].resize(n_after);
    // A transpose in tiles of kRun rows x kAxes columns: each row's cache line is read once
    // per tile, and each column is written in a sequential run.
    constexpr std::size_t kRun = 256, kAxes = 8;
    for (std::size_t k0 = 0; k0 < kept.size(); k0 += kRun) {
      const std::size_t k1 = std::min(kept.size(), k0 + kRun);
      for (std::size_t a0 = begin; a0 < end; a0 += kAxes) {
        const std::size_t a1 = std::min(end, a0 + kAxes);
        for (std::size_t k = k0; k < k1; ++k) {
          const double* row = block.internal.data() + kept[k] * d;
          for (std::size_t a = a0; a < a1; ++a) s.internal[a][n_before + k] = row[a];
        }
      }
    }
  });
  s.pending.pop_front();
  if (s.keep_sorted && n_after > n_before) {
    // Indices are 32-bit, the two highest kept for the prior's centre and "none".
    if (n_after > detail::kMaxObservations)
      throw make_error("tpe sampler: more than {} observations", detail::kMaxObservations);
    // Merge the told trials into each numeric axis' sorted runs: a radix sort of the batch,
    // then merges of amortized O(min(n, 262,144) + b log n).
    s.pool.parallel_for(s.active.size(), [&](std::size_t begin, std::size_t end) {
      std::vector<std::pair<std::uint64_t, std::uint32_t>> fresh, tmp;
      detail::SortedRun batch, scratch;
      detail::StagedBatch staged;
      for (std::size_t j = begin; j < end; ++j) {
        // Continuous axes (their g is built from the order before the running sums, and
        // without magic clip always), and the axes whose g the running sums can hold.
        const detail::AxisModel& m = s.active_models[j];
        const bool can_hold = detail::ObservedKernels::can_hold(m, s.params);
        if (m.type != detail::AxisModel::Type::Continuous && !can_hold) continue;
        const std::size_t a = s.active[j];
        const double* v = s.internal[a].data();
        // The new observations sorted by (value, index).
        fresh.resize(n_after - n_before);
        for (std::size_t i = 0; i < fresh.size(); ++i)
          fresh[i] = {detail::order_key(v[n_before + i]), static_cast<std::uint32_t>(n_before + i)};
        detail::radix_sort(fresh, tmp);
        batch.value.resize(fresh.size());
        batch.index.resize(fresh.size());
        for (std::size_t k = 0; k < fresh.size(); ++k) {
          batch.index[k] = fresh[k].second;
          batch.value[k] = v[fresh[k].second];
        }
        // g's running sums take the batch in (built once the axis has enough observations),
        // then the runs do. g built straight from the order (before the sums) needs one run.
        detail::SortedRuns& runs = s.sorted[a];
        detail::ObservedKernels& kernels = s.observed[a];
        runs.stage(batch, staged);
        if (kernels.ready()) kernels.update(runs, batch, staged);
        const bool sums = can_hold && n_after >= detail::ObservedKernels::kFromObservations;
        runs.commit(staged, !sums, scratch);
        if (!kernels.ready() && sums) kernels.rebuild(runs, m, s.params);
      }
    });
  }
}

}  // namespace tpeopt::tpe
