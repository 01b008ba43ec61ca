// Fast acquisition (docs/tpe.md, "Fast acquisition") against the exact one: the tabulated
// densities stay within the documented error bound, and the two samplers pick the same
// candidate in at least 99% of draws on random spaces and observation sets.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "tpe/fast_acquisition.hpp"
#include "tpe/parzen_estimator.hpp"
#include "tpe/tpe_sampler.hpp"
#include "tpe/trial_rng.hpp"

using namespace tpeopt::tpe;
using detail::AxisModel;

namespace {

// The documented bound on |log l_fast - log l_exact| (and g) over the domain (docs/tpe.md).
constexpr double kDensityErrorBound = 3e-4;

struct Rng {
  SplitMix64 engine;
  explicit Rng(std::uint64_t seed) : engine(seed) {}
  double u01() { return static_cast<double>(engine() >> 11) * 0x1.0p-53; }
  std::size_t below(std::size_t n) { return static_cast<std::size_t>(u01() * static_cast<double>(n)); }
};

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
    std::vector<double> scratch;
    double err = 0.0;
    for (int k = 0; k <= 20000; ++k) {
      const double x = std::min(model.high, k % 2 ? model.low + rng.u01() * (model.high - model.low)
                                                  : model.low + (model.high - model.low) * k / 20000.0);
      err = std::max(err, std::fabs(table.at(x) - exact.log_pdf(0, x, scratch)));
    }
    CAPTURE(trial, n, members.size(), clustered, axis.log, axis.step, err);
    CHECK(err <= kDensityErrorBound);
    worst = std::max(worst, err);
  }
  std::printf("fast acquisition: max |log density error| over 40 estimators: %.3g\n", worst);
}

TEST_CASE("Fast acquisition: picks the exact sampler's candidate in >= 99% of draws", "[cpu][tpe]") {
  std::size_t same = 0, total = 0;
  for (std::uint64_t trial = 0; trial < 24; ++trial) {
    Rng rng(77 + trial);
    SearchSpace space;
    const std::size_t d = 1 + rng.below(5);
    for (std::size_t a = 0; a < d; ++a) space.axes.push_back(random_axis(rng, a, false));
    const auto n = static_cast<std::size_t>(std::exp(std::log(10.0) + rng.u01() * std::log(500.0)));
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
    }
    fast.tell(0, outcomes);
    exact.tell(0, outcomes);
    const std::size_t batch = 64;
    std::vector<double> pf(batch * d), pe(batch * d);
    fast.ask(n, batch, pf.data());
    exact.ask(n, batch, pe.data());
    for (std::size_t i = 0; i < batch * d; ++i) {
      const Axis& axis = space.axes[i % d];
      const double tol = axis.is_numeric() ? 1e-9 * (axis.high - axis.low) : 0.0;
      same += std::fabs(pf[i] - pe[i]) <= tol ? 1 : 0;
      ++total;
    }
  }
  const double agreement = static_cast<double>(same) / static_cast<double>(total);
  std::printf("fast acquisition: same pick as exact in %zu of %zu draws (%.4f)\n", same, total, agreement);
  CAPTURE(same, total, agreement);
  CHECK(agreement >= 0.99);
}
