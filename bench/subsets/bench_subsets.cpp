// Benchmark of successive halving inside a batch (docs/benchmarks.md, "Successive halving"): on generated trade_filter
// data with a known best region, does halving reach the best score of the full evaluation
// (within 1%) using at most a third of the executor time?
//
// Data (generated here, in memory): `days` trading days of `trades_per_day` trades. Each
// trade's entry metrics are uniform (volatility [0, 1), ratio [0, 1.5), ADX 28/14/7 [0, 40));
// its percent-return path is a Gaussian random walk of `path_len` steps (sd 0.1 per step)
// whose drift is +0.03 per step inside the planted region (adx14 >= 20 and ratio >= 0.9)
// and -0.01 outside. The logged outcome is the path's last value. The best filters are
// therefore min_adx14 ~ 20 and min_ratio ~ 0.9 (the other minimums below their ranges),
// with a wide take profit; every day has the same region, so the day slices agree on it.
//
// Runs, with the same sampler settings and seed:
//   full:    TPE, `trials` trials, every trial on every day;
//   halving: the same (or --halving-trials trials) with search.halving {eta, min_slices}
//            (pruned trials told as Optuna's TPE tells pruned trials).
// Reported: best score on the whole data, executor time (sum of the batches' busy time; device
// events on the GPU), their ratios, and whether the goal (best within 1%, time <= 1/3) holds.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <memory>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <boost/random/normal_distribution.hpp>
#include <boost/random/uniform_real_distribution.hpp>

#include "strategies/trade_filter/trade_filter.hpp"
#include "strategies/trade_filter/trade_filter_strategy.hpp"
#include "study/study.hpp"
#include "tpe/trial_rng.hpp"

using namespace tpeopt;

namespace {

std::shared_ptr<const strategies::TradeFilterData> planted_data(int days, int per_day, int path_len,
                                                                std::uint64_t seed) {
  auto d = std::make_shared<strategies::TradeFilterData>();
  d->tickers = {"SYN"};
  d->ticker_offset = {0, 0};
  d->path_offset.push_back(0);
  const std::int64_t first_day = 19723;  // 2024-01-02
  for (int day = 0; day < days; ++day) {
    for (int i = 0; i < per_day; ++i) {
      auto rng =
          tpe::make_trial_engine(seed, static_cast<std::uint64_t>(day) * 1000003u + static_cast<std::uint64_t>(i));
      auto u = [&](double lo, double hi) { return boost::random::uniform_real_distribution<double>(lo, hi)(rng); };
      boost::random::normal_distribution<double> step(0.0, 0.1);
      const float vol = static_cast<float>(u(0, 1)), ratio = static_cast<float>(u(0, 1.5));
      const float a28 = static_cast<float>(u(0, 40)), a14 = static_cast<float>(u(0, 40)),
                  a7 = static_cast<float>(u(0, 40));
      const double drift = a14 >= 20.0f && ratio >= 0.9f ? 0.03 : -0.01;
      d->ticker.push_back(0);
      d->entry_time.push_back((first_day + day) * 86400 + 34200 + i);
      d->exit_time.push_back((first_day + day) * 86400 + 34200 + i + path_len);
      d->volatility.push_back(vol);
      d->ratio.push_back(ratio);
      d->adx28.push_back(a28);
      d->adx14.push_back(a14);
      d->adx7.push_back(a7);
      d->entry_price.push_back(100.0);
      d->window_start.push_back(0);
      d->window_len.push_back(static_cast<std::uint32_t>(path_len));
      double r = 0.0;
      for (int k = 0; k < path_len; ++k) {
        r += drift + step(rng);
        d->path.push_back(static_cast<float>(r));
      }
      d->path_offset.push_back(d->path.size());
      d->logged_pct.push_back(static_cast<double>(d->path.back()));
      d->logged_q.push_back(strategies::trade_filter::fixed_point(d->logged_pct.back()));
    }
  }
  strategies::build_trade_filter_records(*d);
  return d;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"tpeopt successive-halving benchmark (docs/benchmarks.md, \"Successive halving\")"};
  int days = 60, per_day = 1000, path_len = 120;
  std::uint64_t trials = 4096, halving_trials = 0, batch = 512, eta = 3, min_slices = 2, seed = 1;
  std::string executor = "cpu";
  unsigned threads = 0;
  app.add_option("--days", days, "trading days (slices)");
  app.add_option("--trades-per-day", per_day, "trades per day");
  app.add_option("--path-len", path_len, "steps of each trade's path");
  app.add_option("--trials", trials, "trials of the full run (and of the halving run unless --halving-trials)");
  app.add_option("--halving-trials", halving_trials, "trials of the halving run (0 = --trials)");
  app.add_option("--batch", batch, "trials per batch");
  app.add_option("--eta", eta, "halving: 1/eta go on after each rung");
  app.add_option("--min-slices", min_slices, "halving: days at rung 0");
  app.add_option("--seed", seed, "study seed (and data seed)");
  int seeds = 1;
  app.add_option("--seeds", seeds, "run seeds seed .. seed + N - 1 (each its own data) and report the medians")
      ->check(CLI::Range(1, 1000));
  app.add_option("--executor", executor, "cpu | cuda");
  app.add_option("--threads", threads, "CPU executor threads (0 = all)");
  CLI11_PARSE(app, argc, argv);

