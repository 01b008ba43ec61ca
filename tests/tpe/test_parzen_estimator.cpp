// The Parzen estimators, split, gamma and weights of TPE against hand-worked numbers and
// against Optuna itself (tests/tpe/fixtures/parzen_optuna.json, written by
// bench/tpe/make_parzen_fixture.py).
#include <catch2/catch.hpp>

#include "support/paths.hpp"

#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tpe/parzen_estimator.hpp"
#include "tpe/truncated_normal.hpp"

#ifndef TPEOPT_SOURCE_DIR
#error "TPEOPT_SOURCE_DIR must name the source tree (tests/CMakeLists.txt defines it)"
#endif

using namespace tpeopt::tpe;
using detail::AxisModel;
using detail::ParzenEstimator;
using detail::ParzenParameters;

namespace {

constexpr double kRelTol = 1e-12;

bool close(double actual, double expected, double rel = kRelTol) {
  if (actual == expected) return true;
  return std::fabs(actual - expected) <= rel * std::max(std::fabs(expected), std::fabs(actual));
}

nlohmann::json load_fixture(const std::string& file = "parzen_optuna.json") {
  const std::string path = tpeopt::testing::source_dir() + "/tests/tpe/fixtures/" + file;
  std::ifstream in(path);
  REQUIRE(in.good());
  return nlohmann::json::parse(in);
}

Axis axis_from_json(const nlohmann::json& j) {
  Axis a;
  a.name = j.at("name").get<std::string>();
  const std::string kind = j.at("kind").get<std::string>();
  if (kind == "categorical") {
    a.kind = Axis::Kind::Categorical;
    a.choices = j.at("choices").get<std::vector<double>>();
    return a;
  }
  a.kind = kind == "int" ? Axis::Kind::Int : Axis::Kind::Float;
  a.low = j.at("low").get<double>();
  a.high = j.at("high").get<double>();
  a.log = j.value("log", false);
  a.step = j.value("step", 0.0);
  if (a.kind == Axis::Kind::Int && a.step == 0.0) a.step = 1.0;
  return a;
}

// An estimator over `axes` built from rows of external values.
struct Built {
  std::vector<Axis> axes;
  std::vector<AxisModel> models;
  std::vector<std::vector<double>> columns;
  std::vector<std::span<const double>> spans;
  std::vector<std::size_t> members;
};

void build(Built& b, const std::vector<Axis>& axes, const std::vector<std::vector<double>>& rows) {
  b.axes = axes;
  b.models.clear();
  for (const Axis& a : axes) b.models.push_back(AxisModel::of(a));
  b.columns.assign(axes.size(), {});
  for (const auto& row : rows)
    for (std::size_t a = 0; a < axes.size(); ++a) b.columns[a].push_back(b.models[a].to_internal(axes[a], row[a]));
  b.spans.assign(b.columns.begin(), b.columns.end());
  b.members.resize(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) b.members[i] = i;
}

}  // namespace

TEST_CASE("gamma and weights are Optuna's defaults", "[cpu][tpe]") {
  CHECK(detail::default_gamma(0) == 0);
  CHECK(detail::default_gamma(1) == 1);
  CHECK(detail::default_gamma(10) == 1);
  CHECK(detail::default_gamma(11) == 2);
  CHECK(detail::default_gamma(30) == 3);
  CHECK(detail::default_gamma(31) == 4);
  CHECK(detail::default_gamma(231) == 24);
  CHECK(detail::default_gamma(241) == 25);
  CHECK(detail::default_gamma(100000) == 25);

  CHECK(detail::default_weights(0).empty());
  CHECK(detail::default_weights(24) == std::vector<double>(24, 1.0));
  CHECK(detail::default_weights(25) == std::vector<double>(25, 1.0));
  const auto w26 = detail::default_weights(26);
  REQUIRE(w26.size() == 26);
  CHECK(w26[0] == 1.0 / 26);
  CHECK(w26[1] == 1.0);
  const auto w30 = detail::default_weights(30);  // linspace(1/30, 1, 5) then 25 ones
  REQUIRE(w30.size() == 30);
  const double step = (1.0 - 1.0 / 30) / 4;
  CHECK(w30[0] == 1.0 / 30);
  CHECK(w30[2] == 2 * step + 1.0 / 30);
  CHECK(w30[4] == 1.0);
  CHECK(w30[29] == 1.0);
}

