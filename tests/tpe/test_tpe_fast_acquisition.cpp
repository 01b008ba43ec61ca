// Fast acquisition (docs/tpe.md, "Fast acquisition") against the exact one: the tabulated
// densities stay within the documented error bound; the fast candidate distribution's CDF
// differs from the exact mixture's by at most the documented bound; and, given the same
// candidate set, the fast sampler picks the exact scorer's argmax in at least 99% of draws on
// random spaces and observation sets.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

#include "support/test_rng.hpp"
#include "tpe/fast_acquisition.hpp"
#include "tpe/parzen_estimator.hpp"
#include "tpe/tpe_sampler.hpp"
#include "tpe/trial_rng.hpp"
#include "tpe/truncated_normal.hpp"

using namespace tpeopt::tpe;
using detail::AxisModel;

namespace {

// The documented bound on |log l_fast - log l_exact| (and g) over the domain (docs/tpe.md).
constexpr double kDensityErrorBound = 3e-4;
// The documented bound on the largest difference between the CDF of the fast candidate
// draws and the exact mixture's CDF of l (docs/tpe.md), continuous and grid axes.
constexpr double kCandidateCdfBound = 5e-4;

using tpeopt::testing::Rng;

Axis random_axis(Rng& rng, std::size_t i, bool continuous_only) {
  Axis a;
  a.name = "a" + std::to_string(i);
  const std::size_t kind = rng.below(continuous_only ? 3 : 6);
  switch (kind) {
    case 0:  // float
      a.low = -10.0 * rng.u01();
      a.high = a.low + 0.1 + 20.0 * rng.u01();
      break;
    case 1:  // log float
      a.low = 1e-4 + rng.u01();
      a.high = a.low * (2.0 + 1000.0 * rng.u01());
      a.log = true;
      break;
    case 2:  // log int
      a.kind = Axis::Kind::Int;
      a.low = 1.0 + static_cast<double>(rng.below(5));
      a.high = a.low + 20.0 + static_cast<double>(rng.below(5000));
      a.step = 1.0;
      a.log = true;
      break;
    case 3:  // int
      a.kind = Axis::Kind::Int;
      a.low = -static_cast<double>(rng.below(50));
      a.high = a.low + 1.0 + static_cast<double>(rng.below(200));
      a.step = 1.0;
      break;
    case 4:  // stepped float
      a.low = 0.0;
      a.step = 0.25;
      a.high = 0.25 * static_cast<double>(2 + rng.below(100));
      break;
    default:  // categorical
      a.kind = Axis::Kind::Categorical;
      for (std::size_t c = 0, n = 2 + rng.below(6); c < n; ++c) a.choices.push_back(static_cast<double>(c * 10));
  }
  return a;
}

}  // namespace

