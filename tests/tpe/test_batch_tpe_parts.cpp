// Batch TPE's parts one at a time (docs/tpe.md, "Batch TPE"): UnitSpace's round trip, the
// good set model's rank weights, covariance and bandwidths, DensityRatio against a direct
// computation of log l - log g, and the screening: which trials are screened and that the
// chosen candidate has the largest score among its candidates; the joint step size's response
// to success and failure.
#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <limits>
#include <vector>

#include "common/worker_pool.hpp"
#include "support/sampler_fixtures.hpp"
#include "tpe/batch_tpe_sampler.hpp"
#include "tpe/density_ratio.hpp"
#include "tpe/good_pool.hpp"
#include "tpe/good_set_model.hpp"
#include "tpe/random_sampler_impl.hpp"
#include "tpe/screening.hpp"
#include "tpe/trial_rng.hpp"
#include "tpe/unit_space.hpp"

using namespace tpeopt;
using namespace tpeopt::testing;
using tpe::DensityRatio;
using tpe::Direction;
using tpe::GoodPool;
using tpe::GoodSetModel;
using tpe::ProposalOperator;
using tpe::RankedTrial;
using tpe::UnitSpace;

namespace {

// Every kind of axis the unit space maps, and one single-valued axis (no code).
SearchSpace all_kinds() {
  SearchSpace s;
  s.axes = {
      float_axis("f", -2.0, 3.0), float_axis("lf", 1e-3, 10.0, 0.0, true), float_axis("sf", 0.0, 1.0, 0.01),
      int_axis("i", 3.0, 40.0),   int_axis("li", 1.0, 1000.0, 1.0, true),  categorical_axis("c", {2.5, -1.0, 7.0}),
      int_axis("one", 5.0, 5.0)};
  return s;
}

// A pool of n told trials with the given codes (n_codes each), ranked by `scores`
// (minimized); the recent trials are all of them.
GoodPool make_pool(std::size_t n_codes, const std::vector<double>& codes, const std::vector<double>& scores) {
  GoodPool pool(n_codes, Direction::Minimize);
  pool.reserve_best(scores.size());
  pool.reserve_recent(scores.size());
  std::vector<RankedTrial> trials;
  for (std::size_t i = 0; i < scores.size(); ++i) trials.push_back({i, scores[i], 0.0});
  pool.add(trials, codes);
  return pool;
}

double normal_pdf(double x, double mean, double h) {
  const double z = (x - mean) / h;
  return std::exp(-0.5 * z * z) / (h * std::sqrt(2.0 * M_PI));
}

}  // namespace

TEST_CASE("UnitSpace: codes round-trip to the same values, a stepped axis' grid on the widened range", "[cpu]") {
  const SearchSpace space = all_kinds();
  const UnitSpace unit(space);
  REQUIRE(unit.n_codes() == 6);  // the single-valued axis has no code
  for (std::size_t c = 0; c < unit.n_codes(); ++c) CHECK(unit.axis(c) == c);
  // The unit step is one grid value's share of the range widened by half a step each side.
  CHECK(unit.unit_step(2) == Approx(1.0 / 101.0).epsilon(1e-12));
  CHECK(unit.unit_step(3) == Approx(1.0 / 38.0).epsilon(1e-12));
  CHECK(unit.unit_step(0) == 0.0);
  CHECK(unit.unit_step(1) == 0.0);
  CHECK(unit.unit_step(4) == 0.0);  // log-int: continuous in log space, rounded

  auto engine = tpe::make_trial_engine(7, 0);
  std::vector<double> x(space.size()), codes(unit.n_codes()), back(space.size());
  for (int t = 0; t < 2000; ++t) {
    for (std::size_t a = 0; a < space.size(); ++a) x[a] = tpe::sample_uniform(space.axes[a], engine);
    unit.to_codes(x.data(), codes.data());
    for (std::size_t c = 0; c < unit.n_codes(); ++c) {
      if (unit.categorical(c)) {
        CHECK(codes[c] == static_cast<double>(space.axes[c].choice_index(x[c])));
      } else {
        CHECK(codes[c] >= 0.0);
        CHECK(codes[c] <= 1.0);
      }
    }
    unit.to_external(codes.data(), back.data());
    CHECK(back[0] == Approx(x[0]).epsilon(1e-12));
    CHECK(back[1] == Approx(x[1]).epsilon(1e-12));
    for (std::size_t a = 2; a < space.size(); ++a) CHECK(back[a] == x[a]);  // discrete: exact
    // snap_code maps any unit coordinate onto the code of a grid value, idempotently.
    for (std::size_t c : {std::size_t{2}, std::size_t{3}, std::size_t{4}}) {
      const double u = tpe::sample_uniform(float_axis("u", 0.0, 1.0), engine);
      const double s = unit.snap_code(c, u);
      CHECK(unit.snap_code(c, s) == s);
      CHECK(space.axes[c].contains(unit.value(c, s)));
      CHECK(unit.code(c, unit.value(c, s)) == s);
    }
  }
  // Each grid value of the stepped axis owns the cell of width unit_step around its code.
  const double step = unit.unit_step(2);
  for (int k = 0; k <= 100; ++k) {
    const double centre = (k + 0.5) * step;
    CHECK(unit.value(2, centre) == Approx(0.01 * k).margin(1e-12));
    CHECK(unit.value(2, centre - 0.49 * step) == Approx(0.01 * k).margin(1e-12));
    CHECK(unit.value(2, centre + 0.49 * step) == Approx(0.01 * k).margin(1e-12));
  }
}

