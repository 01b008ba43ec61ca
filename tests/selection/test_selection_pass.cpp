// The selection-bias pass after a run (study/selection_pass.hpp) over a strategy whose walk
// is written here: each trial's returns are seeded noise plus an edge of its parameter x0
// (none for the no-edge variant), scored per fold as the with_folds contract says
// (strategies/strategy.hpp). The real strategies' folds come with their own branch.
#include <catch2/catch.hpp>

#include <cmath>
#include <numbers>

#include "common/error.hpp"
#include "study/selection_pass.hpp"
#include "study/selection_sample.hpp"
#include "study/study.hpp"
#include "support/study_fixtures.hpp"
#include "tpe/trial_rng.hpp"

namespace engine = tpeopt::engine;
namespace strategies = tpeopt::strategies;

namespace {

/// n_bars returns per trial: N(edge, 1) when x0 > 0.98 (2% of the trials have a real edge), else N(0, 1), drawn from a stream of (x1, bar) (Box-Muller over
/// SplitMix64). Score: the per-observation Sharpe ratio of every bar. With folds, the metrics
/// fold{k}_score/_n/_sum/_sumsq of each fold.
class NoiseWalk final : public strategies::Strategy {
 public:
  NoiseWalk(double edge, bool splittable, std::size_t n_bars = 480, strategies::FoldSpec folds = {})
      : edge_(edge), splittable_(splittable), n_bars_(n_bars), folds_(std::move(folds)) {
    std::vector<strategies::ParamSpec> specs(2);
    specs[0].name = "x0", specs[1].name = "x1";
    specs[0].domain = specs[1].domain = strategies::any_finite();
    params_ = strategies::ParamList(specs);
    for (std::size_t k = 0; k + 1 < folds_.edges.size(); ++k)
      for (const char* m : {"score", "n", "sum", "sumsq"}) metrics_.push_back("fold" + std::to_string(k) + "_" + m);
  }
  std::string name() const override { return "noise_walk"; }
  const strategies::ParamList& params() const override { return params_; }
  const std::vector<std::string>& metric_names() const override { return metrics_; }
  std::size_t n_atoms() const override { return n_bars_; }
  std::int64_t atom_time_s(std::size_t k) const override { return static_cast<std::int64_t>(k) * 3600; }

  strategies::TrialScore evaluate(const double* p, double* metrics) const override {
    const std::size_t K = folds_.edges.empty() ? 0 : folds_.edges.size() - 1;
    double n = 0, sum = 0, sumsq = 0;
    for (std::size_t k = 0; k < K; ++k)
      metrics[4 * k + 0] = metrics[4 * k + 1] = metrics[4 * k + 2] = metrics[4 * k + 3] = 0;
    tpeopt::tpe::SplitMix64 rng(tpeopt::tpe::trial_stream_seed(static_cast<std::uint64_t>(p[1] * 1e6), 0, 1));
    for (std::size_t t = 0; t < n_bars_; ++t) {
      const double u1 = (static_cast<double>(rng() >> 11) + 0.5) * 0x1p-53,
                   u2 = static_cast<double>(rng() >> 11) * 0x1p-53;
      const double r =
          (p[0] > 0.98 ? edge_ : 0.0) + std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
      n += 1, sum += r, sumsq += r * r;
      for (std::size_t k = 0; k < K; ++k)
        if (folds_.edges[k] <= t && t < folds_.edges[k + 1])
          metrics[4 * k + 1] += 1, metrics[4 * k + 2] += r, metrics[4 * k + 3] += r * r;
    }
    const double mean = sum / n;
    return {mean / std::sqrt((sumsq - sum * mean) / (n - 1)), 0.0};
  }

  std::unique_ptr<strategies::Strategy> with_folds(const strategies::FoldSpec& folds,
                                                   const strategies::AcrossFolds& rule) const override {
    if (!splittable_) return Strategy::with_folds(folds, rule);
    return std::make_unique<NoiseWalk>(edge_, true, n_bars_, folds);
  }

 private:
  double edge_;
  bool splittable_;
  std::size_t n_bars_;
  strategies::FoldSpec folds_;
  strategies::ParamList params_;
  std::vector<std::string> metrics_;
};

engine::SelectionBias run_and_pass(const NoiseWalk& strategy, std::uint64_t trials,
                                   engine::SelectionSettings settings) {
  // x0: the edge's weight; x1: the noise stream. Random sampling: every trial independent.
  auto config = tpeopt::testing::functions_config("sphere", 2, 0.0, 1.0, trials, 100, 2, 11, "random");
  config.objective.direction = tpeopt::tpe::Direction::Maximize;  // the walk's score is a Sharpe ratio
  engine::RunOptions options;
  options.executor = "cpu";
  options.cpu_threads = 2;
  engine::SelectionSample sample(settings.top, settings.sample, config.search.seed, config.objective.direction,
                                 nullptr);
  engine::run_study(config, strategy, options, &sample);
  REQUIRE(sample.n_trials() == trials);
  return engine::selection_bias(config, strategy, sample, options, settings);
}

}  // namespace

