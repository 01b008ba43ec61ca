// ema_cross (docs/strategies.md, "ema_cross"): trades equal vectorbt's Portfolio.from_signals on the real series
// of data/ for 300 random parameter sets (fixture written by bench/peers/peers.py),
// hand-checked trades on crafted bars (fills, arming, equality, stops, gaps, priorities,
// end of data, fees), the EMA against vectorbt's formula written out here, and the
// strategy's cached/blocked CPU path against the plain bar-by-bar walk.
#include <catch2/catch.hpp>

#include "support/paths.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "config/study_config.hpp"
#include "engine/cpu_executor.hpp"
#include "engine/param_binding.hpp"
#include "io/candles_csv.hpp"
#include "strategies/ema_cross/ema_cross.hpp"
#include "strategies/ema_cross/ema_cross_strategy.hpp"
#include "study/study.hpp"
#include "support/bits.hpp"

using namespace tpeopt;
namespace ec = strategies::ema_cross;

namespace {

using tpeopt::testing::same_bits;

bool rel_close(double a, double b, double tol = 1e-9) {
  return std::fabs(a - b) <= tol * std::max(std::fabs(a), std::fabs(b));
}

/// Crafted bars and EMA series: open_i = 100 + i (distinct opens), high/low 0.5 around
/// it, close = open; the fast "EMA" is 0 (below the slow one, 1) unless set.
struct Crafted {
  int n;
  std::vector<double> open, high, low, close, fast, slow;
  explicit Crafted(int bars) : n(bars) {
    for (int i = 0; i < n; ++i) {
      open.push_back(100.0 + i);
      high.push_back(100.5 + i);
      low.push_back(99.5 + i);
      close.push_back(100.0 + i);
    }
    fast.assign(n, 0.0);
    slow.assign(n, 1.0);
  }
  void above(int from, int to) {
    for (int k = from; k <= to; ++k) fast[k] = 2.0;
  }
  void equal(int k) { fast[k] = 1.0; }
  void flat(double price) {
    for (int i = 0; i < n; ++i) open[i] = high[i] = low[i] = close[i] = price;
  }
  std::vector<ec::Trade> run(const std::vector<double>& v, ec::Summary* summary = nullptr) const {
    const ec::Bars b{n, 0, open.data(), high.data(), low.data(), close.data()};
    const ec::TrialSeries t{fast.data(), slow.data()};
    std::vector<ec::Trade> out;
    ec::Summary s;
    ec::run_backtest(b, ec::unpack_params(v.data()), t, ec::SequentialFinder{}, [&](const ec::Trade& tr) {
      ec::add_trade(s, tr);
      out.push_back(tr);
    });
    if (summary) *summary = s;
    return out;
  }
};

// ema_fast, ema_slow, sl_pct, tp_pct, fee_bp, slippage_bp (spans 1: no warm-up)
std::vector<double> params(double sl = 0.0, double tp = 0.0, double fee_bp = 0.0, double slip_bp = 0.0,
                           double span = 1.0) {
  return {span, span, sl, tp, fee_bp, slip_bp};
}

/// vectorbt's ewm_mean_1d_nb (adjust=False) written out from its source, old weight and all.
std::vector<double> vectorbt_ema(const std::vector<double>& a, int span) {
  const double com = (span - 1) / 2.0;
  const double alpha = 1.0 / (1.0 + com);
  const double old_wt_factor = 1.0 - alpha;
  const double new_wt = alpha;
  std::vector<double> out(a.size());
  double weighted_avg = a[0];
  out[0] = weighted_avg;
  double old_wt = 1.0;
  for (std::size_t i = 1; i < a.size(); ++i) {
    const double cur = a[i];
    old_wt *= old_wt_factor;
    if (weighted_avg != cur) weighted_avg = ((old_wt * weighted_avg) + (new_wt * cur)) / (old_wt + new_wt);
    old_wt = 1.0;
    out[i] = weighted_avg;
  }
  return out;
}

std::vector<double> random_sets(std::size_t n, int max_span, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto u = [&](double a, double b) { return std::uniform_real_distribution<double>(a, b)(rng); };
  auto k = [&](int a, int b) { return static_cast<double>(std::uniform_int_distribution<int>(a, b)(rng)); };
  std::vector<double> p;
  for (std::size_t i = 0; i < n; ++i) {
    const double row[ec::kNumSlots] = {
        k(1, max_span), k(1, max_span), u(0, 1) < 0.3 ? 0.0 : u(0.1, 6), u(0, 1) < 0.3 ? 0.0 : u(0.1, 9),
        u(0, 20),       u(0, 10)};
    p.insert(p.end(), row, row + ec::kNumSlots);
  }
  return p;
}

}  // namespace

