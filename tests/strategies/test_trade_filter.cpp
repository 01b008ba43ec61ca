// trade_filter: the CPU reference on hand-computed trades, record bisection == linear
// walk, grid top K (cells and direct) == brute force, TPE pipelined == serial.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "engine/param_binding.hpp"
#include "strategies/trade_filter/trade_filter_cache.hpp"
#include "strategies/trade_filter/trade_filter_exact_grid.hpp"
#include "strategies/trade_filter/trade_filter_grid.hpp"
#include "strategies/trade_filter/trade_filter_prepare.hpp"
#include "strategies/trade_filter/trade_filter_strategy.hpp"
#include "study/slot_grid_config.hpp"
#include "study/study.hpp"
#include "support/bits.hpp"
#include "support/trade_filter_fixture.hpp"
#include "tpe/grid_sampler.hpp"

using namespace tpeopt;
namespace tf = strategies::trade_filter;

namespace {

using tpeopt::testing::same_bits;

/// One ticker, rows at seconds 0..n-1; trades with hand-picked metrics.
std::shared_ptr<strategies::TradeFilterData> hand_data() {
  auto d = std::make_shared<strategies::TradeFilterData>();
  d->tickers = {"SOXL"};
  d->prices = {10.0f, 10.03f, 9.96f, 10.06f, 10.0f, 10.0f, 9.9f, 10.1f};
  d->ticker_offset = {0, 8};
  std::vector<std::int64_t> times{0, 1, 2, 3, 4, 5, 6, 7};
  struct T {
    std::int64_t entry, exit;
    float m[5];
    double logged;
  };
  // A: path +0.3, -0.4, +0.6 (rows 1..3); B: filtered out by volatility; C: rows 4..5 flat (logged 0.7);
  // D: rows 6..7: -1%, +1%
  const T trades[] = {{1, 3, {0.5f, 1.0f, 25, 25, 25}, 0.42},
                      {1, 3, {0.1f, 1.0f, 25, 25, 25}, 5.0},
                      {4, 5, {0.5f, 1.0f, 25, 25, 25}, 0.7},
                      {6, 7, {0.6f, 0.9f, 31, 31, 31}, -0.25}};
  for (const T& t : trades) {
    d->ticker.push_back(0);
    d->entry_time.push_back(t.entry);
    d->exit_time.push_back(t.exit);
    d->volatility.push_back(t.m[0]);
    d->ratio.push_back(t.m[1]);
    d->adx28.push_back(t.m[2]);
    d->adx14.push_back(t.m[3]);
    d->adx7.push_back(t.m[4]);
    d->entry_price.push_back(10.0);
    d->logged_pct.push_back(t.logged);
  }
  io::compute_trade_filter_paths(*d, times);
  return d;
}

struct Scored {
  std::uint64_t combo;
  double score, violation;
};

}  // namespace

TEST_CASE("trade_filter CPU reference on hand-computed trades", "[cpu][trade_filter]") {
  strategies::TradeFilterStrategy s(hand_data(), 1);
  double m[3];
  auto run = [&](double vol, double target, double stop) {
    const double p[7] = {vol, 0, 0, 0, 0, target, stop};
    return s.evaluate(p, m);
  };
  // target 0.5 / stop -0.5: A hits +0.6 -> 0.5; C logged 0.7; D: -1% first -> -0.5. B filtered (vol 0.1 < 0.2)
  auto r = run(0.2, 0.5, -0.5);
  REQUIRE(m[0] == 3);
  REQUIRE(r.score == static_cast<double>(llround(0.5 * 1e9) + llround(0.7 * 1e9) + llround(-0.5 * 1e9)) / 1e9);
  REQUIRE(m[1] == 2);
  REQUIRE(m[2] == 1);
  REQUIRE(r.violation == 0);
  // target 0.25: A exits at the first +0.3 -> 0.25 (float32 0.25 exactly)
  r = run(0.2, 0.25, -2.0);
  const std::int64_t q_stop = llround(static_cast<double>(-2.0f) * 1e9);
  (void)q_stop;
  // D: path -1 then +1 -> target 0.25 at k=1 (stop -2 never)
  REQUIRE(r.score == static_cast<double>(250000000 + 700000000 + 250000000) / 1e9);
  // stop -0.35 (float32 -0.3499999940...), target 1.0: A: -0.4 <= stop -> stop; C logged; D: -1 -> stop
  r = run(0.2, 1.0, -0.35);
  const std::int64_t qs = llround(static_cast<double>(-0.35f) * 1e9);
  REQUIRE(qs == -349999994);
  REQUIRE(r.score == static_cast<double>(qs + 700000000 + qs) / 1e9);
  // a volatility minimum equal to a metric keeps it (0.6f >= 0.6f); min_trades violation
  strategies::TradeFilterStrategy strict(hand_data(), 5);
  const double p[7] = {0.6, 0, 0, 0, 0, 0.5, -0.5};
  const auto v = strict.evaluate(p, m);
  REQUIRE(m[0] == 1);
  REQUIRE(v.violation == 4);
  REQUIRE(v.score == -0.5);
  // parameter checks
  REQUIRE_THROWS_WITH(s.check_param_range(tf::kTargetPct, 0.0, 1.0), Catch::Contains("params.target_pct"));
  REQUIRE_THROWS_WITH(s.check_param_range(tf::kStopPct, -1.0, 0.0), Catch::Contains("params.stop_pct"));
  REQUIRE_NOTHROW(s.check_param_range(tf::kMinAdx7, 0.0, 50.0));
}

