// g's running sums (tpe/observed_kernels.hpp) against g built directly from the sorted
// observations (log_density_grid_sorted) with the same weights, on continuous, int and
// stepped axes: after every tell of a
// sequence of batches (clustered, tied, at the edges, at the prior's centre, in sparse
// regions; on both sides of the prior's centre or on one), for below groups that are random,
// runs of neighbours, at the ends, around the prior or the newest observations, the two log
// tables agree to 1e-9 at every node; and the sums give the same bits whether the
// observations are kept in one sorted run or spread over several (tpe/sorted_runs.hpp).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <span>
#include <utility>
#include <vector>

#include "support/bits.hpp"
#include "support/test_rng.hpp"
#include "tpe/fast_acquisition.hpp"
#include "tpe/observed_kernels.hpp"
#include "tpe/parzen_estimator.hpp"
#include "tpe/sorted_runs.hpp"
#include "tpe/trial_rng.hpp"

using namespace tpeopt::tpe;
using namespace tpeopt::tpe::detail;

namespace {

using tpeopt::testing::Rng;

// One observation on [low, high] of a kind chosen at random: uniform, clustered, a repeat of
// an earlier value, an edge, the prior's centre, or a far-out point of a sparse region.
double draw_value(Rng& rng, const std::vector<double>& earlier, double low, double high) {
  const double range = high - low;
  switch (rng.below(8)) {
    case 0:
    case 1:
      return low + range * rng.u01();
    case 2:
    case 3: {  // a tight cluster near 30% of the range
      const double x = low + range * (0.3 + 0.002 * (rng.u01() - 0.5));
      return std::clamp(x, low, high);
    }
    case 4:
      return earlier.empty() ? low : earlier[rng.below(earlier.size())];
    case 5:
      return rng.below(2) == 0 ? low : high;
    case 6:
      return 0.5 * (low + high);
    default:  // the last 5% of the range is visited rarely: gaps wider than range / 100
      return rng.below(4) == 0 ? high - 0.05 * range * rng.u01() : low + 0.5 * range * rng.u01();
  }
}

}  // namespace