// ---- crafted bars, every trade checked by hand ----------------------------------------------

TEST_CASE("ema_cross: a cross on bar t fills at bar t+1's open, one position at a time", "[cpu][ema_cross]") {
  Crafted c(12);
  c.above(3, 5);   // cross above at 3 (bars 0..2 below arm it)
  c.above(8, 11);  // cross below at 6, cross above at 8
  const double s = 10.0 / 1e4, f = 20.0 / 1e4;
  const auto t = c.run(params(0, 0, 20.0, 10.0));
  REQUIRE(t.size() == 2);
  // Cross above at 3: entry at bar 4's open 104 (+ slippage); cross below at 6: exit at bar 7's open 107.
  CHECK((t[0].signal_bar == 3 && t[0].entry_bar == 4 && t[0].exit_bar == 7 && t[0].reason == ec::kSignal));
  CHECK(t[0].entry_price == 104.0 * (1.0 + s));
  CHECK(t[0].exit_price == 107.0 * (1.0 - s));
  CHECK(t[0].ret == (107.0 * (1.0 - s) * (1.0 - f)) / (104.0 * (1.0 + s) * (1.0 + f)) - 1.0);
  // Cross above at 8: entry at 9; no cross below before the end: marked at the last close
  // (bar 11, 111) without slippage or exit fee.
  CHECK((t[1].signal_bar == 8 && t[1].entry_bar == 9 && t[1].exit_bar == 11 && t[1].reason == ec::kEnd));
  CHECK(t[1].exit_price == 111.0);
  CHECK(t[1].ret == (111.0 * (1.0 - 0.0)) / (109.0 * (1.0 + s) * (1.0 + f)) - 1.0);
}

TEST_CASE("ema_cross: entries need the fast EMA strictly below first, equality is not above", "[cpu][ema_cross]") {
  SECTION("starting above: no entry until a bar below arms the signal") {
    Crafted c(8);
    c.above(0, 7);
    CHECK(c.run(params()).empty());
    c.fast[3] = 0.0;  // below at 3, above again at 4: entry at 5
    const auto t = c.run(params());
    REQUIRE(t.size() == 1);
    CHECK((t[0].signal_bar == 4 && t[0].entry_bar == 5 && t[0].reason == ec::kEnd));
  }
  SECTION("below, equal, above crosses; above, equal, above inside a position does nothing") {
    Crafted c(14);
    c.above(0, 3);
    c.equal(5);      // 4 below, 5 equal
    c.above(6, 7);   // cross above at 6: entry 7
    c.equal(8);      // equal is not below: no exit signal
    c.above(9, 10);  // a cross above at 9 (8 was not above): ignored inside the position
    // 11..13 below: cross below at 11, exit at 12
    const auto t = c.run(params());
    REQUIRE(t.size() == 1);
    CHECK((t[0].signal_bar == 6 && t[0].entry_bar == 7 && t[0].exit_bar == 12 && t[0].reason == ec::kSignal));
  }
  SECTION("warm-up bars (before max(spans) - 1) never arm or signal") {
    Crafted c(8);
    c.above(2, 7);                                  // below only at 0 and 1
    CHECK(c.run(params(0, 0, 0, 0, 3.0)).empty());  // spans 3: first valid bar 2
    const auto t = c.run(params(0, 0, 0, 0, 2.0));  // spans 2: bar 1 is valid and below
    REQUIRE(t.size() == 1);
    CHECK((t[0].signal_bar == 2 && t[0].entry_bar == 3));
  }
  SECTION("a cross above on the last bar cannot enter; on the bar before, it enters at the last bar") {
    Crafted c(6);
    c.above(5, 5);
    CHECK(c.run(params()).empty());
    c.above(4, 5);
    const auto t = c.run(params(2.0, 2.0, 5.0, 5.0));
    REQUIRE(t.size() == 1);
    CHECK((t[0].entry_bar == 5 && t[0].exit_bar == 5 && t[0].reason == ec::kEnd));
    CHECK(t[0].exit_price == 105.0);  // the close; stops are not checked on the entry bar
  }
}