TEST_CASE("bandwidths and weights of three observations, by hand", "[cpu][tpe]") {
  Axis x;
  x.name = "x";
  x.low = -5.0;
  x.high = 5.0;
  Built b;
  build(b, {x}, {{-1.0}, {0.5}, {2.0}});
  // Sorted with the prior's centre 0 and the edges: [-5, -1, 0, 0.5, 2, 5]; neighbour gaps
  // give sigmas 4, 1, 1.5, 3, and without consider_endpoints the outer ones become the gap
  // to their inner neighbour: 1 (for -1) and 1.5 (for 2). The prior's (1) is dropped.
  ParzenParameters no_clip;
  no_clip.consider_magic_clip = false;
  const ParzenEstimator pe(b.models, b.spans, b.members, no_clip);
  REQUIRE(pe.n_kernels() == 4);
  CHECK(pe.weights() == std::vector<double>(4, 0.25));
  CHECK(pe.mus(0) == std::vector<double>{-1.0, 0.5, 2.0, 0.0});
  CHECK(pe.sigmas(0) == std::vector<double>{1.0, 1.5, 1.5, 10.0});

  // consider_endpoints: the outer kernels keep max(gap left, gap right): 4 and 3.
  ParzenParameters endpoints = no_clip;
  endpoints.consider_endpoints = true;
  CHECK(ParzenEstimator(b.models, b.spans, b.members, endpoints).sigmas(0) == std::vector<double>{4.0, 1.5, 3.0, 10.0});

  // Magic clip: sigma >= (high - low) / min(100, 1 + n_kernels) = 10 / 5 = 2.
  const ParzenEstimator clipped(b.models, b.spans, b.members, ParzenParameters{});
  CHECK(clipped.sigmas(0) == std::vector<double>{2.0, 2.0, 2.0, 10.0});

  // Its density at 0.5: (1/4) sum_k phi((0.5 - mu_k) / sigma_k) / (sigma_k Z_k).
  double p = 0.0;
  for (std::size_t k = 0; k < 4; ++k) {
    const double mu = clipped.mus(0)[k], s = clipped.sigmas(0)[k];
    const double z = (0.5 - mu) / s;
    const double mass =
        0.5 * std::erfc(-(5.0 - mu) / s / std::sqrt(2.0)) - 0.5 * std::erfc(-(-5.0 - mu) / s / std::sqrt(2.0));
    p += 0.25 * std::exp(-0.5 * z * z) / (std::sqrt(2 * M_PI) * s * mass);
  }
  std::vector<double> scratch;
  CHECK(close(clipped.log_pdf(0, 0.5, scratch), std::log(p), 1e-13));
}

TEST_CASE("stepped axes widen the range by half a step", "[cpu][tpe]") {
  Axis x;
  x.name = "n";
  x.kind = Axis::Kind::Int;
  x.low = 0;
  x.high = 9;
  x.step = 1;
  Built b;
  build(b, {x}, {{2.0}, {9.0}});
  ParzenParameters no_clip;
  no_clip.consider_magic_clip = false;
  const ParzenEstimator pe(b.models, b.spans, b.members, no_clip);
  // [-0.5, 2, 4.5, 9, 9.5]: 2 -> gap to 4.5 = 2.5 (first, endpoints off), 9 -> 4.5 (last).
  CHECK(pe.sigmas(0) == std::vector<double>{2.5, 4.5, 10.0});
  CHECK(pe.mus(0) == std::vector<double>{2.0, 9.0, 4.5});
  // The masses of the ten grid points sum to 1.
  std::vector<double> scratch;
  double total = 0.0;
  for (int v = 0; v <= 9; ++v) total += std::exp(pe.log_pdf(0, v, scratch));
  CHECK(close(total, 1.0, 1e-14));
}