TEST_CASE("GoodSetModel: rank weights, weighted covariance and bandwidths as a direct computation", "[cpu]") {
  SearchSpace space;
  space.axes = {float_axis("a", 0.0, 1.0), float_axis("b", 0.0, 1.0), float_axis("s", 0.0, 1.0, 0.25),
                categorical_axis("c", {1.0, 2.0, 3.0, 4.0})};
  const UnitSpace unit(space);
  const std::size_t nc = unit.n_codes(), n = 40, size = 12;
  auto engine = tpe::make_trial_engine(11, 0);
  std::vector<double> codes(n * nc), scores(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double t = tpe::sample_uniform(float_axis("u", 0.0, 1.0), engine);
    codes[i * nc + 0] = 0.4 + 0.2 * t;  // a and b correlated, far from the bounds
    codes[i * nc + 1] = 0.45 + 0.1 * t + 0.05 * tpe::sample_uniform(float_axis("u", 0.0, 1.0), engine);
    codes[i * nc + 2] = unit.snap_code(2, tpe::sample_uniform(float_axis("u", 0.0, 1.0), engine));
    codes[i * nc + 3] = static_cast<double>(i % 4);
    scores[i] = static_cast<double>((i * 17) % n);  // a permutation: rank order != trial order
  }
  const GoodPool pool = make_pool(nc, codes, scores);
  const GoodSetModel model(unit, pool, size);

  // Weights: ln(size + 1/2) - ln(r), normalized; effective size 1 / sum w^2.
  double total = 0.0;
  for (std::size_t r = 1; r <= size; ++r) total += std::log(size + 0.5) - std::log(static_cast<double>(r));
  double sum = 0.0, sum_sq = 0.0;
  for (std::size_t r = 0; r < size; ++r) {
    CHECK(model.weight(r) == Approx((std::log(size + 0.5) - std::log(r + 1.0)) / total).epsilon(1e-12));
    if (r > 0) CHECK(model.weight(r) < model.weight(r - 1));
    sum += model.weight(r);
    sum_sq += model.weight(r) * model.weight(r);
  }
  CHECK(sum == Approx(1.0).epsilon(1e-12));
  CHECK(model.effective_size() == Approx(1.0 / sum_sq).epsilon(1e-12));
  // The good set is the pool's best `size`, best first.
  for (std::size_t r = 0; r < size; ++r) CHECK(scores[pool.best(r).trial] == static_cast<double>(r));

  // Covariance over the numeric codes (a, b, s) about the weighted mean.
  REQUIRE(model.n_numeric() == 3);
  double mean[3] = {0, 0, 0};
  for (std::size_t r = 0; r < size; ++r)
    for (int j = 0; j < 3; ++j) mean[j] += model.weight(r) * model.codes(r)[j];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      double c = 0.0;
      for (std::size_t r = 0; r < size; ++r)
        c += model.weight(r) * (model.codes(r)[i] - mean[i]) * (model.codes(r)[j] - mean[j]);
      if (i == j) c = std::max(c, std::pow(0.5 * unit.unit_step(static_cast<std::size_t>(i)), 2));
      CHECK(model.covariance(static_cast<std::size_t>(i), static_cast<std::size_t>(j)) == Approx(c).epsilon(1e-9));
    }
  CHECK(model.covariance(0, 1) > 0.0);  // the correlation is there
  CHECK(model.joint_bandwidth() == Approx(std::pow(model.effective_size(), -1.0 / 7.0)).epsilon(1e-12));
  // Scott's bandwidth per numeric code: 1.06 sd neff^(-1/5), at least half a grid step.
  for (std::size_t j = 0; j < 3; ++j) {
    const double h = 1.06 * std::sqrt(model.covariance(j, j)) * std::pow(model.effective_size(), -0.2);
    CHECK(model.scott_bandwidth(j) == Approx(std::max(h, 0.5 * unit.unit_step(j))).epsilon(1e-12));
  }
  // l's choice probabilities: the good trials' weights plus the prior spread evenly.
  for (std::size_t k = 0; k < 4; ++k) {
    double p = model.prior_weight() / 4.0;
    for (std::size_t r = 0; r < size; ++r)
      if (model.codes(r)[3] == static_cast<double>(k)) p += model.weight(r);
    CHECK(model.choice_probability(3, k) == Approx(p / (1.0 + model.prior_weight())).epsilon(1e-12));
  }

  // The joint kernel draws with covariance (1 + h^2) C around the weighted mean (a mixture
  // of N(good trial, h^2 C) weighted by rank); the good set sits far from the bounds, so
  // reflection does not bend it.
  const std::size_t draws = 100000;
  std::vector<double> out(nc);
  double m[2] = {0, 0}, s2[3] = {0, 0, 0};
  std::vector<double> xs(2 * draws);
  for (std::size_t k = 0; k < draws; ++k) {
    auto e = tpe::make_trial_engine(3, k, 1);
    model.propose(ProposalOperator::Joint, e, out.data());
    xs[2 * k] = out[0];
    xs[2 * k + 1] = out[1];
    m[0] += out[0] / draws;
    m[1] += out[1] / draws;
  }
  for (std::size_t k = 0; k < draws; ++k) {
    const double u = xs[2 * k] - m[0], v = xs[2 * k + 1] - m[1];
    s2[0] += u * u / draws;
    s2[1] += u * v / draws;
    s2[2] += v * v / draws;
  }
  const double f = 1.0 + std::pow(model.joint_bandwidth(), 2);
  CHECK(m[0] == Approx(mean[0]).margin(0.003));
  CHECK(m[1] == Approx(mean[1]).margin(0.003));
  CHECK(s2[0] == Approx(f * model.covariance(0, 0)).epsilon(0.03));
  CHECK(s2[1] == Approx(f * model.covariance(0, 1)).epsilon(0.03));
  CHECK(s2[2] == Approx(f * model.covariance(1, 1)).epsilon(0.03));
}