TEST_CASE("Fast acquisition: tabulated log densities stay within the documented bound", "[cpu][tpe]") {
  double worst = 0.0;
  for (std::uint64_t trial = 0; trial < 40; ++trial) {
    Rng rng(1000 + trial);
    const Axis axis = random_axis(rng, 0, true);
    const AxisModel model = AxisModel::of(axis);
    // Observations: uniform or clustered internal values; 10 .. 5000 of them.
    const auto n = static_cast<std::size_t>(std::exp(std::log(10.0) + rng.u01() * std::log(500.0)));
    std::vector<double> column(n);
    const double centre = model.low + rng.u01() * (model.high - model.low);
    const bool clustered = rng.u01() < 0.5;
    for (double& v : column) {
      double x = model.low + rng.u01() * (model.high - model.low);
      if (clustered) x = centre + (x - centre) * rng.u01() * rng.u01();
      v = model.to_internal(axis, axis.snap(model.log ? std::exp(x) : x));
    }
    std::vector<std::size_t> members;
    for (std::size_t i = 0; i < n; ++i)
      if (rng.u01() < 0.5 || i < 2) members.push_back(i);
    detail::ParzenParameters params;
    params.fast_tails = true;
    const std::vector<AxisModel> models{model};
    const std::vector<std::span<const double>> columns{column};
    const detail::ParzenEstimator est(models, columns, members, params);
    detail::ParzenParameters exact_params;
    const detail::ParzenEstimator exact(models, columns, members, exact_params);
    detail::GridTable table;
    REQUIRE(detail::log_density_grid(est, 0, model, detail::kGridCells, table));
    // The sampler scores with the same interpolant stored per cell (CubicTable): both checked.
    detail::CubicTable cubic;
    REQUIRE(cubic.build(table));
    std::vector<double> scratch;
    double err = 0.0;
    for (int k = 0; k <= 20000; ++k) {
      const double x = std::min(model.high, k % 2 ? model.low + rng.u01() * (model.high - model.low)
                                                  : model.low + (model.high - model.low) * k / 20000.0);
      const double exact_log = exact.log_pdf(0, x, scratch);
      err = std::max({err, std::fabs(table.at(x) - exact_log), std::fabs(cubic.at(x) - exact_log)});
    }
    CAPTURE(trial, n, members.size(), clustered, axis.log, axis.step, err);
    CHECK(err <= kDensityErrorBound);
    worst = std::max(worst, err);
  }
  std::printf("fast acquisition: max |log density error| over 40 estimators: %.3g\n", worst);
}

namespace {

// The exact CDF of continuous axis 0 of an estimator (a mixture of truncated normals).
double mixture_cdf(const detail::ParzenEstimator& est, double x) {
  double f = 0.0;
  for (std::size_t k = 0; k < est.n_kernels(); ++k) {
    const double a = est.lower_z(0)[k], b = est.upper_z(0)[k];
    const double z = std::clamp((x - est.mus(0)[k]) / est.sigmas(0)[k], a, b);
    const double pa = truncnorm::ndtr(a), pb = truncnorm::ndtr(b);
    f += est.weights()[k] * (truncnorm::ndtr(z) - pa) / (pb - pa);
  }
  return f;
}

// The CDF of CandidateTable::draw at x: u = (j + frac) / M where x = Q_j + frac dQ_j.
double draw_cdf(const detail::CandidateTable& t, double x) {
  const std::size_t M = detail::kQuantileCells;
  if (x <= t.q[0]) return 0.0;
  if (x >= t.high) return 1.0;
  std::size_t lo = 0, hi = M - 1;  // last j with Q_j <= x
  while (lo < hi) {
    const std::size_t mid = (lo + hi + 1) / 2;
    if (t.q[2 * mid] <= x) lo = mid;
    else hi = mid - 1;
  }
  const double dq = t.q[2 * lo + 1];
  const double frac = dq > 0.0 ? std::clamp((x - t.q[2 * lo]) / dq, 0.0, 1.0) : 1.0;
  return (static_cast<double>(lo) + frac) / static_cast<double>(M);
}

// Random observations of one axis (internal values), uniform or clustered.
std::vector<double> random_column(Rng& rng, const Axis& axis, const AxisModel& model, std::size_t n) {
  std::vector<double> column(n);
  const double lo = axis.is_numeric() ? (model.log ? std::log(axis.low) : axis.low) : 0.0;
  const double hi = axis.is_numeric() ? (model.log ? std::log(axis.high) : axis.high) : 1.0;
  const double centre = lo + rng.u01() * (hi - lo);
  const bool clustered = rng.u01() < 0.5;
  for (double& v : column) {
    double x = lo + rng.u01() * (hi - lo);
    if (clustered) x = centre + (x - centre) * rng.u01() * rng.u01();
    v = model.to_internal(axis, axis.snap(model.log ? std::exp(x) : x));
  }
  return column;
}

}  // namespace

