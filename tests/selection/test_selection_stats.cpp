// The selection statistics (selection/) against skfolio, vectorbt and a NumPy CSCV written from
// the paper (tests/selection/fixtures/SOURCE.md). Tolerance 1e-12 relative: both sides evaluate
// the same closed forms in double precision (the normal quantile and CDF to about 1e-15
// relative, sums of at most 5,000 terms): only rounding differs, never the formula.
#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "selection/cscv.hpp"
#include "selection/deflated_sharpe.hpp"
#include "selection/return_moments.hpp"
#include "selection/verdict.hpp"
#include "support/paths.hpp"

namespace sel = tpeopt::selection;

namespace {

nlohmann::json fixtures() {
  std::ifstream in(tpeopt::testing::source_dir() + "/tests/selection/fixtures/selection_stats.json");
  REQUIRE(in);
  return nlohmann::json::parse(in);
}

bool close(double a, double b, double rel = 1e-12) {
  return std::abs(a - b) <= rel * std::max(std::abs(a), std::abs(b));
}

}  // namespace

TEST_CASE("expected maximum Sharpe ratio equals skfolio's and vectorbt's", "[cpu][selection]") {
  const auto data = fixtures();  // bound to a name: a range-for over fixtures()[...] would dangle
  for (const auto& c : data["expected_max"]) {
    const double got = sel::expected_max_sharpe(c["n_trials"].get<double>(), c["sharpe_variance"].get<double>());
    INFO("N " << c["n_trials"] << " V " << c["sharpe_variance"] << " got " << got);
    CHECK(close(got, c["skfolio"].get<double>()));
    CHECK(close(got, c["vectorbt"].get<double>()));
  }
  CHECK(sel::expected_max_sharpe(1.0, 0.3) == 0.0);
  CHECK(sel::expected_max_sharpe(50.0, 0.0) == 0.0);
  CHECK_THROWS_AS(sel::expected_max_sharpe(0.5, 0.1), tpeopt::Error);
  CHECK_THROWS_AS(sel::expected_max_sharpe(10.0, -0.1), tpeopt::Error);
}

TEST_CASE("DSR and PSR of a trial's returns equal skfolio's and vectorbt's", "[cpu][selection]") {
  const auto data = fixtures();
  for (const auto& c : data["dsr"]) {
    const auto returns = c["returns"].get<std::vector<double>>();
    const auto trials = c["trial_sharpes"].get<std::vector<double>>();
    const sel::HigherMoments h = sel::higher_moments(returns);
    CHECK(close(h.sharpe, c["moments"]["sharpe"].get<double>()));
    CHECK(close(h.skewness, c["moments"]["skewness"].get<double>(), 1e-10));  // a ratio of sums of cubes
    CHECK(close(h.kurtosis, c["moments"]["kurtosis"].get<double>()));
    const double variance = sel::sharpe_variance(trials);
    CHECK(close(variance, c["moments"]["sharpe_variance"].get<double>()));
    const sel::DeflatedSharpe d = sel::deflated_sharpe(static_cast<double>(trials.size()), variance, h);
    INFO("T " << returns.size() << " N " << trials.size() << " DSR " << d.dsr);
    CHECK(close(d.expected_max_sharpe, c["skfolio"]["expected_max_sharpe_ratio"].get<double>()));
    CHECK(close(d.dsr, c["skfolio"]["deflated_sharpe_ratio"].get<double>(), 1e-9));
    CHECK(close(d.dsr, c["vectorbt"]["deflated_sharpe_ratio"].get<double>(), 1e-9));
    CHECK(close(sel::probabilistic_sharpe(h.sharpe, d.n_observations, h.skewness, h.kurtosis, 0.0),
                c["skfolio"]["probabilistic_sharpe_ratio_0"].get<double>(), 1e-9));
  }
}

TEST_CASE("the Sharpe ratio of summed moments is the Sharpe ratio of the returns", "[cpu][selection]") {
  const std::vector<double> a = {0.01, -0.02, 0.015, 0.003}, b = {-0.004, 0.02, 0.011};
  sel::Moments m;
  std::vector<double> all;
  for (const auto* part : {&a, &b}) {
    sel::Moments p;
    for (double r : *part) p += {1.0, r, r * r}, all.push_back(r);
    m += p;
  }
  CHECK(close(sel::sharpe_per_observation(m), sel::higher_moments(all).sharpe, 1e-13));
  CHECK(std::isnan(sel::sharpe_per_observation({1.0, 0.01, 1e-4})));
  CHECK(sel::sharpe_per_observation({3.0, 0.03, 3e-4}) == 0.0);  // constant returns: no spread
  // Frequency weights: a trial counted twice is the same as listed twice.
  CHECK(close(sel::sharpe_variance({0.1, 0.3, -0.2}, {1.0, 2.0, 1.0}), sel::sharpe_variance({0.1, 0.3, 0.3, -0.2})));
}