TEST_CASE("DensityRatio: log l - log g as a direct sum of kernels, within the binning error", "[cpu]") {
  SearchSpace space;
  space.axes = {float_axis("a", 0.0, 1.0), categorical_axis("c", {1.0, 2.0, 3.0})};
  const UnitSpace unit(space);
  const std::size_t nc = 2, n = 300, size = 30;
  auto engine = tpe::make_trial_engine(5, 0);
  std::vector<double> codes(n * nc), scores(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double a = tpe::sample_uniform(float_axis("u", 0.0, 1.0), engine);
    codes[i * nc] = a;
    codes[i * nc + 1] = static_cast<double>(i % 3);
    scores[i] = std::abs(a - 0.3) + 0.05 * static_cast<double>(i % 3);  // good near 0.3, choice 0
  }
  const GoodPool pool = make_pool(nc, codes, scores);
  const GoodSetModel model(unit, pool, size);
  WorkerPool workers(1);
  const DensityRatio ratio(unit, model, pool, workers);

  // The direct computation: l = weighted kernels of the good set + prior, g = equal-weight
  // kernels of the other (recent, not good) trials + prior, both with Scott's h.
  std::vector<double> others;
  std::vector<int> other_choice;
  std::vector<bool> good(n, false);
  for (std::size_t r = 0; r < size; ++r) good[pool.best(r).trial] = true;
  for (std::size_t i = 0; i < n; ++i)
    if (!good[i]) {
      others.push_back(codes[i * nc]);
      other_choice.push_back(static_cast<int>(codes[i * nc + 1]));
    }
  REQUIRE(others.size() == n - size);
  const double h = model.scott_bandwidth(0), pl = model.prior_weight(), pg = 1.0 / (others.size() + 1.0);
  double lo = 1.0, hi = 0.0;
  for (std::size_t r = 0; r < size; ++r) {
    lo = std::min(lo, model.codes(r)[0]);
    hi = std::max(hi, model.codes(r)[0]);
  }
  auto direct_numeric = [&](double x) {
    double l = 0.0, g = 0.0;
    for (std::size_t r = 0; r < size; ++r) l += model.weight(r) * normal_pdf(x, model.codes(r)[0], h);
    for (double o : others) g += normal_pdf(x, o, h) / static_cast<double>(others.size());
    return std::log((l + pl) / (1.0 + pl)) - std::log((g + pg) / (1.0 + pg));
  };
  auto direct_choice = [&](int k) {
    double count = 0.0;
    for (int c : other_choice) count += c == k;
    const double g = (count / others.size() + pg / 3.0) / (1.0 + pg);
    return std::log(model.choice_probability(1, static_cast<std::size_t>(k))) - std::log(g);
  };
  // Between the good trials' extremes: linear binning and interpolation on nodes h/4 apart
  // are within 0.02 of the exact log ratio; a choice's term is exact. (Nearer the window's
  // ends [lo - 6h, hi + 6h], g misses the kernels of the trials outside the window.)
  int inside = 0;
  for (int t = 0; t <= 400; ++t) {
    const double x = t / 400.0;
    if (x < lo || x > hi) continue;
    ++inside;
    for (int k = 0; k < 3; ++k) {
      const double c[2] = {x, static_cast<double>(k)};
      CHECK(ratio.score(c) == Approx(direct_numeric(x) + direct_choice(k)).margin(0.02));
    }
  }
  CHECK(inside > 50);
  // The ratio prefers where the good trials are: near 0.3 and choice 0.
  const double near[2] = {0.3, 0.0}, far[2] = {0.9, 2.0};
  CHECK(ratio.score(near) > ratio.score(far) + 1.0);
}