TEST_CASE("selection pass: noise without an edge gives a high PBO and a DSR that is not significant",
          "[cpu][selection]") {
  const NoiseWalk noise(0.0, true);
  engine::SelectionSettings settings;
  settings.top = 100, settings.sample = 100, settings.sub_periods = 8;
  const engine::SelectionBias s = run_and_pass(noise, 2000, settings);
  INFO(engine::selection_bias_line(s));
  REQUIRE(s.unavailable.empty());
  CHECK(s.top == 100);
  CHECK(s.sample > 80);  // the sample's trials that ended in the top are left out
  CHECK(s.cscv->in_sample_sets.size() == 70);
  CHECK_FALSE(s.cscv->sampled);
  CHECK(s.cscv->pbo > 0.3);
  REQUIRE(s.dsr);
  CHECK(s.dsr->method == tpeopt::selection::Deflation::Standardized);
  CHECK(s.dsr->n_trials == 2000);
  CHECK(s.dsr->dsr < 0.95);
  CHECK(s.dsr->sharpe > 0.0);
  CHECK(s.dsr->n_observations == 480);
  // Independent trials without an edge: their z's vary about as N(0, 1) does.
  CHECK(s.dsr->sharpe_variance > 0.8);
  CHECK(s.dsr->sharpe_variance < 1.2);
  REQUIRE(s.dsr_paper);
  CHECK(s.dsr_paper->method == tpeopt::selection::Deflation::SharpeVariance);
  CHECK(s.dsr_paper->dsr < 0.95);
  CHECK(s.cscv->probability_of_loss > 0.3);
  CHECK(s.verdict.ends_with("consistent with selection luck"));
  CHECK(s.higher_moments_from.starts_with("assumed normal"));  // noise_walk is not registered: no trade export
  // The same trials and splits each time.
  const engine::SelectionBias again = run_and_pass(noise, 2000, settings);
  CHECK(again.cscv->logits == s.cscv->logits);
  CHECK(again.dsr->dsr == s.dsr->dsr);
}

TEST_CASE("selection pass: a planted edge is found, with a low PBO and a significant DSR", "[cpu][selection]") {
  const NoiseWalk edge(0.5, true);
  engine::SelectionSettings settings;
  settings.top = 100, settings.sample = 100, settings.sub_periods = 8;
  const engine::SelectionBias s = run_and_pass(edge, 2000, settings);
  INFO(engine::selection_bias_line(s));
  REQUIRE(s.unavailable.empty());
  CHECK(s.cscv->pbo < 0.1);
  CHECK(s.cscv->probability_of_loss < 0.1);
  REQUIRE(s.dsr);
  CHECK(s.dsr->dsr > 0.95);
  // Trials of one length: the paper's DSR agrees.
  REQUIRE(s.dsr_paper);
  CHECK(s.dsr_paper->dsr > 0.95);
  CHECK(s.verdict.ends_with("unlikely to be selection luck alone"));
}

TEST_CASE("selection pass: a strategy that cannot be split says why, and the run is not affected", "[cpu][selection]") {
  const NoiseWalk whole(0.0, false);
  const engine::SelectionBias s = run_and_pass(whole, 300, {});
  CHECK_FALSE(s.unavailable.empty());
  CHECK(s.unavailable.find("cannot be split into folds") != std::string::npos);
  CHECK(engine::selection_bias_line(s).starts_with("selection bias: not available: "));
  CHECK_FALSE(s.dsr);
  CHECK_FALSE(s.dsr_paper);
  CHECK_FALSE(s.cscv);
}

TEST_CASE("selection sample: the top trials by the ranking and a seeded sample of the rest", "[cpu][selection]") {
  const NoiseWalk noise(0.0, true);
  auto config = tpeopt::testing::functions_config("sphere", 2, 0.0, 1.0, 1000, 100, 2, 5, "random");
  config.objective.direction = tpeopt::tpe::Direction::Maximize;
  engine::RunOptions options;
  options.executor = "cpu";
  options.keep_trials = true;
  engine::SelectionSample sample(10, 50, 5, config.objective.direction, nullptr);
  const engine::StudyRun run = engine::run_study(config, noise, options, &sample);
  const auto top = sample.top();
  REQUIRE(top.size() == 10);
  for (std::size_t i = 0; i < 10 && i < run.result.top().size(); ++i) CHECK(top[i].trial == run.result.top()[i].trial);
  const auto rest = sample.rest();
  CHECK(rest.size() <= 50);
  CHECK(rest.size() >= 40);
  for (const auto& t : rest)
    for (const auto& b : top) CHECK(t.trial != b.trial);
  engine::SelectionSample again(10, 50, 5, config.objective.direction, nullptr);
  engine::run_study(config, noise, options, &again);
  CHECK(again.rest().front().trial == rest.front().trial);
  CHECK(again.rest().back().trial == rest.back().trial);
}

TEST_CASE("selection sample: a repeated parameter set counts once, kept by its first trial", "[cpu][selection]") {
  engine::SelectionSample sample(2, 10, 5, tpeopt::tpe::Direction::Maximize, nullptr);
  engine::BatchRequest request;
  request.first_trial = 0;
  request.n_trials = 5;
  request.n_axes = 2;
  // Rows: a, b, a again (trial 2), c, b again (trial 4); trial 5 (next batch) is a with -0 for 0.
  request.values = {1.0, 0.0, 2.0, 3.0, 1.0, 0.0, 4.0, 5.0, 2.0, 3.0};
  engine::BatchResult result;
  result.first_trial = 0;
  result.n_trials = 5;
  result.scores = {1.0, 2.0, 1.0, 0.5, 2.0};
  result.violations.assign(5, 0.0);
  sample.on_batch(request, result, {});
  request.first_trial = result.first_trial = 5;
  request.n_trials = result.n_trials = 1;
  request.values = {1.0, -0.0};  // trial 0's row: a repeat across batches
  result.scores = {1.0};
  result.violations = {0.0};
  sample.on_batch(request, result, {});
  CHECK(sample.n_told() == 6);
  CHECK(sample.n_trials() == 3);
  const auto top = sample.top();
  REQUIRE(top.size() == 2);
  CHECK(top[0].trial == 1);  // b, by its first trial
  CHECK(top[1].trial == 0);  // a
  REQUIRE(sample.rest().size() == 1);
  CHECK(sample.rest()[0].trial == 3);
}