  // One seed: the full and the halving run on that seed's data; returns their ratios.
  auto one_seed = [&](std::uint64_t seed) -> std::pair<double, double> {
    const auto data = planted_data(days, per_day, path_len, seed);
    const strategies::TradeFilterStrategy strategy(data, 10);
    const std::string params = R"({"min_volatility": {"type": "float", "low": 0, "high": 1},
        "min_ratio": {"type": "float", "low": 0, "high": 1.5}, "min_adx28": {"type": "float", "low": 0, "high": 40},
        "min_adx14": {"type": "float", "low": 0, "high": 40}, "min_adx7": {"type": "float", "low": 0, "high": 40},
        "target_pct": {"type": "float", "low": 0.2, "high": 20}, "stop_pct": {"type": "float", "low": -20, "high": -0.2}})";
    auto make_config = [&](bool halving) {
      const std::string text = fmt::format(
          R"({{"strategy": "trade_filter", "data": {{"cache": "generated-in-memory"}}, "objective": {{"min_trades": 10}},
              "search": {{"sampler": "tpe", "trials": {}, "batch": {}, "depth": 2, "seed": {}, "top_k": 1{}}},
              "params": {}}})",
          halving && halving_trials > 0 ? halving_trials : trials, batch, seed,
          halving ? fmt::format(R"(, "halving": {{"eta": {}, "min_slices": {}}})", eta, min_slices) : std::string(),
          params);
      return io::parse_study_config(io::Json::parse(text), "bench_subsets", ".");
    };
    engine::RunOptions o;
    o.executor = executor;
    o.cpu_threads = threads;
    std::cout << fmt::format(
        "bench_subsets: {} days x {} trades ({} steps each) | {} trials in batches of {} | eta {} "
        "min_slices {} | executor {} | seed {}\n",
        days, per_day, path_len, trials, batch, eta, min_slices, executor, seed);
    struct Row {
      double best = NAN, exec_ms = 0, wall_ms = 0;
    };
    // Batches 0 .. depth - 1 are asked before any tell: random, and the same in both runs.
    const std::uint64_t shared_trials = 2 * batch;
    auto measure = [&](bool halving) {
      const auto config = make_config(halving);
      const auto run = engine::run_study(config, strategy, o);
      Row r;
      r.best = run.result.top().empty() ? NAN : run.result.top().front().score;
      r.exec_ms = run.summary.exec_ms;
      r.wall_ms = run.summary.wall_ms;
      std::cout << fmt::format("{:<8} best {:>12.4f} | executor {:>10.1f} ms | wall {:>10.1f} ms\n",
                               halving ? "halving" : "full", r.best, r.exec_ms, r.wall_ms);
      if (!run.result.top().empty()) {
        const auto& t = run.result.top().front();
        std::string values;
        for (std::size_t a = 0; a < t.params.size(); ++a)
          values += fmt::format("{}{}={:.4g}", a ? " " : "", config.space.axes[a].name, t.params[a]);
        std::cout << fmt::format("         best trial #{} (batch {}, {}): {}\n", t.trial, t.batch,
                                 t.trial < shared_trials ? "a random startup trial both runs share"
                                                         : "proposed by TPE in this run",
                                 values);
      }
      return r;
    };
    const Row full = measure(false);
    const Row halving = measure(true);
    const double score_ratio = halving.best / full.best, time_ratio = halving.exec_ms / full.exec_ms;
    const bool ok = score_ratio >= 0.99 && time_ratio <= 1.0 / 3.0;
    std::cout << fmt::format("halving/full: best {:.4f} (goal >= 0.99) | executor time {:.3f} (goal <= 0.333) | {}\n",
                             score_ratio, time_ratio, ok ? "goal met" : "goal NOT met");
    return {score_ratio, time_ratio};
  };
  std::vector<double> score_ratios, time_ratios;
  for (int k = 0; k < seeds; ++k) {
    const auto [sr, tr] = one_seed(seed + static_cast<std::uint64_t>(k));
    score_ratios.push_back(sr);
    time_ratios.push_back(tr);
  }
  if (seeds > 1) {
    auto median = [](std::vector<double> v) {
      std::sort(v.begin(), v.end());
      const std::size_t m = v.size() / 2;
      return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
    };
    const double sr = median(score_ratios), tr = median(time_ratios);
    std::cout << fmt::format(
        "median over {} seeds: best {:.4f} (goal >= 0.99) | executor time {:.3f} (goal <= 0.333) | {}\n", seeds, sr, tr,
        sr >= 0.99 && tr <= 1.0 / 3.0 ? "goal met" : "goal NOT met");
  }
  return 0;
}
