// The exhaustion trade walk on crafted bars, where every trade is checked by hand:
// signals inside an open trade, re-entry on the exit bar, risk <= 0, gap, stop, target,
// time and end-of-data exits, fees and slippage, each objective, min_trades.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "strategies/exhaustion/exhaustion.hpp"
#include "strategies/exhaustion/exhaustion_strategy.hpp"

using namespace tpeopt;
namespace ex = strategies::exhaustion;

namespace {

/// Flat bars at 100 with TR = 1 (so ATR = 1 for any window) and signals exactly where
/// `signals` says: the trial series are crafted (vol_z = 5 at a signal, NaN elsewhere).
struct Crafted {
  int n;
  std::vector<double> open, high, low, close, cloc, s_tr, ema_fast, ema_slow, vol_z, tr_z;
  explicit Crafted(int bars) : n(bars) {
    for (auto* v : {&open, &high, &low, &close}) v->assign(n, 100.0);
    cloc.assign(n, 1.0);
    s_tr.resize(n + 1);
    for (int i = 0; i <= n; ++i) s_tr[i] = i;  // TR_i = 1
    ema_fast.assign(n, 0.0);
    ema_slow.assign(n, 1.0);
    vol_z.assign(n, NAN);
    tr_z.assign(n, 5.0);
  }
  void signal_at(int i) { vol_z[i] = 5.0; }
  std::vector<ex::Trade> run(const std::vector<double>& v) const {
    ex::Bars b;
    b.n = n;
    b.open = open.data();
    b.high = high.data();
    b.low = low.data();
    b.close = close.data();
    b.cloc = cloc.data();
    b.s_tr = s_tr.data();
    const ex::TrialSeries t{ema_fast.data(), ema_slow.data(), vol_z.data(), tr_z.data()};
    std::vector<ex::Trade> out;
    ex::run_backtest(b, ex::unpack_params(v.data()), t, ex::SequentialFinder{},
                     [&](const ex::Trade& tr) { out.push_back(tr); });
    return out;
  }
};

// ema_fast, ema_slow, z_window, atr_window, vol_z, tr_z, cloc_min, atr_stop_mult, reward_r, max_hold, fee, slip
std::vector<double> params(double max_hold, double reward = 10.0, double fee = 0.0, double slip = 0.0) {
  return {1, 2, 2, 1, 1.0, 1.0, 0.5, 1.0, reward, max_hold, fee, slip};
}

}  // namespace

TEST_CASE("exhaustion: one position at a time, a signal on the exit bar re-enters", "[cpu][exhaustion]") {
  Crafted c(12);
  for (int i : {1, 2, 3, 5, 6, 10}) c.signal_at(i);
  // Signal 1: entry bar 2 at open 100, stop 100 - 1 * ATR = 99, target 110, last = 2 + 4 - 1 = 5:
  // flat bars never reach stop or target, so it exits at bar 5's close (time). Signals 2, 3
  // fall inside the open trade and are ignored; the scan resumes at 5, where a signal enters
  // at 6 and exits at 9. Then signal at 10 (not 6: it was inside) enters at 11 = the last
  // bar and exits there at the close (end of data).
  const auto t = c.run(params(4));
  REQUIRE(t.size() == 3);
  CHECK((t[0].signal_bar == 1 && t[0].entry_bar == 2 && t[0].exit_bar == 5 && t[0].reason == ex::kTime));
  CHECK((t[1].signal_bar == 5 && t[1].entry_bar == 6 && t[1].exit_bar == 9 && t[1].reason == ex::kTime));
  CHECK((t[2].signal_bar == 10 && t[2].entry_bar == 11 && t[2].exit_bar == 11 && t[2].reason == ex::kTime));
  for (const auto& x : t) {
    CHECK(x.entry_price == 100.0);
    CHECK(x.exit_price == 100.0);
    CHECK(x.ret == 0.0);
    CHECK(x.r_multiple == 0.0);
  }
  // A signal on the last bar cannot enter (no next bar).
  Crafted d(6);
  d.signal_at(5);
  CHECK(d.run(params(4)).empty());
  // Warm-up: first_valid = max(atr_window, z_window) - 1 = 1 here, so a signal at 0 is ignored.
  Crafted w(6);
  w.signal_at(0);
  CHECK(w.run(params(4)).empty());
}

TEST_CASE("exhaustion: risk <= 0 skips the signal and scans on at i + 1", "[cpu][exhaustion]") {
  Crafted c(10);
  c.signal_at(1);
  c.signal_at(2);
  // Bar 2 opens at 98 below signal bar 1's stop (low 100 - ATR 1 = 99): risk = 98 - 99 < 0.
  c.open[2] = 98.0;
  c.low[2] = 98.0;
  c.close[2] = 98.0;
  // Signal 2: stop = low 98 - 1 = 97, entry open_3 = 100, risk 3, target 100 + 10 * 3 = 130.
  const auto t = c.run(params(3));
  REQUIRE(t.size() == 1);
  CHECK(t[0].signal_bar == 2);
  CHECK(t[0].entry_bar == 3);
  CHECK(t[0].exit_bar == 5);
}