TEST_CASE("Screening: joint trials take their single draw, the others the best of their candidates", "[cpu]") {
  SearchSpace space;
  space.axes = {float_axis("a", 0.0, 1.0), float_axis("b", -1.0, 1.0, 0.1), categorical_axis("c", {1.0, 2.0, 3.0})};
  const UnitSpace unit(space);
  const std::size_t nc = unit.n_codes(), n = 200;
  auto engine = tpe::make_trial_engine(9, 0);
  std::vector<double> codes(n * nc), scores(n), x(space.size());
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t a = 0; a < space.size(); ++a) x[a] = tpe::sample_uniform(space.axes[a], engine);
    unit.to_codes(x.data(), &codes[i * nc]);
    scores[i] = (x[0] - 0.7) * (x[0] - 0.7) + (x[1] + 0.2) * (x[1] + 0.2) + (x[2] == 3.0 ? 0.0 : 0.1);
  }
  const GoodPool pool = make_pool(nc, codes, scores);
  const GoodSetModel model(unit, pool, 25);
  WorkerPool workers(1);
  const DensityRatio ratio(unit, model, pool, workers);

  CHECK(tpe::candidates_for(ProposalOperator::Joint, 4) == 1);
  CHECK(tpe::candidates_for(ProposalOperator::Marginal, 4) == 4);
  CHECK(tpe::candidates_for(ProposalOperator::Recombine, 4) == 4);
  CHECK(tpe::candidates_for(ProposalOperator::Recombine, 1) == 1);

  std::vector<double> best(nc), scratch(nc), replay(nc);
  int chose_later = 0;
  for (ProposalOperator op : {ProposalOperator::Joint, ProposalOperator::Marginal, ProposalOperator::Recombine}) {
    for (std::uint64_t trial = 0; trial < 300; ++trial) {
      auto e = tpe::make_trial_engine(21, trial, 2);
      const int chosen = tpe::screen(model, &ratio, op, 4, e, best.data(), scratch.data());
      // Replay the candidates from the same stream: the chosen one is the first with the
      // largest score, and is what was written.
      auto r = tpe::make_trial_engine(21, trial, 2);
      const int m = tpe::candidates_for(op, 4);
      double top = -std::numeric_limits<double>::infinity();
      int first_top = -1;
      std::vector<double> chosen_codes;
      for (int k = 0; k < m; ++k) {
        model.propose(op, r, replay.data());
        const double sc = ratio.score(replay.data());
        if (sc > top) {
          top = sc;
          first_top = k;
        }
        if (k == chosen) chosen_codes = replay;
      }
      CHECK(chosen == first_top);
      CHECK(chosen_codes == best);
      chose_later += chosen > 0;
      // The stream is left after the m-th draw: what the next draw gives follows.
      model.propose(op, e, scratch.data());
      model.propose(op, r, replay.data());
      CHECK(scratch == replay);
    }
  }
  CHECK(chose_later > 100);  // screening picks other than the first candidate often
}