TEST_CASE("Fast acquisition: the candidate distribution's CDF is within the documented bound", "[cpu][tpe]") {
  double worst_continuous = 0.0, worst_grid = 0.0, worst_log_mass = 0.0, u_score_max = 0.0;
  std::size_t u_score_over = 0, u_score_n = 0;
  for (std::uint64_t trial = 0; trial < 60; ++trial) {
    Rng rng(5000 + trial);
    const Axis axis = random_axis(rng, 0, false);
    if (axis.kind == Axis::Kind::Categorical) continue;
    const AxisModel model = AxisModel::of(axis);
    const auto n = static_cast<std::size_t>(std::exp(std::log(2.0) + rng.u01() * std::log(1000.0)));
    const std::vector<double> column = random_column(rng, axis, model, n);
    // l's members: at most 25 (the below group), sometimes more.
    const std::size_t n_members = std::min(n, rng.u01() < 0.7 ? std::size_t{25} : n);
    std::vector<std::size_t> members;
    for (std::size_t i = 0; i < n_members; ++i) members.push_back(i);
    detail::ParzenParameters fast_params;
    fast_params.fast_tails = true;
    const std::vector<AxisModel> models{model};
    const std::vector<std::span<const double>> columns{column};
    const detail::ParzenEstimator l(models, columns, members, fast_params);
    const detail::ParzenEstimator exact(models, columns, members, detail::ParzenParameters{});
    CAPTURE(trial, n, n_members, axis.log, axis.step, static_cast<int>(axis.kind));
    if (model.type == AxisModel::Type::Continuous) {
      detail::GridTable tl;
      REQUIRE(detail::log_density_grid(l, 0, model, detail::kGridCells, tl));
      // g: an estimator over every observation (l's members are its first ones).
      std::vector<std::size_t> everyone(n);
      for (std::size_t i = 0; i < n; ++i) everyone[i] = i;
      const detail::ParzenEstimator g(models, columns, everyone, fast_params);
      detail::GridTable tg;
      REQUIRE(detail::log_density_grid(g, 0, model, detail::kGridCells, tg));
      detail::ContinuousFastAxis f;
      REQUIRE(f.build(tl, tg));
      double err = 0.0;
      for (std::size_t j = 0; j <= 20000; ++j) {
        const double x = model.low + (model.high - model.low) * static_cast<double>(j) / 20000.0;
        err = std::max(err, std::fabs(draw_cdf(f.cand, x) - mixture_cdf(exact, x)));
      }
      for (std::size_t j = 0; j < detail::kQuantileCells; ++j) {
        const double x = f.cand.q[2 * j];
        err = std::max(err, std::fabs(draw_cdf(f.cand, x) - mixture_cdf(exact, x)));
      }
      CHECK(err <= kCandidateCdfBound);
      worst_continuous = std::max(worst_continuous, err);
      // The score read along u against the cubic at the drawn value, over random words.
      SplitMix64 words(trial);
      for (int k = 0; k < 20000; ++k) {
        const std::uint64_t w = words();
        const double e = std::fabs(f.cand.score(w) - f.score.at(f.cand.draw(w)));
        u_score_max = std::max(u_score_max, e);
        u_score_over += e > 1e-4 ? 1 : 0;
        ++u_score_n;
      }
      detail::GridFastAxis ga;
      if (ga.build_log_int(axis, model, f)) {
        // Rounded to the integers: the alias table's CDF against the exact integer masses.
        const std::vector<double> p = ga.alias.probabilities();
        const double step = axis.step > 0.0 ? axis.step : 1.0;
        double cf = 0.0, gerr = 0.0;
        for (std::size_t v = 0; v < p.size(); ++v) {
          cf += p[v];
          const double edge = v + 1 == p.size() ? model.high : std::log(ga.external[v] + step / 2);
          gerr = std::max(gerr, std::fabs(cf - mixture_cdf(exact, edge)));
        }
        CHECK(gerr <= kCandidateCdfBound);
        worst_grid = std::max(worst_grid, gerr);
      }
    } else {
      detail::GridScratch scratch;
      std::vector<double> pl;
      REQUIRE(detail::grid_masses(l, 0, model, pl, scratch));
      detail::GridFastAxis ga;
      REQUIRE(ga.build_discrete(axis, model, pl, pl));
      const std::vector<double> p = ga.alias.probabilities();
      std::vector<double> scratch2;
      double cf = 0.0, ce = 0.0, gerr = 0.0, lerr = 0.0;
      for (std::size_t v = 0; v < p.size(); ++v) {
        const double pe = std::exp(exact.log_pdf(0, ga.internal[v], scratch2));
        cf += p[v];
        ce += pe;
        gerr = std::max(gerr, std::fabs(cf - ce));
        // Relative error of the tabulated mass (before the alias table's 2^-32 rounding).
        if (pe > 1e-30) lerr = std::max(lerr, std::fabs(std::log(pl[v]) - std::log(pe)));
      }
      CHECK(gerr <= kCandidateCdfBound);
      CHECK(lerr <= kDensityErrorBound);
      worst_grid = std::max(worst_grid, gerr);
      worst_log_mass = std::max(worst_log_mass, lerr);
    }
  }
  std::printf(
      "fast acquisition: max |CDF_fast - CDF_exact|: continuous %.3g, grid %.3g; max |log mass error| (int, "
      "stepped) %.3g\n",
      worst_continuous, worst_grid, worst_log_mass);
  // Informative (see the agreement test for the effect on picks).
  std::printf("fast acquisition: score along u vs cubic at the draw: max %.3g, > 1e-4 in %zu of %zu words\n",
              u_score_max, u_score_over, u_score_n);
}