TEST_CASE("Observed kernels: running sums equal g built from the sorted observations", "[cpu][tpe]") {
  const bool endpoints = GENERATE(false, true);
  const std::uint64_t seed = GENERATE(as<std::uint64_t>{}, 3, 11);
  // Observations on both sides of the prior's centre, only below it (the prior is the last
  // kernel) or only above it (the first).
  const int side = GENERATE(0, 1, 2);
  // A continuous axis on [-3, 5]; an int axis on [-3, 12] (the prior's centre 4.5 between two
  // points); a stepped float axis on [0, 10], step 0.5 (the prior's centre 5 on a point); an
  // int axis on [0, 1000] (1,001 points, two cells each: 2,002 cells).
  const int kind = GENERATE(0, 1, 2, 3);
  Rng rng(seed);
  const double low = kind == 2 || kind == 3 ? 0.0 : -3.0;
  const double high = kind == 0 ? 5.0 : (kind == 1 ? 12.0 : (kind == 2 ? 10.0 : 1000.0));
  const double step = kind == 0 ? 0.0 : (kind == 2 ? 0.5 : 1.0);
  AxisModel model;
  model.type = kind == 0 ? AxisModel::Type::Continuous : AxisModel::Type::Discrete;
  model.low = low;
  model.high = high;
  model.step = step;
  // The reference: a discrete axis' g is Optuna's mixture of normals truncated to the widened
  // range [low - step/2, high + step/2], the same density as a continuous axis' on that range
  // (each point's mass is then its cell's integral), tabulated on the same cells.
  AxisModel widened = model;
  widened.type = AxisModel::Type::Continuous;
  widened.low = low - step / 2;
  widened.high = high + step / 2;
  widened.step = 0.0;
  auto snap = [&](double x) {
    return step > 0.0 ? std::clamp(low + std::round((x - low) / step) * step, low, high) : x;
  };
  ParzenParameters params;
  params.consider_endpoints = endpoints;
  const double prior_mu = 0.5 * (low + high), prior_weight = 1.0;

  std::vector<double> column;        // by observation index
  std::vector<std::uint32_t> order;  // the reference: sorted by (value, index)
  // The kernels' runs as the sampler keeps them (one run up to 262,144 observations; this
  // test reaches 2,398), and a second set of kernels over the same observations spread over
  // several levels by a small base: both must give the same bits.
  SortedRuns runs, spread(4, 2);
  SortedRun run_scratch;
  ObservedKernels kernels, spread_kernels;
  GridScratch scratch;
  std::size_t checks = 0, most_levels = 0;
  double worst = 0.0;
  for (const std::size_t batch : {300, 1, 57, 700, 2, 1000, 333, 5}) {
    const std::size_t n_before = column.size();
    for (std::size_t k = 0; k < batch; ++k) {
      double x = snap(draw_value(rng, column, low, high));
      if (side == 1 && x >= prior_mu) x = snap(low + (x - prior_mu) * 0.999);
      if (side == 1 && x >= prior_mu) x -= step;
      if (side == 2 && x <= prior_mu) x = snap(std::nextafter(prior_mu, high) + (x - low) * 0.999);
      if (side == 2 && x <= prior_mu) x += step;
      REQUIRE(((side != 1 || x < prior_mu) && (side != 2 || x > prior_mu) && x >= low && x <= high));
      column.push_back(x);
    }
    const std::size_t n = column.size();
    order.resize(n);
    std::iota(order.begin(), order.end(), 0u);
    std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
      return column[a] < column[b] || (column[a] == column[b] && a < b);
    });
    SortedRun fresh;
    for (const std::uint32_t i : order) {
      if (i < n_before) continue;
      fresh.value.push_back(column[i]);
      fresh.index.push_back(i);
    }
    for (auto [r, k] : {std::pair{&runs, &kernels}, std::pair{&spread, &spread_kernels}}) {
      StagedBatch staged;
      r->stage(fresh, staged);
      if (k->ready()) k->update(*r, fresh, staged);
      r->commit(staged, false, run_scratch);
      if (!k->ready()) k->rebuild(*r, model, params);
    }
    REQUIRE(kernels.ready() == (n >= ObservedKernels::kFromObservations));
    REQUIRE(spread_kernels.ready() == kernels.ready());
    REQUIRE(runs.flat() != nullptr);
    std::size_t levels = 0;
    for (const SortedRun& level : spread.levels()) levels += level.size() > 0 ? 1 : 0;
    most_levels = std::max(most_levels, levels);
    if (!kernels.ready()) continue;

    // The prior's position in the reference order (after the observations equal to it).
    const std::size_t prior_at =
        static_cast<std::size_t>(std::count_if(column.begin(), column.end(), [&](double x) { return x <= prior_mu; }));
    const std::size_t n_below = default_gamma(n);
    for (int shape = 0; shape < 6; ++shape) {
      CAPTURE(batch, n, shape, endpoints, seed, side, kind, levels);
      // The below group: random; a run of neighbours in value order; the first ones; the
      // last ones; the ones around the prior's centre; the newest ones (so also among the
      // newest 25).
      std::vector<char> is_below(n, 0);
      std::size_t start = 0;
      if (shape == 1) start = rng.below(n - n_below);
      if (shape == 3) start = n - n_below;
      if (shape == 4) start = std::min(n - n_below, prior_at > n_below / 2 ? prior_at - n_below / 2 : 0);
      for (std::size_t k = 0, set = 0; set < n_below; ++k) {
        const std::size_t i = shape == 0 ? rng.below(n) : (shape == 5 ? n - 1 - k : order[start + k]);
        if (!is_below[i]) is_below[i] = 1, ++set;
      }
      std::vector<std::size_t> below, above;
      for (std::size_t i = 0; i < n; ++i) (is_below[i] ? below : above).push_back(i);
      const TrialOrderWeights w(n);
      double total = prior_weight;
      for (const std::size_t i : above) total += w.of(i);
      std::vector<double> member_weight(n, 0.0);
      for (const std::size_t i : above) member_weight[i] = w.of(i) / total;
      std::vector<char> in_above(n);
      for (std::size_t i = 0; i < n; ++i) in_above[i] = is_below[i] ? 0 : 1;

      GridTable running, direct, running_spread;
      REQUIRE(
          kernels.log_density(runs, column.data(), is_below.data(), below, w, total, prior_weight, running, scratch));
      REQUIRE(spread_kernels.log_density(spread, column.data(), is_below.data(), below, w, total, prior_weight,
                                         running_spread, scratch));
      CHECK(tpeopt::testing::same_bits(running.node, running_spread.node));
      GridScratch direct_scratch;
      REQUIRE(kernels.cells() == (kind == 0 ? kGridCells : discrete_table_cells(model)));
      REQUIRE(log_density_grid_sorted(order.data(), n, column.data(), in_above.data(), member_weight.data(),
                                      above.size(), prior_weight / total, widened, params, kernels.cells(), direct,
                                      direct_scratch));
      if (kind == 3) REQUIRE(direct.cells == 2002);
      if (kind != 0 && shape == 0) {
        // The identity the reference rests on, against the discrete estimator itself: with
        // ParzenEstimator's weights (Optuna's ramp over the above group by rank), the widened
        // continuous mixture integrated over each point's cell gives its grid masses.
        const std::vector<AxisModel> models{model};
        const std::vector<std::span<const double>> columns{std::span<const double>(column)};
        const ParzenEstimator pe(models, columns, above, params);
        std::vector<double> pe_weight(n, 0.0);
        for (std::size_t r = 0; r < above.size(); ++r) pe_weight[above[r]] = pe.weights()[r];
        GridTable widened_g;
        GridScratch pe_scratch;
        REQUIRE(log_density_grid_sorted(order.data(), n, column.data(), in_above.data(), pe_weight.data(), above.size(),
                                        pe.weights().back(), widened, params, kernels.cells(), widened_g, pe_scratch));
        std::vector<double> from_widened, from_estimator;
        REQUIRE(discrete_masses(widened_g, model, from_widened, pe_scratch));
        REQUIRE(grid_masses(pe, 0, model, from_estimator, pe_scratch));
        REQUIRE(from_widened.size() == model.n_grid());
        REQUIRE(from_estimator.size() == from_widened.size());
        double mass_diff = 0.0;
        for (std::size_t g = 0; g < from_widened.size(); ++g)
          mass_diff = std::max(mass_diff, std::fabs(std::log(from_widened[g]) - std::log(from_estimator[g])));
        CAPTURE(mass_diff);
        CHECK(mass_diff <= 1e-9);
      }
      REQUIRE(running.node.size() == direct.node.size());
      double diff = 0.0;
      for (std::size_t k = 0; k < direct.node.size(); ++k)
        diff = std::max(diff, std::fabs(running.node[k] - direct.node[k]));
      CAPTURE(diff);
      CHECK(diff <= 1e-9);
      worst = std::max(worst, diff);
      ++checks;
    }
  }
  REQUIRE(checks == 48);
  CHECK(most_levels >= 3);
  std::printf(
      "observed kernels (kind %d, seed %llu, endpoints %d, side %d): max |log g_running - log g_direct| = %.2e over "
      "%zu tables\n",
      kind, static_cast<unsigned long long>(seed), endpoints ? 1 : 0, side, worst, checks);
}

TEST_CASE("Observed kernels: the trial-order weights are Optuna's ramp over all observations", "[cpu][tpe]") {
  for (const std::size_t n : {1, 24, 25, 26, 27, 100, 5000}) {
    const std::vector<double> optuna = default_weights(n);
    const TrialOrderWeights w(n);
    for (std::size_t i = 0; i < n; ++i) {
      CAPTURE(n, i);
      // The same ramp up to rounding (numpy's linspace sets its last value to exactly 1).
      CHECK(std::fabs(w.of(i) - optuna[i]) <= 1e-15);
    }
  }
}
