// The selection statistics (selection/) against skfolio, vectorbt and a NumPy CSCV written from
// the paper (tests/selection/fixtures/SOURCE.md). Tolerance 1e-12 relative: both sides evaluate
// the same closed forms in double precision (the normal quantile and CDF to about 1e-15
// relative, sums of at most 5,000 terms): only rounding differs, never the formula.
#include <catch2/catch.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <fstream>
#include <numbers>
#include <set>

#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "selection/cscv.hpp"
#include "selection/deflated_sharpe.hpp"
#include "selection/return_moments.hpp"
#include "selection/student_t_z.hpp"
#include "selection/verdict.hpp"
#include "support/files.hpp"
#include "support/paths.hpp"
#include "tpe/trial_rng.hpp"

namespace sel = tpeopt::selection;

namespace {

nlohmann::json fixtures() {
  return tpeopt::testing::read_json(tpeopt::testing::source_dir() + "/tests/selection/fixtures/selection_stats.json");
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

TEST_CASE("CSCV's probability of loss and performance degradation", "[cpu][selection]") {
  // 2 trials, 2 sub-periods of 3 returns each: the splits {0} | {1} and {1} | {0}.
  const auto moments = [](std::vector<double> r) {
    sel::Moments m;
    for (double x : r) m += {1.0, x, x * x};
    return m;
  };
  // trial 0: strong in sub-period 0, losing in 1; trial 1: mild gains in both
  const std::vector<sel::Moments> m = {moments({1.0, 2.0, 3.0}), moments({-1.0, -2.0, -4.0}), moments({0.1, 0.3, 0.15}),
                                       moments({0.2, 0.1, 0.4})};
  const sel::Cscv c = sel::cscv(m, 2, {2, 100, 0, 0});
  REQUIRE(c.in_sample_sets == std::vector<std::uint64_t>{1, 2});
  // Split {0}: trial 0 leads (Sharpe 2 against 1.76) and loses in sub-period 1. Split {1}:
  // trial 1 leads (trial 0 is negative there) and gains in sub-period 0.
  CHECK(c.out_of_sample_sharpe[0] < 0.0);
  CHECK(c.out_of_sample_sharpe[1] > 0.0);
  CHECK(c.probability_of_loss == 0.5);
  const double slope =
      (c.out_of_sample_sharpe[1] - c.out_of_sample_sharpe[0]) / (c.in_sample_sharpe[1] - c.in_sample_sharpe[0]);
  CHECK(close(c.degradation_slope, slope));
  CHECK(close(c.degradation_intercept, c.out_of_sample_sharpe[0] - slope * c.in_sample_sharpe[0]));
  // No spread in sample: no line.
  const std::vector<sel::Moments> same = {m[0], m[0], m[0], m[0]};
  CHECK(std::isnan(sel::cscv(same, 2, {2, 100, 0, 0}).degradation_slope));
}

TEST_CASE("sharpe_z maps the t statistic through Student's t, as SciPy does", "[cpu][selection]") {
  std::ifstream in(tpeopt::testing::source_dir() + "/tests/selection/fixtures/t_to_z.json");
  REQUIRE(in);
  const auto data = nlohmann::json::parse(in);
  for (const auto& c : data["sharpe_z"]) {
    const double sr = c["sharpe"].get<double>(), n = c["n"].get<double>();
    const double got = sel::sharpe_z(sr, n, c["skewness"].get<double>(), c["kurtosis"].get<double>());
    INFO("SR " << sr << " T " << n << " skew " << c["skewness"] << " kurtosis " << c["kurtosis"] << " z " << got);
    CHECK(close(got, c["z"].get<double>()));
  }
  // Normal returns: exactly the t statistic SR sqrt(T) (mean / s, s of T - 1 degrees of
  // freedom) through Student's t with T - 1 degrees of freedom.
  CHECK(sel::sharpe_t(0.1, 101) == 0.1 * std::sqrt(101.0));
  CHECK(sel::sharpe_z(0.1, 101) == sel::z_of_t(0.1 * std::sqrt(101.0), 100.0));
  // Skewed, fat-tailed returns: the t statistic over the square root of the PSR's variance
  // factor relative to normal returns'.
  CHECK(close(sel::sharpe_t(0.1, 101, -0.5, 6.0),
              0.1 * std::sqrt(101.0) / std::sqrt((1.0 + 0.05 + 5.0 / 4.0 * 0.01) / (1.0 + 0.01 / 2.0))));
  CHECK(sel::sharpe_z(0.0, 30) == 0.0);
  CHECK(std::isnan(sel::sharpe_z(0.1, 1)));
  CHECK(std::isnan(sel::sharpe_z(NAN, 50)));
  CHECK(std::isnan(sel::sharpe_z(2.0, 50, 3.0, 3.0)));  // 1 - skew SR + (kurtosis - 1) / 4 SR^2 = -3
}

TEST_CASE("sharpe_z for many returns is the PSR's statistic", "[cpu][selection]") {
  // The PSR's z, SR sqrt(T - 1) / sqrt(1 - skew SR + (kurtosis - 1) / 4 SR^2), taken as normal
  // (what the standardized DSR used before the mapping through Student's t).
  const auto psr_z = [](double sr, double n, double skew, double kurt) {
    return sr * std::sqrt(n - 1.0) / std::sqrt(1.0 - skew * sr + (kurt - 1.0) / 4.0 * sr * sr);
  };
  // z from -8 to 8, normal returns and skewed, fat-tailed ones (the momentum best's 4 and 23):
  // the two differ by terms in 1 / T.
  for (const auto& [n, bound] : {std::pair{1e5, 2e-4}, std::pair{1e6, 1e-5}})
    for (const auto& [skew, kurt] :
         {std::pair{0.0, 3.0}, std::pair{-0.5, 6.0}, std::pair{1.5, 12.0}, std::pair{4.0, 23.0}})
      for (double target = -8.0; target <= 8.0; target += 0.5) {
        const double sr = target / std::sqrt(n);
        INFO("T " << n << " SR " << sr << " skew " << skew << " kurtosis " << kurt);
        CHECK(std::abs(sel::sharpe_z(sr, n, skew, kurt) - psr_z(sr, n, skew, kurt)) <= bound);
      }
  // And so is the DSR: the best of 200,000 trials over 500,000 returns.
  sel::HigherMoments best;
  best.n = 500000, best.sharpe = 0.0075, best.skewness = 1.5, best.kurtosis = 12.0;
  const sel::DeflatedSharpe d = sel::standardized_deflated_sharpe(200000, 0.8, best);
  const double before = 0.5 * std::erfc(-(psr_z(0.0075, 500000, 1.5, 12.0) - d.expected_max_z) / std::sqrt(2.0));
  INFO("DSR " << d.dsr << " with the PSR's z " << before);
  CHECK(d.dsr > 0.5);
  CHECK(d.dsr < 0.99);
  CHECK(std::abs(d.dsr - before) <= 1e-5);
}

TEST_CASE("the standardized DSR puts trials of every length on one footing", "[cpu][selection]") {
  sel::HigherMoments best;
  best.n = 900, best.sharpe = 0.15, best.skewness = 0.4, best.kurtosis = 5.0;
  const sel::DeflatedSharpe d = sel::standardized_deflated_sharpe(5000, 0.6, best);
  CHECK(d.method == sel::Deflation::Standardized);
  CHECK(d.null_z_variance == 0.6);
  CHECK(d.expected_max_z == sel::expected_max_sharpe(5000, 0.6));
  CHECK(d.z == sel::sharpe_z(0.15, 900, 0.4, 5.0));
  CHECK(close(d.dsr, 0.5 * std::erfc(-(d.z - d.expected_max_z) / std::sqrt(2.0))));
  // SR_0 is the Sharpe ratio whose z, at the best trial's T, skewness and kurtosis, is E[max z].
  const double r = (1.0 - 0.4 * 0.15 + (5.0 - 1.0) / 4.0 * 0.15 * 0.15) / (1.0 + 0.15 * 0.15 / 2.0);
  CHECK(close(sel::z_of_t(d.expected_max_sharpe * std::sqrt(900.0 / r), 899.0), d.expected_max_z, 1e-10));
  CHECK((d.dsr > 0.5) == (0.15 > d.expected_max_sharpe));
  // A variance across trials above 1 is a spread of true Sharpe ratios: the null's is 1.
  const sel::DeflatedSharpe wide = sel::standardized_deflated_sharpe(5000, 3.0, best);
  CHECK(wide.sharpe_variance == 3.0);
  CHECK(wide.null_z_variance == 1.0);
  CHECK(wide.expected_max_z == sel::expected_max_sharpe(5000, 1.0));

  // 2,000 trials without an edge, half of 20 returns and half of 2,000, and one more of 2,000
  // returns with a true Sharpe ratio of 0.15 per observation (seeded normal draws). The short
  // trials' Sharpe ratios vary 100 times more than the long ones': one variance across trials
  // sets the paper's bar above the edge; in standard errors the edge stands out.
  tpeopt::tpe::SplitMix64 rng(tpeopt::tpe::trial_stream_seed(17, 0, 0));
  const auto normal = [&] {
    const double u1 = (static_cast<double>(rng() >> 11) + 0.5) * 0x1p-53,
                 u2 = static_cast<double>(rng() >> 11) * 0x1p-53;
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
  };
  std::vector<double> sharpes, zs;
  std::size_t best_null = 0;
  for (std::size_t i = 0; i <= 2000; ++i) {
    const std::size_t T = i < 1000 ? 20 : 2000;
    const double mu = i == 2000 ? 0.15 : 0.0;
    sel::Moments m;
    for (std::size_t t = 0; t < T; ++t) {
      const double r = mu + normal();
      m += {1.0, r, r * r};
    }
    sharpes.push_back(sel::sharpe_per_observation(m));
    zs.push_back(sel::sharpe_z(sharpes.back(), m.n));
    if (i < 2000 && zs[i] > zs[best_null]) best_null = i;
  }
  const auto as_best = [&](std::size_t i) {
    sel::HigherMoments h;
    h.n = i < 1000 ? 20 : 2000, h.sharpe = sharpes[i];
    return h;
  };
  const std::vector<double> null_sharpes(sharpes.begin(), sharpes.end() - 1), null_zs(zs.begin(), zs.end() - 1);
  // Without the edge, the best of the 2,000 (by z, as a Sharpe objective ranks) is luck.
  CHECK(sel::standardized_deflated_sharpe(2000, sel::sharpe_variance(null_zs), as_best(best_null)).dsr < 0.95);
  // With it, the edge is the best by z: significant in standard errors, not by the paper's bar.
  REQUIRE(std::max_element(zs.begin(), zs.end()) - zs.begin() == 2000);
  const sel::DeflatedSharpe z_dsr = sel::standardized_deflated_sharpe(2001, sel::sharpe_variance(zs), as_best(2000));
  const sel::DeflatedSharpe paper = sel::deflated_sharpe(2001, sel::sharpe_variance(sharpes), as_best(2000));
  INFO("standardized " << z_dsr.dsr << " (z " << z_dsr.z << ", E[max z] " << z_dsr.expected_max_z << "), paper "
                       << paper.dsr << " (SR " << paper.sharpe << ", SR_0 " << paper.expected_max_sharpe << ")");
  CHECK(z_dsr.dsr > 0.95);
  CHECK(paper.dsr < 0.5);
}

TEST_CASE("a short track record: the quickstart's best of 17 trades is within selection luck", "[cpu][selection]") {
  // The best of examples/exhaustion_eurusd.json (README): 2,971 distinct trials, V[z] above 1,
  // its 17 in-sample trade returns' Sharpe ratio, skewness and kurtosis.
  sel::HigherMoments best;
  best.n = 17, best.sharpe = 1.4768181498626176, best.skewness = 0.42338714254139326, best.kurtosis = 2.590047635576751;
  const sel::DeflatedSharpe d = sel::standardized_deflated_sharpe(2971, 1.1477728642771912, best);
  // The PSR's statistic taken as normal called it significant: SR sqrt(16) over the PSR's factor.
  const double psr_z =
      best.sharpe * 4.0 /
      std::sqrt(1.0 - best.skewness * best.sharpe + (best.kurtosis - 1.0) / 4.0 * best.sharpe * best.sharpe);
  const double before = 0.5 * std::erfc(-(psr_z - d.expected_max_z) / std::sqrt(2.0));
  INFO("z " << d.z << " E[max z] " << d.expected_max_z << " DSR " << d.dsr << "; the PSR's z " << psr_z << " DSR "
            << before);
  CHECK(before >= 0.95);
  CHECK(d.z < psr_z);
  CHECK(d.dsr < 0.95);
  CHECK(sel::verdict(d, 0.78, 0.18).ends_with(": consistent with selection luck"));
  // Taken as normal returns, the t statistic 6.09 through Student's t with 16 degrees of freedom.
  sel::HigherMoments normal = best;
  normal.skewness = 0.0, normal.kurtosis = 3.0;
  const sel::DeflatedSharpe n = sel::standardized_deflated_sharpe(2971, 1.1477728642771912, normal);
  CHECK(close(n.z, sel::z_of_t(best.sharpe * std::sqrt(17.0), 16.0)));
  CHECK(n.dsr < d.dsr);
}

TEST_CASE("the verdict reads the statistics", "[cpu][selection]") {
  sel::DeflatedSharpe d;
  d.sharpe = 0.21, d.n_observations = 412, d.expected_max_sharpe = 0.09, d.n_trials = 200704, d.dsr = 0.97;
  CHECK(sel::verdict(d, 0.12) ==
        "best Sharpe 0.21 (per observation, T 412); 0.09 expected from 200,704 trials by chance; DSR 0.97; PBO 0.12: "
        "unlikely to be selection luck alone");
  d.method = sel::Deflation::Standardized;
  CHECK(sel::verdict(d, 0.12, 0.03) ==
        "best Sharpe 0.21 (per observation, T 412); 0.09 expected from 200,704 trials by chance at that T; DSR 0.97; "
        "PBO 0.12; P(loss) 0.03: unlikely to be selection luck alone");
  // Near-equal parameters of a real edge: the ranking is a toss-up, the chosen one still gains.
  CHECK(sel::verdict(d, 0.55, 0.1)
            .ends_with("PBO 0.55; P(loss) 0.10: an edge beyond selection luck, but the "
                       "in-sample ranking of the parameters does not carry over"));
  CHECK(sel::verdict(d, 0.55, 0.5).ends_with(": consistent with selection luck"));
  CHECK(sel::verdict(d, 0.55).ends_with(": consistent with selection luck"));
  d.dsr = 0.4;
  CHECK(sel::verdict(d, 0.12).ends_with("DSR 0.40; PBO 0.12: consistent with selection luck"));
  CHECK(sel::verdict(d, 0.55, 0.1).ends_with("consistent with selection luck"));
  CHECK(sel::verdict(std::nullopt, 0.7) == "PBO 0.70: consistent with selection luck");
  CHECK(sel::grouped(1234567) == "1,234,567");
  CHECK(sel::grouped(999) == "999");
}