TEST_CASE("ema_cross: stop-loss and take-profit from the entry fill, checked from the bar after entry",
          "[cpu][ema_cross]") {
  // Flat bars at 100 (high = low = 100 unless set); cross above at 1, entry at bar 2.
  auto flat = [] {
    Crafted c(10);
    c.flat(100.0);
    c.above(1, 9);
    return c;
  };
  const double s = 5.0 / 1e4;
  const double entry = 100.0 * (1.0 + s);
  SECTION("stop-loss touched by the low: fill at the level, slippage on top") {
    Crafted c = flat();
    c.low[2] = 90.0;  // the entry bar: not checked
    c.low[5] = 97.0;
    const auto t = c.run(params(2.0, 0, 0, 5.0));
    REQUIRE(t.size() == 1);
    const double level = entry * (1.0 - 0.02);
    CHECK((t[0].exit_bar == 5 && t[0].reason == ec::kStopLoss));
    CHECK(t[0].exit_price == level * (1.0 - s));
  }
  SECTION("stop-loss gapped: the bar opens below the level: fill at the open") {
    Crafted c = flat();
    c.open[5] = 97.5;
    c.low[5] = 97.0;
    c.close[5] = 97.5;
    const auto t = c.run(params(2.0, 0, 0, 5.0));
    REQUIRE(t.size() == 1);
    CHECK((t[0].exit_bar == 5 && t[0].reason == ec::kStopLoss));
    CHECK(t[0].exit_price == 97.5 * (1.0 - s));
  }
  SECTION("take-profit: level in [low, high] fills at the level; a gap above fills at the open") {
    Crafted c = flat();
    const double level = entry * (1.0 + 0.03);
    c.high[4] = level;  // touched exactly
    auto t = c.run(params(0, 3.0, 0, 5.0));
    REQUIRE(t.size() == 1);
    CHECK((t[0].exit_bar == 4 && t[0].reason == ec::kTakeProfit));
    CHECK(t[0].exit_price == level * (1.0 - s));
    Crafted g = flat();
    g.open[4] = g.high[4] = g.low[4] = g.close[4] = 104.0;
    t = g.run(params(0, 3.0, 0, 5.0));
    REQUIRE(t.size() == 1);
    CHECK((t[0].exit_bar == 4 && t[0].reason == ec::kTakeProfit && t[0].exit_price == 104.0 * (1.0 - s)));
  }
  SECTION("both stops on one bar: the stop-loss wins (vectorbt checks it first)") {
    Crafted c = flat();
    c.low[6] = 90.0;
    c.high[6] = 110.0;
    const auto t = c.run(params(2.0, 3.0));
    REQUIRE(t.size() == 1);
    CHECK((t[0].exit_bar == 6 && t[0].reason == ec::kStopLoss && t[0].exit_price == 98.0));
  }
  SECTION("sl_pct = tp_pct = 0: no stops") {
    Crafted c = flat();
    c.low[5] = 1.0;
    c.high[6] = 1000.0;
    const auto t = c.run(params(0, 0));
    REQUIRE(t.size() == 1);
    CHECK(t[0].reason == ec::kEnd);
  }
}