namespace {

// The number of joint trials (the first of a block) batch TPE gives a block of n at these
// shares: floor(share x n), the remainder to the largest share.
std::size_t joint_count(const std::array<double, tpe::kOperators>& shares, std::size_t n) {
  std::size_t used = 0, largest = 0;
  for (std::size_t o = 0; o < 3; ++o) {
    used += static_cast<std::size_t>(std::floor(shares[o] * static_cast<double>(n)));
    if (shares[o] > shares[largest]) largest = o;
  }
  return static_cast<std::size_t>(std::floor(shares[0] * static_cast<double>(n))) + (largest == 0 ? n - used : 0);
}

// Asks a block of n and tells it with the joint trials best (joint_wins) or worst.
void block(tpe::BatchTpeSampler& sampler, std::uint64_t first, std::size_t n, bool joint_wins, double base) {
  std::vector<double> out(n * 3);
  const std::size_t joint = joint_count(sampler.shares(), n);
  sampler.ask(first, n, out.data());
  std::vector<tpe::TrialOutcome> outcomes(n);
  for (std::size_t i = 0; i < n; ++i) {
    const bool is_joint = i < joint;
    outcomes[i].score = (is_joint == joint_wins ? -1.0 : 1.0) * (base + static_cast<double>(i));
  }
  sampler.tell(first, outcomes);
}

}  // namespace

TEST_CASE("Joint step size: grows on success, shrinks on failure, restarts when it collapses", "[cpu]") {
  SearchSpace space;
  space.axes = {float_axis("a", 0.0, 1.0), float_axis("b", 0.0, 1.0), float_axis("c", 0.0, 1.0)};
  tpe::BatchTpeConfig config;
  config.joint_success_target = 0.2;
  tpe::BatchTpeSampler sampler(space, Direction::Minimize, 3, config);
  tpe::BatchTpeSampler off(space, Direction::Minimize, 3, tpe::BatchTpeConfig{});
  const std::size_t n = 100;
  std::uint64_t first = 0;
  block(sampler, first, n, true, 0.0);  // random trials: no change
  block(off, first, n, true, 0.0);
  first += n;
  CHECK(sampler.joint_step() == 1.0);
  // Every joint trial in the good set (25 best of 33 joint trials): the step grows, up to 4.
  block(sampler, first, n, true, 1e3);
  block(off, first, n, true, 1e3);
  first += n;
  CHECK(sampler.joint_step() > 1.0);
  CHECK(sampler.joint_step() <= 4.0);
  CHECK(off.joint_step() == 1.0);
  // No joint trial in the good set: the step shrinks by e^-1/2 a block, until it reaches
  // 1e-3 and restarts at 1.
  double previous = sampler.joint_step();
  bool restarted = false;
  for (int k = 0; k < 40 && !restarted; ++k) {
    block(sampler, first, n, false, 1e4 * (k + 1));
    block(off, first, n, false, 1e4 * (k + 1));
    first += n;
    const double step = sampler.joint_step();
    if (step == 1.0) {
      restarted = true;
      CHECK(previous * std::exp(-0.5) <= 1e-3);
    } else {
      CHECK(step == Approx(previous * std::exp(-0.5)).epsilon(1e-12));
    }
    previous = step;
    CHECK(off.joint_step() == 1.0);
  }
  CHECK(restarted);
}