TEST_CASE("trade_filter record bisection equals the linear walk", "[cpu][trade_filter]") {
  const auto cache = testing::trade_filter_cache(1, 600, 11);
  auto data = std::make_shared<const strategies::TradeFilterData>(io::read_trade_filter_cache(cache));
  strategies::TradeFilterStrategy s(data, 1);
  const auto a = s.arrays();
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(0, 1);
  for (int trial = 0; trial < 300; ++trial) {
    double p[7] = {u(rng) * 0.8, u(rng) * 1.1,        u(rng) * 35,           u(rng) * 35,
                   u(rng) * 35,  0.05 + u(rng) * 1.5, -(0.05 + u(rng) * 1.5)};
    if (trial % 3 == 0) {  // thresholds exactly on path values
      const std::size_t k = static_cast<std::size_t>(u(rng) * static_cast<double>(data->path.size()));
      const float r = data->path[k];
      if (r > 0) p[5] = r;
      if (r < 0) p[6] = r;
    }
    CAPTURE(trial);
    double m[3];
    const auto ref = s.evaluate(p, m);
    const tf::Tally t = tf::tally_trades(a, tf::params_from_slots(p), 0, a.n);
    REQUIRE(same_bits(ref.score, tf::from_fixed_point(t.sum_q)));
    REQUIRE(m[0] == static_cast<double>(t.kept));
    REQUIRE(m[1] == static_cast<double>(t.wins));
    REQUIRE(m[2] == static_cast<double>(t.losses));
  }
}

TEST_CASE("trade_filter grid top K equals a brute-force sort", "[cpu][trade_filter]") {
  const auto cache = testing::trade_filter_cache(1, 600, 11);
  const std::int64_t min_trades = GENERATE(as<std::int64_t>{}, 1, 400);
  const std::size_t k = GENERATE(as<std::size_t>{}, 1, 10, 50);
  CAPTURE(min_trades, k);
  // axes out of slot order, unsorted values, two equal as float32, a fixed slot
  const auto config = testing::trade_filter_config(cache,
                                                   R"({"target_pct": [0.5, 0.2, 0.3],
                        "min_ratio": [0.9, 0, 1.0, 0.900000001],
                        "min_volatility": [0.3, 0, 0.5],
                        "stop_pct": [-0.3, -0.5],
                        "min_adx28": [0, 20],
                        "min_adx14": 0,
                        "min_adx7": [30, 0, 20]})",
                                                   R"({"sampler": "grid"})", min_trades);
  auto strategy = engine::make_strategy(config);
  const auto& s = dynamic_cast<const strategies::TradeFilterStrategy&>(*strategy);
  const auto grid = strategies::trade_filter_grid_of(engine::make_slot_grid(config, s));
  REQUIRE(grid.size() == 3 * 4 * 3 * 2 * 2 * 3);

  // brute force with the reference, in the grid sampler's order
  tpe::GridSampler sampler(config.space);
  engine::ParamBinding binding(s, config.space, config.fixed);
  std::vector<double> axes(config.space.size()), slots(7), slots2(7), metrics(3);
  std::vector<Scored> all;
  for (std::uint64_t c = 0; c < grid.size(); ++c) {
    sampler.ask(c, 1, axes.data());
    binding.fill(axes.data(), slots.data());
    grid.slots_of(c, slots2.data());
    REQUIRE(slots == slots2);
    const auto r = s.evaluate(slots.data(), metrics.data());
    all.push_back({c, r.score, r.violation});
  }
  std::stable_sort(all.begin(), all.end(), [](const Scored& a, const Scored& b) {
    const int ca = a.violation > 0, cb = b.violation > 0;
    if (ca != cb) return ca < cb;
    if (ca == 0 && a.score != b.score) return a.score > b.score;
    if (ca == 1 && a.violation != b.violation) return a.violation < b.violation;
    return a.combo < b.combo;
  });
  tf::GridSearchSettings st;
  st.top_k = k;
  st.min_trades = min_trades;
  st.threads = 2;
  const auto cells = tf::grid_search_cpu(s, grid, st);
  REQUIRE(std::string(cells.method) == "cells");
  st.memory_budget = 1;  // nothing fits: every combination directly
  const auto direct = tf::grid_search_cpu(s, grid, st);
  REQUIRE(std::string(direct.method) == "direct");
  REQUIRE(cells.top == direct.top);
  REQUIRE(cells.top.size() == std::min<std::size_t>(k, grid.size()));
  for (std::size_t r = 0; r < cells.top.size(); ++r) {
    CAPTURE(r);
    REQUIRE(cells.top[r].combination == all[r].combo);
    REQUIRE(same_bits(tf::from_fixed_point(cells.tallies[r].sum_q), all[r].score));
    REQUIRE(tf::violation_of(cells.tallies[r].kept, min_trades) == all[r].violation);
  }
}

TEST_CASE("trade_filter TPE run: pipelined equals serial", "[cpu][trade_filter][determinism]") {
  const auto cache = testing::trade_filter_cache(1, 600, 11);
  const auto config =
      testing::trade_filter_config(cache, testing::trade_filter_continuous_params(0.1, 1.5),
                                   R"({"sampler": "tpe", "trials": 400, "batch": 64, "depth": 2, "seed": 3})", 10);
  engine::RunOptions serial, pipelined;
  serial.executor = pipelined.executor = "cpu";
  serial.serial = true;
  serial.cpu_threads = 1;
  pipelined.cpu_threads = 2;
  const auto a = engine::run_study(config, serial);
  const auto b = engine::run_study(config, pipelined);
  REQUIRE(a.result.n_trials() == 400);
  REQUIRE(a.result.digest_hex() == b.result.digest_hex());
  REQUIRE_FALSE(a.result.top().empty());
  REQUIRE(a.result.top().front().metrics.size() == 3);
}