TEST_CASE("Fast acquisition: picks the exact scorer's argmax of its candidates in >= 99% of draws", "[cpu][tpe]") {
  // The fast sampler draws candidates differently from the exact one, so the two are
  // compared on the same candidate set: each (trial, axis) of the fast sampler's batch is
  // replayed from its stream, its candidates rebuilt from l's tables, and scored exactly
  // (ParzenEstimator::log_pdf, Optuna's scoring); the fast sampler must have proposed the
  // exact argmax. Categorical axes use the exact path in both modes and are compared with
  // the exact sampler's proposals.
  std::size_t same = 0, total = 0;
  std::size_t same_kind[3] = {0, 0, 0}, total_kind[3] = {0, 0, 0};  // continuous, grid, categorical
  for (std::uint64_t trial = 0; trial < 40; ++trial) {
    Rng rng(77 + trial);
    SearchSpace space;
    const std::size_t d = 1 + rng.below(5);
    for (std::size_t a = 0; a < d; ++a) space.axes.push_back(random_axis(rng, a, false));
    const auto n = static_cast<std::size_t>(std::exp(std::log(10.0) + rng.u01() * std::log(300.0)));
    const bool random_scores = trial % 2 == 0;
    TpeConfig fast_config, exact_config;
    exact_config.acquisition = Acquisition::Exact;
    TpeSampler fast(space, Direction::Minimize, trial, fast_config);
    TpeSampler exact(space, Direction::Minimize, trial, exact_config);
    std::vector<double> obs(n * d), obs2(n * d);
    fast.ask(0, n, obs.data());  // startup: random, the same for both
    exact.ask(0, n, obs2.data());
    REQUIRE(obs == obs2);
    std::vector<TrialOutcome> outcomes(n);
    std::vector<double> score(n), violation(n, 0.0);
    for (std::size_t i = 0; i < n; ++i) {
      double y = rng.u01();
      if (!random_scores) {
        y = 0.0;
        for (std::size_t a = 0; a < d; ++a) {
          const Axis& axis = space.axes[a];
          const double v = obs[i * d + a];
          y += axis.is_numeric() ? std::fabs((v - axis.low) / (axis.high - axis.low) - 0.3)
                                 : (v == axis.choices[0] ? 0.0 : 0.5);
        }
      }
      outcomes[i] = {y, 0.0};
      score[i] = y;
    }
    fast.tell(0, outcomes);
    exact.tell(0, outcomes);
    const std::size_t batch = 64;
    std::vector<double> pf(batch * d), pe(batch * d);
    fast.ask(n, batch, pf.data());
    exact.ask(n, batch, pe.data());

    // The split, as the sampler makes it.
    const std::vector<char> is_below =
        detail::split_below(score, violation, Direction::Minimize, detail::default_gamma(n));
    std::vector<std::size_t> below, above;
    for (std::size_t i = 0; i < n; ++i) (is_below[i] ? below : above).push_back(i);
    detail::ParzenParameters fast_params;
    fast_params.fast_tails = true;
    const std::size_t n_cand = static_cast<std::size_t>(fast_config.n_ei_candidates);
    for (std::size_t a = 0; a < d; ++a) {
      const Axis& axis = space.axes[a];
      const AxisModel model = AxisModel::of(axis);
      if (model.single) continue;
      CAPTURE(trial, a, n, static_cast<int>(axis.kind), axis.log, axis.step);
      if (model.type == AxisModel::Type::Categorical) {
        for (std::size_t i = 0; i < batch; ++i) {
          const bool ok = pf[i * d + a] == pe[i * d + a];
          same += ok;
          same_kind[2] += ok;
          ++total;
          ++total_kind[2];
        }
        continue;
      }
      std::vector<double> column(n);
      for (std::size_t i = 0; i < n; ++i) column[i] = model.to_internal(axis, obs[i * d + a]);
      const std::vector<AxisModel> models{model};
      const std::vector<std::span<const double>> columns{column};
      const detail::ParzenEstimator l(models, columns, below, fast_params);
      const detail::ParzenEstimator g(models, columns, above, fast_params);
      const detail::ParzenEstimator le(models, columns, below, detail::ParzenParameters{});
      const detail::ParzenEstimator ge(models, columns, above, detail::ParzenParameters{});
      std::vector<double> scratch;
      auto exact_score = [&](double x) {
        const double v = le.log_pdf(0, x, scratch) - ge.log_pdf(0, x, scratch);
        return std::isnan(v) ? -std::numeric_limits<double>::infinity() : v;
      };
      // Rebuild the candidate tables (they depend on l only).
      detail::ContinuousFastAxis f;
      detail::GridFastAxis ga;
      bool grid = false;
      if (model.type == AxisModel::Type::Continuous) {
        detail::GridTable tl, tg;
        REQUIRE(detail::log_density_grid(l, 0, model, detail::kGridCells, tl));
        REQUIRE(detail::log_density_grid(g, 0, model, detail::kGridCells, tg));
        REQUIRE(f.build(tl, tg));
        grid = ga.build_log_int(axis, model, f);
      } else {
        detail::GridScratch gs;
        std::vector<double> pl, pg;
        REQUIRE(detail::grid_masses(l, 0, model, pl, gs));
        REQUIRE(detail::grid_masses(g, 0, model, pg, gs));
        REQUIRE(ga.build_discrete(axis, model, pl, pg));
        grid = true;
      }
      const bool rounded = detail::log_int_points(axis, model) > 0;
      for (std::size_t i = 0; i < batch; ++i) {
        auto engine = make_trial_engine(trial, n + i, static_cast<std::uint64_t>(a) + 1);
        double expected = 0.0, best = -std::numeric_limits<double>::infinity();
        for (std::size_t c = 0; c < n_cand; ++c) {
          const std::uint64_t word = engine();
          double external, x;
          if (grid) {
            const std::size_t v = ga.alias.draw(word);
            external = ga.external[v];
            x = ga.internal[v];
          } else {
            const double r = f.cand.draw(word);
            external = model.to_external(axis, r);
            x = rounded ? model.to_internal(axis, external) : r;
          }
          const double s = exact_score(x);
          if (c == 0 || s > best) {
            best = s;
            expected = external;
          }
        }
        const bool ok = pf[i * d + a] == expected;
        same += ok;
        same_kind[grid ? 1 : 0] += ok;
        ++total;
        ++total_kind[grid ? 1 : 0];
      }
    }
  }
  const double agreement = static_cast<double>(same) / static_cast<double>(total);
  std::printf(
      "fast acquisition: exact argmax of the same candidates in %zu of %zu draws (%.4f): continuous %zu/%zu, "
      "grid %zu/%zu, categorical %zu/%zu\n",
      same, total, agreement, same_kind[0], total_kind[0], same_kind[1], total_kind[1], same_kind[2], total_kind[2]);
  CAPTURE(same, total, agreement, same_kind[0], total_kind[0], same_kind[1], total_kind[1]);
  CHECK(agreement >= 0.99);
  // Per kind too: categorical draws take the exact path in both modes, so the total alone
  // could hide a continuous or grid axis that falls below 99%.
  for (int kind : {0, 1}) {
    REQUIRE(total_kind[kind] > 0);
    CHECK(static_cast<double>(same_kind[kind]) >= 0.99 * static_cast<double>(total_kind[kind]));
  }
}