TEST_CASE("ema_cross: stops before the exit signal, a stop's bar swallows that bar's entry", "[cpu][ema_cross]") {
  SECTION("exit signal and stop on the same bar: the stop fills") {
    Crafted c(10);
    c.flat(100.0);
    c.above(1, 4);  // cross below at 5: exit signal for bar 6
    c.low[6] = 90.0;
    const auto t = c.run(params(5.0));
    REQUIRE(t.size() == 1);
    CHECK((t[0].exit_bar == 6 && t[0].reason == ec::kStopLoss && t[0].exit_price == 95.0));
  }
  SECTION("a cross above on the bar before a stop exit is lost; the next one enters") {
    Crafted c(12);
    c.flat(100.0);
    c.above(1, 11);
    c.equal(3);       // cross above at 4 (3 was not above): an entry signal for bar 5 ...
    c.low[5] = 90.0;  // ... but bar 5 exits on the stop (one order per bar)
    c.equal(7);       // cross above at 8: entry at 9
    const auto t = c.run(params(5.0));
    REQUIRE(t.size() == 2);
    CHECK((t[0].entry_bar == 2 && t[0].exit_bar == 5 && t[0].reason == ec::kStopLoss));
    CHECK((t[1].signal_bar == 8 && t[1].entry_bar == 9 && t[1].reason == ec::kEnd));
  }
  SECTION("a cross above on a signal exit bar enters at the next bar") {
    Crafted c(10);
    c.above(1, 3);  // 4 below: cross below at 4, exit at 5
    c.above(5, 9);  // cross above at 5: entry at 6
    const auto t = c.run(params());
    REQUIRE(t.size() == 2);
    CHECK((t[0].exit_bar == 5 && t[0].reason == ec::kSignal));
    CHECK((t[1].signal_bar == 5 && t[1].entry_bar == 6));
  }
}

TEST_CASE("ema_cross: fees, returns and metrics", "[cpu][ema_cross]") {
  Crafted c(16);
  c.above(2, 4);       // entry 3 (103), exit 6 (106): a win
  c.above(7, 9);       // entry 8 (108), exit 11 (111)
  c.above(12, 15);     // entry 13, end at 15 (close 115)
  c.open[11] = 100.0;  // a loss: exits at 100
  c.low[11] = 99.5;
  ec::Summary sum;
  const double f = 30.0 / 1e4;
  const auto t = c.run(params(0, 0, 30.0, 0.0), &sum);
  REQUIRE(t.size() == 3);
  const double r0 = (106.0 * (1.0 - f)) / (103.0 * (1.0 + f)) - 1.0;
  const double r1 = (100.0 * (1.0 - f)) / (108.0 * (1.0 + f)) - 1.0;
  const double r2 = 115.0 / (113.0 * (1.0 + f)) - 1.0;  // end: no exit fee
  CHECK(t[0].ret == r0);
  CHECK(t[1].ret == r1);
  CHECK(t[2].ret == r2);
  double m[ec::kNumMetrics], violation = 0.0;
  const double score = ec::finish(sum, ec::Objective::CompoundReturn, 5, m, &violation);
  CHECK(m[ec::kMTrades] == 3);
  CHECK(m[ec::kMWins] == 2);
  CHECK(m[ec::kMTotalReturn] == (r0 + r1) + r2);
  CHECK(score == ((1.0 + r0) * (1.0 + r1)) * (1.0 + r2) - 1.0);
  CHECK(m[ec::kMCompoundReturn] == score);
  CHECK(m[ec::kMProfitFactor] == (r0 + r2) / -r1);
  CHECK(m[ec::kMMaxDrawdown] == 1.0 - ((1.0 + r0) * (1.0 + r1)) / (1.0 + r0));
  CHECK(violation == 2.0);
  CHECK(ec::finish(sum, ec::Objective::TotalReturn, 0, m, &violation) == m[ec::kMTotalReturn]);
  CHECK(violation == 0.0);
}

// ---- the EMA and the CPU path ------------------------------------------------------------------

TEST_CASE("ema_cross: the EMA equals vectorbt's ewm_mean (adjust=False) bit for bit", "[cpu][ema_cross]") {
  const Candles c = io::read_candles_csv(tpeopt::testing::data_dir() + "/binance-1m/BTCUSDT_1m_2023-03.csv");
  const strategies::EmaCrossStrategy s(c, {});
  std::vector<double> mine(c.size());
  for (const int span : {1, 2, 3, 7, 10, 57, 200, 1000, 5000}) {
    CAPTURE(span);
    s.ema(span, mine.data());
    const auto ref = vectorbt_ema(c.close, span);
    std::size_t differing = 0;
    for (std::size_t i = 0; i < c.size(); ++i) differing += same_bits(mine[i], ref[i]) ? 0 : 1;
    CHECK(differing == 0);
  }
  s.ema(1, mine.data());
  CHECK(mine == c.close);  // span 1: alpha = 1
}