TEST_CASE("categorical kernels, by hand", "[cpu][tpe]") {
  Axis c;
  c.name = "c";
  c.kind = Axis::Kind::Categorical;
  c.choices = {5.0, 7.0, 9.0};
  Built b;
  build(b, {c}, {{5.0}, {9.0}, {9.0}});
  const ParzenEstimator pe(b.models, b.spans, b.members, ParzenParameters{});
  // Rows: 1/4 everywhere, +1 on the observed choice, normalized: 5/7 and 1/7; prior 1/3.
  std::vector<double> scratch;
  CHECK(close(std::exp(pe.log_pdf(0, 0.0, scratch)), 1.0 / 3, 1e-15));
  CHECK(close(std::exp(pe.log_pdf(0, 1.0, scratch)), 4.0 / 21, 1e-15));
  CHECK(close(std::exp(pe.log_pdf(0, 2.0, scratch)), 10.0 / 21, 1e-15));
  // Sampling from kernel 0 (observed choice 0): u below 5/7 gives 0, then 1 up to 6/7, then 2.
  CHECK(pe.sample(0, 0, 0.0) == 0.0);
  CHECK(pe.sample(0, 0, 0.7) == 0.0);
  CHECK(pe.sample(0, 0, 0.72) == 1.0);
  CHECK(pe.sample(0, 0, 0.86) == 2.0);
  CHECK(pe.sample(0, 3, 0.34) == 1.0);  // the prior row is uniform
  // Components: four of weight 1/4, numpy's searchsorted(side="right").
  CHECK(pe.pick_component(0.0) == 0);
  CHECK(pe.pick_component(0.25) == 1);
  CHECK(pe.pick_component(0.9999) == 3);
}

TEST_CASE("the split ranks feasible trials first, ties by trial number", "[cpu][tpe]") {
  const std::vector<double> score = {3.0, 1.0, -50.0, 1.0, 2.0, -60.0, 1.0};
  const std::vector<double> violation = {0.0, 0.0, 0.5, 0.0, 0.0, 0.1, 0.0};
  // Minimize: 1.0 at trials 1, 3, 6; n_below = 2 -> trials 1 and 3 (the infeasible -50 and
  // -60 rank after every feasible trial).
  CHECK(detail::split_below(score, violation, Direction::Minimize, 2) == std::vector<char>{0, 1, 0, 1, 0, 0, 0});
  // Maximize: 3.0 (trial 0), then 2.0 (trial 4).
  CHECK(detail::split_below(score, violation, Direction::Maximize, 2) == std::vector<char>{1, 0, 0, 0, 1, 0, 0});
  // More below than feasible: all 5 feasible, then the least violating (trial 5, 0.1).
  CHECK(detail::split_below(score, violation, Direction::Minimize, 6) == std::vector<char>{1, 1, 0, 1, 1, 1, 1});
  CHECK(detail::split_below(score, violation, Direction::Minimize, 0) == std::vector<char>(7, 0));
}

TEST_CASE("the split matches Optuna's _split_trials", "[cpu][tpe]") {
  const auto fixture = load_fixture();
  for (const auto& c : fixture.at("split")) {
    const std::string name = c.at("name").get<std::string>();
    CAPTURE(name);
    const auto score = c.at("scores").get<std::vector<double>>();
    const auto violation = c.at("violations").get<std::vector<double>>();
    const auto dir = c.at("direction").get<std::string>() == "minimize" ? Direction::Minimize : Direction::Maximize;
    const std::size_t n_below = c.at("n_below").get<std::size_t>();
    CHECK(detail::default_gamma(score.size()) == n_below);
    const auto is_below = detail::split_below(score, violation, dir, n_below);
    std::vector<std::size_t> below;
    for (std::size_t i = 0; i < is_below.size(); ++i)
      if (is_below[i]) below.push_back(i);
    CHECK(below == c.at("below").get<std::vector<std::size_t>>());
  }
}

TEST_CASE("truncated-normal numerics against mpmath", "[cpu][tpe]") {
  const auto fixture = load_fixture();
  const auto& ref = fixture.at("truncnorm");
  for (const auto& r : ref.at("log_ndtr")) {
    const double a = r[0].get<double>(), expected = r[1].get<double>();
    CAPTURE(a, expected, truncnorm::log_ndtr(a));
    CHECK(close(truncnorm::log_ndtr(a), expected, 1e-13));
  }
  for (const auto& r : ref.at("log_gauss_mass")) {
    const double a = r[0].get<double>(), b = r[1].get<double>(), expected = r[2].get<double>();
    CAPTURE(a, b, expected, truncnorm::log_gauss_mass(a, b));
    CHECK(close(truncnorm::log_gauss_mass(a, b), expected, 1e-9));
  }
  for (const auto& r : ref.at("ndtri_exp")) {
    const double y = r[0].get<double>(), expected = r[1].get<double>();
    CAPTURE(y, expected, truncnorm::ndtri_exp(y));
    if (expected == 0.0) CHECK(std::fabs(truncnorm::ndtri_exp(y)) < 1e-15);
    else CHECK(close(truncnorm::ndtri_exp(y), expected, 1e-14));
  }
  // ppf inverts the truncated CDF: Phi(x) = Phi(a) + u (Phi(b) - Phi(a)).
  for (double a : {-3.0, -0.5, 0.0, 0.2, 2.0}) {
    for (double u : {0.0, 1e-6, 0.1, 0.5, 0.9, 0.999999}) {
      const double b = a + 1.5;
      const double x = truncnorm::ppf(u, a, b);
      CAPTURE(a, u, x);
      CHECK(x >= a);
      CHECK(x <= b);
      const double cdf = (truncnorm::ndtr(x) - truncnorm::ndtr(a)) / (truncnorm::ndtr(b) - truncnorm::ndtr(a));
      CHECK(std::fabs(cdf - u) < 1e-12);
    }
  }
}