TEST_CASE("CSCV equals the NumPy CSCV written from the paper", "[cpu][selection]") {
  const auto data = fixtures();
  for (const auto& c : data["cscv"]) {
    const std::size_t N = c["n_trials"], S = c["sub_periods"];
    const auto n = c["n"].get<std::vector<double>>(), s = c["sum"].get<std::vector<double>>(),
               ss = c["sumsq"].get<std::vector<double>>();
    std::vector<sel::Moments> m(N * S);
    for (std::size_t i = 0; i < m.size(); ++i) m[i] = {n[i], s[i], ss[i]};
    const sel::Cscv r = sel::cscv(m, N, {S, 12870, 7, 0});
    const auto& np = c["numpy"];
    INFO("N " << N << " S " << S);
    REQUIRE_FALSE(r.sampled);
    REQUIRE(r.logits.size() == np["logits"].size());
    CHECK(r.all_splits == sel::binomial(S, S / 2));
    for (std::size_t k = 0; k < r.logits.size(); ++k) {
      INFO("split " << k);
      CHECK(close(r.logits[k], np["logits"][k].get<double>()));
      CHECK(close(r.relative_rank[k], np["relative_rank"][k].get<double>()));
      CHECK(close(r.in_sample_sharpe[k], np["in_sample_sharpe"][k].get<double>()));
      CHECK(close(r.out_of_sample_sharpe[k], np["out_of_sample_sharpe"][k].get<double>()));
    }
    CHECK(r.pbo == np["pbo"].get<double>());
  }
}

TEST_CASE("CSCV samples distinct splits, the same for the same seed, above its limit", "[cpu][selection]") {
  const std::size_t N = 12, S = 16;
  std::vector<sel::Moments> m(N * S);
  for (std::size_t i = 0; i < m.size(); ++i) {
    const double x = std::sin(static_cast<double>(i) * 1.7);
    m[i] = {10.0, x, 1.0 + x * x};
  }
  const sel::Cscv a = sel::cscv(m, N, {S, 500, 3, 0}), b = sel::cscv(m, N, {S, 500, 3, 0}),
                  c = sel::cscv(m, N, {S, 500, 4, 1});
  CHECK(a.sampled);
  CHECK(a.in_sample_sets.size() == 500);
  CHECK(a.in_sample_sets == b.in_sample_sets);
  CHECK(a.logits == b.logits);
  CHECK(a.in_sample_sets != c.in_sample_sets);
  std::set<std::uint64_t> distinct(a.in_sample_sets.begin(), a.in_sample_sets.end());
  CHECK(distinct.size() == 500);
  for (std::uint64_t bits : a.in_sample_sets) CHECK(std::popcount(bits) == 8);
  CHECK(sel::cscv(m, N, {S, 12870, 3, 0}).in_sample_sets.size() == 12870);
  CHECK_THROWS_AS(sel::cscv(m, N, {15, 100, 0, 0}), tpeopt::Error);
  CHECK_THROWS_AS(sel::cscv(m, N - 1, {S, 100, 0, 0}), tpeopt::Error);
}

TEST_CASE("CSCV with integer weights ranks as the list with each trial repeated", "[cpu][selection]") {
  const std::size_t N = 9, S = 6;
  std::vector<sel::Moments> m(N * S);
  for (std::size_t i = 0; i < m.size(); ++i) {
    const double x = std::sin(static_cast<double>(i) * 2.3) + 0.01 * static_cast<double>(i % 7);
    m[i] = {8.0, x, 2.0 + x * x};
  }
  const std::vector<double> weights = {1, 3, 1, 2, 1, 1, 4, 1, 2};
  std::vector<sel::Moments> repeated = m;  // the originals first: the in-sample best is the same trial
  std::size_t n_repeated = N;
  for (std::size_t i = 0; i < N; ++i)
    for (int r = 1; r < weights[i]; ++r, ++n_repeated)
      repeated.insert(repeated.end(), m.begin() + i * S, m.begin() + (i + 1) * S);
  const sel::Cscv a = sel::cscv(m, N, {S, 100, 0, 0}, weights), b = sel::cscv(repeated, n_repeated, {S, 100, 0, 0});
  REQUIRE(a.logits.size() == 20);
  for (std::size_t k = 0; k < a.logits.size(); ++k) CHECK(close(a.relative_rank[k], b.relative_rank[k], 1e-15));
  CHECK(a.pbo == b.pbo);
}

TEST_CASE("the verdict reads the statistics", "[cpu][selection]") {
  sel::DeflatedSharpe d;
  d.sharpe = 0.21, d.n_observations = 412, d.expected_max_sharpe = 0.09, d.n_trials = 200704, d.dsr = 0.97;
  CHECK(sel::verdict(d, 0.12) ==
        "best Sharpe 0.21 (per observation, T 412); 0.09 expected from 200,704 trials by chance; DSR 0.97; PBO 0.12: "
        "unlikely to be selection luck alone");
  d.dsr = 0.4;
  CHECK(sel::verdict(d, 0.12).ends_with("DSR 0.40; PBO 0.12: consistent with selection luck"));
  CHECK(sel::verdict(std::nullopt, 0.7) == "PBO 0.70: consistent with selection luck");
  CHECK(sel::grouped(1234567) == "1,234,567");
  CHECK(sel::grouped(999) == "999");
}