TEST_CASE("ema_cross: the strategy's CPU path (EMA cache, block finder) equals the plain walk", "[cpu][ema_cross]") {
  for (const char* file : {"binance-1m/BTCUSDC_1m_2023-03.csv", "backtesting-py/GOOG.csv"}) {
    CAPTURE(file);
    const Candles c = io::read_candles_csv(tpeopt::testing::data_dir() + "/" + file);
    const strategies::EmaCrossStrategy cached(c, {});
    strategies::EmaCrossOptions no_cache;
    no_cache.ema_cache_bytes = 0;
    const strategies::EmaCrossStrategy uncached(c, no_cache);
    const auto sets = random_sets(200, 300, 31);
    std::vector<double> fast(c.size()), slow(c.size());
    std::size_t differing = 0, total = 0;
    for (std::size_t i = 0; i < 200; ++i) {
      const double* p = &sets[i * ec::kNumSlots];
      const ec::Params q = ec::unpack_params(p);
      cached.ema(q.ema_fast, fast.data());
      cached.ema(q.ema_slow, slow.data());
      std::vector<ec::Trade> plain;
      ec::run_backtest(cached.host_bars(), q, ec::TrialSeries{fast.data(), slow.data()}, ec::SequentialFinder{},
                       [&](const ec::Trade& t) { plain.push_back(t); });
      for (const auto* s : {&cached, &uncached}) {
        const auto got = s->trades(p);
        bool same = got.size() == plain.size();
        for (std::size_t k = 0; same && k < got.size(); ++k)
          same = got[k].signal_bar == plain[k].signal_bar && got[k].entry_bar == plain[k].entry_bar &&
                 got[k].exit_bar == plain[k].exit_bar && got[k].reason == plain[k].reason &&
                 same_bits(got[k].entry_price, plain[k].entry_price) &&
                 same_bits(got[k].exit_price, plain[k].exit_price) && same_bits(got[k].ret, plain[k].ret);
        std::vector<double> m1(ec::kNumMetrics), m2(ec::kNumMetrics);
        const auto a = s->evaluate(p, m1.data());
        const auto b = cached.evaluate(p, m2.data());
        same = same && same_bits(a.score, b.score) && m1 == m2;
        differing += same ? 0 : 1;
      }
      total += plain.size();
    }
    CHECK(differing == 0);
    CHECK(total > 500);
  }
}

// ---- vectorbt on the real data ---------------------------------------------------------------