TEST_CASE("Alias table: draw() gives each point the probability the table holds", "[cpu][tpe]") {
  // Words laid evenly over every column (high 32 bits) and over the threshold test (low 32
  // bits, kLevels levels): each point's share of the draws must be its probability up to the
  // levels' resolution, and a point of mass 0 is never drawn.
  constexpr std::uint64_t kLevels = 1 << 14;
  Rng rng(17);
  for (const std::size_t n : {1u, 2u, 7u, 1001u}) {
    std::vector<double> p(n);
    for (std::size_t v = 0; v < n; ++v) p[v] = rng.below(5) == 0 ? 0.0 : rng.u01();
    p[rng.below(n)] = 1.0;  // not all zero
    detail::AliasTable table;
    table.build(p);
    const std::vector<double> expected = table.probabilities();
    // build(): the table's probabilities are p normalized, up to the thresholds' 2^-32 steps.
    double total = 0.0;
    for (const double x : p) total += x;
    for (std::size_t v = 0; v < n; ++v) CHECK(std::fabs(expected[v] - p[v] / total) <= 0x1p-32);
    std::vector<double> share(n, 0.0);
    for (std::size_t j = 0; j < n; ++j) {
      // The first high word of column j: j == (hi * n) >> 32.
      const std::uint64_t hi = ((static_cast<std::uint64_t>(j) << 32) + n - 1) / n;
      REQUIRE(((hi * n) >> 32) == j);
      for (std::uint64_t k = 0; k < kLevels; ++k) {
        const std::uint64_t lo = k * ((std::uint64_t{1} << 32) / kLevels) + (std::uint64_t{1} << 32) / kLevels / 2;
        share[table.draw((hi << 32) | lo)] += 1.0 / static_cast<double>(n * kLevels);
      }
    }
    // A column's share of its point is off by at most one level, so a point's share by at
    // most one level per column that gives it draws: its own and those aliased to it.
    std::vector<double> columns(n, 1.0);
    for (std::size_t j = 0; j < n; ++j)
      if (static_cast<std::size_t>(table.entry[j] >> 33) != j) columns[table.entry[j] >> 33] += 1.0;
    for (std::size_t v = 0; v < n; ++v) {
      CAPTURE(n, v, p[v], expected[v], share[v], columns[v]);
      if (p[v] == 0.0) CHECK(share[v] == 0.0);
      CHECK(std::fabs(share[v] - expected[v]) <= columns[v] / static_cast<double>(n * kLevels) + 1e-15);
    }
  }
}