TEST_CASE("exhaustion: gap, stop and target exits with fees and slippage", "[cpu][exhaustion]") {
  SECTION("gap: a later bar opens at or below the stop: exit at that open") {
    Crafted c(10);
    c.signal_at(1);  // entry 2 at 100, stop 99
    c.open[4] = 98.5;
    c.low[4] = 98.0;
    c.close[4] = 99.0;
    const auto t = c.run(params(6));
    REQUIRE(t.size() == 1);
    CHECK(t[0].exit_bar == 4);
    CHECK(t[0].reason == ex::kGap);
    CHECK(t[0].exit_price == 98.5);
    CHECK(t[0].r_multiple == -1.5);  // (98.5 - 100) / 1
  }
  SECTION("stop: the low touches the stop (on the entry bar an open below the stop is no gap)") {
    Crafted c(10);
    c.signal_at(1);
    c.open[2] = 100.0;
    c.low[2] = 98.0;  // entry bar: low 98 <= stop 99
    const auto t = c.run(params(6));
    REQUIRE(t.size() == 1);
    CHECK(t[0].exit_bar == 2);
    CHECK(t[0].reason == ex::kStop);
    CHECK(t[0].exit_price == 99.0);
  }
  SECTION("stop before target on the same bar") {
    Crafted c(10);
    c.signal_at(1);
    c.low[3] = 98.0;
    c.high[3] = 200.0;
    const auto t = c.run(params(6, 2.0));
    REQUIRE(t.size() == 1);
    CHECK(t[0].reason == ex::kStop);
  }
  SECTION("target, with 10 bp fees and 20 bp slippage, checked by hand") {
    Crafted c(10);
    c.signal_at(1);
    c.high[4] = 103.0;
    // s = 0.002, f = 0.001. entry = 100 * 1.002 = 100.2; stop = 99; risk = 1.2 (as doubles:
    // 100.2 - 99); target = entry + 2 * risk = 102.6 (< 103): exit at bar 4 at target,
    // fill = target * 0.998; return = fill * 0.999 / (entry * 1.001) - 1.
    const auto t = c.run(params(6, 2.0, 10.0, 20.0));
    REQUIRE(t.size() == 1);
    const double entry = 100.0 * (1.0 + 0.002);
    const double risk = entry - 99.0;
    const double fill = (entry + 2.0 * risk) * (1.0 - 0.002);
    CHECK(t[0].exit_bar == 4);
    CHECK(t[0].reason == ex::kTarget);
    CHECK(t[0].entry_price == entry);
    CHECK(t[0].exit_price == fill);
    CHECK(t[0].ret == (fill * (1.0 - 0.001)) / (entry * (1.0 + 0.001)) - 1.0);
    CHECK(t[0].r_multiple == (fill - entry) / risk);
    CHECK(t[0].ret == Approx(102.6 * 0.998 * 0.999 / (100.2 * 1.001) - 1.0));
  }
}

TEST_CASE("exhaustion: objectives and min_trades", "[cpu][exhaustion]") {
  ex::Summary s;
  const double rets[] = {0.02, -0.01, 0.03, -0.005};
  const double rs[] = {2.0, -1.0, 3.0, -0.5};
  for (int k = 0; k < 4; ++k) {
    ex::Trade t;
    t.ret = rets[k];
    t.r_multiple = rs[k];
    ex::add_trade(s, t);
  }
  const double total = ((0.02 + -0.01) + 0.03) + -0.005;
  const double mean = total / 4;
  double var = 0;
  for (double r : rets) var += (r - mean) * (r - mean);
  var /= 4;
  double m[ex::kNumMetrics], violation = -1;
  CHECK(ex::finish(s, ex::Objective::TotalReturn, 10, m, &violation) == total);
  CHECK(violation == 6.0);
  CHECK(ex::finish(s, ex::Objective::MeanR, 4, m, &violation) == 3.5 / 4);
  CHECK(violation == 0.0);
  CHECK(ex::finish(s, ex::Objective::Sharpe, 4, m, &violation) == Approx(mean / std::sqrt(var) * 2.0).epsilon(1e-12));
  CHECK(ex::finish(s, ex::Objective::ProfitFactor, 4, m, &violation) == Approx(0.05 / 0.015).epsilon(1e-12));
  CHECK(m[ex::kMTrades] == 4);
  CHECK(m[ex::kMWins] == 2);
  CHECK(m[ex::kMMaxDrawdown] == Approx(0.01).epsilon(1e-9));
  ex::Summary none;
  CHECK(ex::finish(none, ex::Objective::Sharpe, 10, m, &violation) == 0.0);
  CHECK(violation == 10.0);
  CHECK(ex::finish(none, ex::Objective::ProfitFactor, 0, m, &violation) == 0.0);
  CHECK(strategies::parse_exhaustion_objective("sharpe") == ex::Objective::Sharpe);
  CHECK_THROWS_WITH(strategies::parse_exhaustion_objective("pnl"), Catch::Contains("objective.name"));
}

TEST_CASE("exhaustion: parameter ranges are checked with the parameter's name", "[cpu][exhaustion]") {
  Candles c;
  for (int i = 0; i < 5; ++i) {
    c.time_ms.push_back(i);
    for (auto* v : {&c.open, &c.high, &c.low, &c.close}) v->push_back(100);
    c.volume.push_back(1);
  }
  const strategies::ExhaustionStrategy s(c, {});
  CHECK_THROWS_WITH(s.check_param_range(ex::kZWindow, 1, 10), Catch::Contains("params.z_window"));
  CHECK_THROWS_WITH(s.check_param_range(ex::kEmaFast, 0, 10), Catch::Contains("params.ema_fast"));
  CHECK_THROWS_WITH(s.check_param_range(ex::kClocMin, 0, 1.5), Catch::Contains("params.cloc_min"));
  CHECK_THROWS_WITH(s.check_param_range(ex::kRewardR, 0, 1), Catch::Contains("params.reward_r"));
  CHECK_THROWS_WITH(s.check_param_range(ex::kFeeBp, -1, 1), Catch::Contains("params.fee_bp"));
  CHECK_NOTHROW(s.check_param_range(ex::kVolZ, -5, 5));
}