TEST_CASE("Parzen estimators match Optuna's _ParzenEstimator", "[cpu][tpe]") {
  // Univariate estimators against Optuna 4.6, multivariate ones against Optuna 5.0
  // (bench/tpe/make_parzen_fixture.py says why).
  const auto [file, min_cases] = GENERATE(std::pair<std::string, std::size_t>{"parzen_optuna.json", 15},
                                          std::pair<std::string, std::size_t>{"parzen_optuna_multivariate.json", 8});
  CAPTURE(file);
  const auto fixture = load_fixture(file);
  const std::string optuna_version = fixture.at("optuna_version").get<std::string>();
  CAPTURE(optuna_version);
  std::size_t n_cases = 0;
  for (const auto& c : fixture.at("estimators")) {
    const std::string name = c.at("name").get<std::string>();
    CAPTURE(name);
    std::vector<Axis> axes;
    for (const auto& a : c.at("axes")) axes.push_back(axis_from_json(a));
    const auto rows = c.at("observations").get<std::vector<std::vector<double>>>();
    const auto& p = c.at("params");
    ParzenParameters params;
    params.prior_weight = p.at("prior_weight").get<double>();
    params.consider_magic_clip = p.at("consider_magic_clip").get<bool>();
    params.consider_endpoints = p.at("consider_endpoints").get<bool>();
    params.multivariate = p.at("multivariate").get<bool>();
    Built b;
    build(b, axes, rows);
    const ParzenEstimator pe(b.models, b.spans, b.members, params);

    const auto weights = c.at("weights").get<std::vector<double>>();
    REQUIRE(pe.n_kernels() == weights.size());
    for (std::size_t k = 0; k < weights.size(); ++k) {
      CAPTURE(k, pe.weights()[k], weights[k]);
      CHECK(close(pe.weights()[k], weights[k]));
    }
    for (std::size_t a = 0; a < axes.size(); ++a) {
      if (c.at("mus")[a].is_null()) continue;
      const auto mus = c.at("mus")[a].get<std::vector<double>>();
      const auto sigmas = c.at("sigmas")[a].get<std::vector<double>>();
      for (std::size_t k = 0; k < mus.size(); ++k) {
        CAPTURE(a, k, pe.mus(a)[k], mus[k], pe.sigmas(a)[k], sigmas[k]);
        CHECK(close(pe.mus(a)[k], mus[k]));
        CHECK(close(pe.sigmas(a)[k], sigmas[k]));
      }
    }
    const auto points = c.at("points").get<std::vector<std::vector<double>>>();
    const auto log_pdf = c.at("log_pdf").get<std::vector<double>>();
    std::vector<double> scratch, x(axes.size());
    for (std::size_t i = 0; i < points.size(); ++i) {
      for (std::size_t a = 0; a < axes.size(); ++a) x[a] = b.models[a].to_internal(axes[a], points[i][a]);
      const double got = params.multivariate ? pe.log_pdf_joint(x.data(), scratch) : pe.log_pdf(0, x[0], scratch);
      CAPTURE(i, got, log_pdf[i]);
      CHECK(close(got, log_pdf[i]));
    }
    REQUIRE(params.multivariate == (file == "parzen_optuna_multivariate.json"));
    ++n_cases;
  }
  CHECK(n_cases == fixture.at("estimators").size());
  CHECK(n_cases >= min_cases);
}