TEST_CASE("ema_cross: trades equal vectorbt's on the real data (300 random parameter sets)",
          "[cpu][ema_cross][peers]") {
  // Fixture: bench/peers/peers.py fixture (vectorbt 1.2.0, numba engine): per set the
  // order-record fills, bars and open flag of every trade and Portfolio.total_return.
  std::ifstream in(tpeopt::testing::source_dir() + "/tests/strategies/fixtures/ema_cross_vectorbt.txt");
  REQUIRE(in.good());
  std::unique_ptr<strategies::EmaCrossStrategy> s;
  std::string line, file;
  std::size_t sets = 0, trades = 0, bit_identical = 0, differing_sets = 0;
  std::map<std::string, std::size_t> sets_per_file;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ss(line);
    std::string kind;
    ss >> kind;
    if (kind == "data") {
      std::size_t bars = 0;
      ss >> file >> bars;
      s = std::make_unique<strategies::EmaCrossStrategy>(io::read_candles_csv(tpeopt::testing::data_dir() + "/" + file),
                                                         strategies::EmaCrossOptions{});
      REQUIRE(static_cast<std::size_t>(s->n_bars()) == bars);
      continue;
    }
    REQUIRE(kind == "set");
    REQUIRE(s);
    std::vector<double> p(ec::kNumSlots);
    std::size_t n = 0;
    double vbt_total_return = 0.0;
    for (double& v : p) ss >> v;
    ss >> n >> vbt_total_return;
    ec::Summary summary;
    const auto ours = s->trades(p.data(), &summary);
    bool same = ours.size() == n;
    std::string first_difference;
    for (std::size_t k = 0; k < n; ++k) {
      REQUIRE(std::getline(in, line));
      std::istringstream ts(line);
      int entry = 0, exit = 0, open = 0;
      double entry_fill = 0.0, exit_fill = 0.0;
      ts >> entry >> exit >> open >> entry_fill >> exit_fill;
      REQUIRE(!ts.fail());
      if (!same || k >= ours.size()) continue;
      const auto& t = ours[k];
      same = t.entry_bar == entry && t.exit_bar == exit && (t.reason == ec::kEnd) == (open == 1) &&
             rel_close(t.entry_price, entry_fill) && rel_close(t.exit_price, exit_fill);
      bit_identical += same_bits(t.entry_price, entry_fill) + same_bits(t.exit_price, exit_fill);
      if (!same)
        first_difference = "trade " + std::to_string(k) + ": tpeopt bars " + std::to_string(t.entry_bar) + ".." +
                           std::to_string(t.exit_bar) + ", vectorbt " + std::to_string(entry) + ".." +
                           std::to_string(exit);
    }
    // vectorbt's Portfolio.total_return (the fully invested account) = tpeopt's compound
    // return, within 1e-9 of the account's initial or final value (whichever is larger).
    const double r = ec::compound_return(summary);
    same = same && std::fabs(r - vbt_total_return) <=
                       1e-9 * std::max({1.0, std::fabs(1.0 + r), std::fabs(1.0 + vbt_total_return)});
    if (!same && differing_sets++ < 3)
      UNSCOPED_INFO(file << " set " << p[0] << "," << p[1] << "," << p[2] << "," << p[3] << "," << p[4] << "," << p[5]
                         << ": tpeopt " << ours.size() << " trades, vectorbt " << n << " " << first_difference);
    ++sets;
    ++sets_per_file[file];
    trades += n;
  }
  CHECK(differing_sets == 0);
  CHECK(sets == 300);
  CHECK(sets_per_file.size() == 6);
  CHECK(trades > 10000);
  CHECK(bit_identical == 2 * trades);  // the fills are the same IEEE operations as vectorbt's
}

// ---- configuration -------------------------------------------------------------------------------

TEST_CASE("ema_cross: the example config builds the strategy, bad values name the key", "[cpu][ema_cross][config]") {
  const auto config = io::load_study_config(tpeopt::testing::source_dir() + "/examples/ema_cross_btc.json");
  CHECK(config.strategy == "ema_cross");
  auto strategy = engine::make_strategy(config);
  REQUIRE(strategy->name() == "ema_cross");
  engine::CpuExecutor cpu(*strategy, engine::ParamBinding(*strategy, config.space, config.fixed), 2);
  engine::BatchRequest r;
  r.n_trials = 64;
  r.n_axes = config.space.size();
  r.values.resize(r.n_trials * r.n_axes);
  engine::make_sampler(config)->ask(0, r.n_trials, r.values.data());
  const auto res = cpu.evaluate(r);
  std::size_t with_trades = 0;
  for (std::size_t i = 0; i < r.n_trials; ++i) with_trades += res.metrics[i * res.n_metrics + ec::kMTrades] > 0;
  CHECK(with_trades == r.n_trials);

  CHECK_THROWS_WITH(strategies::parse_ema_cross_objective("mean_r"), Catch::Contains("objective.name"));
  CHECK_THROWS_WITH(strategy->check_param_range(ec::kEmaFast, 0.0, 10.0), Catch::Contains("params.ema_fast"));
  CHECK_THROWS_WITH(strategy->check_param_range(ec::kSlPct, 1.0, 100.0), Catch::Contains("params.sl_pct"));
  CHECK_NOTHROW(strategy->check_param_range(ec::kTpPct, 0.0, 50.0));
}
