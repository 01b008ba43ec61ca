// Data subsets (docs/strategies.md, "Data subsets") at the strategy level: trade_filter day slices add up to
// the full score exactly; an exhaustion block is a backtest of that block alone over the
// full series' indicators.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <vector>

#include <boost/random/uniform_real_distribution.hpp>

#include "io/candles_generator.hpp"
#include "strategies/exhaustion/exhaustion.hpp"
#include "strategies/exhaustion/exhaustion_strategy.hpp"
#include "strategies/trade_filter/trade_filter.hpp"
#include "strategies/trade_filter/trade_filter_cache.hpp"
#include "strategies/trade_filter/trade_filter_strategy.hpp"
#include "support/bits.hpp"
#include "support/trade_filter_fixture.hpp"
#include "tpe/trial_rng.hpp"

using namespace tpeopt;
namespace ex = strategies::exhaustion;
namespace tf = strategies::trade_filter;

namespace {

using tpeopt::testing::same_bits;

/// Trial parameters spread over the generator's metric ranges (see trade_filter_fixture.cpp).
std::vector<double> trade_filter_params(std::uint64_t seed, std::uint64_t k) {
  auto rng = tpe::make_trial_engine(seed, k);
  auto u = [&](double lo, double hi) { return boost::random::uniform_real_distribution<double>(lo, hi)(rng); };
  return {u(0, 0.5), u(0, 0.8), u(0, 25), u(0, 25), u(0, 25), u(0.2, 3.0), -u(0.2, 3.0)};
}

strategies::TradeFilterStrategy trade_filter_strategy(int days, std::uint64_t trades, std::int64_t min_trades = 1) {
  const auto cache = testing::trade_filter_cache(days, trades, 5);
  return strategies::TradeFilterStrategy(std::make_shared<const strategies::TradeFilterData>(
                                             io::read_trade_filter_cache(cache)),
                                         min_trades);
}

/// The exact fixed-point sum behind a trade_filter score (checked to round-trip).
std::int64_t score_q(double score) {
  const std::int64_t q = tf::fixed_point(score);
  REQUIRE(same_bits(tf::from_fixed_point(q), score));
  return q;
}

}  // namespace

TEST_CASE("trade_filter: the day-slice scores add up to the full score exactly", "[cpu][subsets][trade_filter]") {
  const auto full = trade_filter_strategy(7, 600);
  const std::size_t n_days = full.n_atoms();
  REQUIRE(n_days == full.days().size());
  REQUIRE(n_days >= 5);
  std::vector<std::unique_ptr<strategies::Strategy>> day;
  std::size_t trades = 0;
  for (std::size_t k = 0; k < n_days; ++k) {
    day.push_back(full.subset({{k, k + 1}}, 1));
    const auto& d = dynamic_cast<const strategies::TradeFilterStrategy&>(*day.back());
    REQUIRE(d.n_atoms() == 1);
    REQUIRE(d.days().front() == full.days()[k]);
    REQUIRE(d.data().n_trades() > 0);
    trades += d.data().n_trades();
  }
  REQUIRE(trades == full.data().n_trades());  // every trade in exactly one day

  int some_kept = 0;
  for (std::uint64_t t = 0; t < 40; ++t) {
    CAPTURE(t);
    const auto p = trade_filter_params(11, t);
    double m_full[3], m_day[3];
    const auto s_full = full.evaluate(p.data(), m_full);
    std::int64_t q_sum = 0;
    double kept = 0, wins = 0, losses = 0;
    for (const auto& d : day) {
      const auto s = d->evaluate(p.data(), m_day);
      q_sum += score_q(s.score);
      kept += m_day[0];
      wins += m_day[1];
      losses += m_day[2];
    }
    REQUIRE(q_sum == score_q(s_full.score));
    REQUIRE(same_bits(tf::from_fixed_point(q_sum), s_full.score));
    REQUIRE(kept == m_full[0]);
    REQUIRE(wins == m_full[1]);
    REQUIRE(losses == m_full[2]);
    some_kept += m_full[0] > 0 ? 1 : 0;
  }
  REQUIRE(some_kept > 10);  // the parameters keep trades: the sums are not all zero
}

TEST_CASE("trade_filter: a subset of all days, and disjoint day sets, score like the data they cover",
          "[cpu][subsets][trade_filter]") {
  const auto full = trade_filter_strategy(6, 500);
  const std::size_t n = full.n_atoms();
  const auto all = full.subset({{0, n}}, 1);
  const std::size_t cut = GENERATE(1u, 2u, 4u);
  CAPTURE(cut);
  const auto first = full.subset({{0, cut}}, 1);
  const auto rest = full.subset({{cut, n}}, 1);
  // Non-contiguous ranges: odd days and even days.
  std::vector<strategies::AtomRange> odd, even;
  for (std::size_t k = 0; k < n; ++k) (k % 2 ? odd : even).push_back({k, k + 1});
  const auto s_odd = full.subset(odd, 1), s_even = full.subset(even, 1);
  for (std::uint64_t t = 0; t < 20; ++t) {
    CAPTURE(t);
    const auto p = trade_filter_params(3, t);
    double m[3];
    const double s_full = full.evaluate(p.data(), m).score;
    REQUIRE(same_bits(all->evaluate(p.data(), m).score, s_full));
    REQUIRE(score_q(first->evaluate(p.data(), m).score) + score_q(rest->evaluate(p.data(), m).score) ==
            score_q(s_full));
    REQUIRE(score_q(s_odd->evaluate(p.data(), m).score) + score_q(s_even->evaluate(p.data(), m).score) ==
            score_q(s_full));
  }
  // No day at all: no trade kept, infeasible by min_trades.
  const auto none = full.subset({}, 3);
  double m[3];
  const auto s = none->evaluate(trade_filter_params(3, 0).data(), m);
  REQUIRE(s.score == 0.0);
  REQUIRE(s.violation == 3.0);
}

namespace {

Candles generated_candles(int bars, std::uint64_t seed) {
  io::CandleSetGeneratorOptions o;
  o.symbols = 1;
  o.bars = bars;
  o.seed = seed;
  return io::generate_candle_set(o).symbol(0);
}

// ema_fast, ema_slow, z_window, atr_window, vol_z, tr_z, cloc_min, atr_stop_mult, reward_r, max_hold, fee, slip
std::vector<double> loose_params(double max_hold, double reward) {
  return {5, 20, 10, 7, 0.0, 0.0, 0.3, 1.5, reward, max_hold, 2.0, 1.0};
}

/// The reference: the block [begin, end) walked on its own from the HD pieces, with the
/// full series' indicators: flat at `begin`, signals at begin .. end-2, a position's last
/// bar capped at end - 1 (closed there at the close when still open).
std::vector<ex::Trade> block_reference(const strategies::ExhaustionStrategy& s, const std::vector<double>& v, int begin,
                                       int end) {
  const ex::Params p = ex::unpack_params(v.data());
  const int n = s.n_bars();
  std::vector<double> ef(n), es(n), vz(n), tz(n);
  s.ema(p.ema_fast, ef.data());
  s.ema(p.ema_slow, es.data());
  s.volume_z(p.z_window, vz.data());
  s.tr_z(p.z_window, tz.data());
  const ex::TrialSeries t{ef.data(), es.data(), vz.data(), tz.data()};
  const ex::Bars b = s.host_bars();  // the full series
  std::vector<ex::Trade> out;
  int i = begin;
  while (i <= end - 2) {
    if (!ex::is_signal(b, p, t, i)) {
      ++i;
      continue;
    }
    ex::Position pos;
    pos.signal_bar = i;
    pos.entry_bar = i + 1;
    pos.entry = b.open[i + 1] * (1.0 + p.slip);
    pos.stop = b.low[i] - p.atr_stop_mult * ex::rolling_mean(b.s_tr, i, p.atr_window);
    pos.risk = pos.entry - pos.stop;
    if (!(pos.risk > 0.0)) {
      ++i;
      continue;
    }
    pos.target = pos.entry + p.reward_r * pos.risk;
    pos.last_bar = std::min(pos.entry_bar + p.max_hold - 1, end - 1);
    int j = pos.entry_bar;
    while (ex::exit_reason(b, pos, j) == ex::kNoExit) ++j;
    out.push_back(ex::close_position(b, p, pos, j, ex::exit_reason(b, pos, j)));
    i = j;
  }
  return out;
}

void require_same_trades(const std::vector<ex::Trade>& a, const std::vector<ex::Trade>& b) {
  REQUIRE(a.size() == b.size());
  for (std::size_t k = 0; k < a.size(); ++k) {
    CAPTURE(k);
    REQUIRE(a[k].signal_bar == b[k].signal_bar);
    REQUIRE(a[k].entry_bar == b[k].entry_bar);
    REQUIRE(a[k].exit_bar == b[k].exit_bar);
    REQUIRE(a[k].reason == b[k].reason);
    REQUIRE(same_bits(a[k].entry_price, b[k].entry_price));
    REQUIRE(same_bits(a[k].exit_price, b[k].exit_price));
    REQUIRE(same_bits(a[k].ret, b[k].ret));
  }
}

}  // namespace

TEST_CASE("exhaustion: a block's trades equal a backtest of that block alone given the full series' indicators",
          "[cpu][subsets][exhaustion]") {
  const strategies::ExhaustionStrategy full(generated_candles(1200, 21), {});
  const double max_hold = GENERATE(3.0, 40.0, 400.0);
  const auto v = loose_params(max_hold, 3.0);
  const auto all_trades = full.trades(v.data());
  REQUIRE(all_trades.size() >= 5);
  int cut_open = 0, closed_at_end = 0;
  // Blocks: inside the warm-up, 1-bar and 2-bar blocks, one ending at the last bar, and cuts
  // that fall inside trades of the unblocked walk.
  std::vector<strategies::BarBlock> blocks = {{0, 1200}, {0, 10}, {5, 6}, {500, 502}, {1100, 1200}, {37, 611}};
  for (const auto& t : all_trades)
    if (t.exit_bar > t.entry_bar + 1 && blocks.size() < 24)
      blocks.push_back({t.entry_bar + 1, std::min(t.exit_bar + 30, 1200)});
  // A block from bar 0 that ends inside a trade of the whole-series walk: the same trade
  // opens (same history), and is closed at the block's last bar at the close.
  for (const auto& t : all_trades)
    if (t.exit_bar > t.entry_bar) {
      blocks.push_back({0, t.exit_bar});
      break;
    }
  for (const auto& blk : blocks) {
    CAPTURE(max_hold, blk.begin, blk.end);
    const auto blocked = full.with_blocks({blk}, 0);
    const auto got = blocked->trades(v.data());
    const auto ref = block_reference(full, v, blk.begin, blk.end);
    require_same_trades(got, ref);
    for (const auto& t : got) {
      REQUIRE(t.signal_bar >= blk.begin);
      REQUIRE(t.exit_bar <= blk.end - 1);
      if (t.exit_bar == blk.end - 1 && t.reason == ex::kTime) ++closed_at_end;
    }
    for (const auto& t : all_trades) cut_open += t.entry_bar < blk.begin && t.exit_bar >= blk.begin ? 1 : 0;
  }
  // The cases the rule is about happened: blocks starting inside a trade of the whole-series
  // walk (which starts flat instead), and positions closed at a block's last bar.
  REQUIRE(cut_open > 0);
  REQUIRE(closed_at_end > 0);
}

TEST_CASE("exhaustion: one block over the whole series is the unblocked backtest bit for bit",
          "[cpu][subsets][exhaustion]") {
  const strategies::ExhaustionStrategy full(generated_candles(800, 4), {});
  const auto whole = full.with_blocks({{0, 800}}, full.options().min_trades);
  const auto sub = full.subset({{0, 800}}, full.options().min_trades);
  for (double hold : {2.0, 25.0, 1000.0}) {
    const auto v = loose_params(hold, 2.0);
    std::vector<double> m1(ex::kNumMetrics), m2(ex::kNumMetrics), m3(ex::kNumMetrics);
    const auto a = full.evaluate(v.data(), m1.data());
    const auto b = whole->evaluate(v.data(), m2.data());
    const auto c = sub->evaluate(v.data(), m3.data());
    REQUIRE(same_bits(a.score, b.score));
    REQUIRE(same_bits(a.score, c.score));
    REQUIRE(same_bits(a.violation, b.violation));
    REQUIRE(same_bits(a.violation, c.violation));
    for (int k = 0; k < ex::kNumMetrics; ++k) {
      REQUIRE(same_bits(m1[k], m2[k]));
      REQUIRE(same_bits(m1[k], m3[k]));
    }
  }
}

TEST_CASE("exhaustion: a blocked score is the sum of its blocks' scores", "[cpu][subsets][exhaustion]") {
  const strategies::ExhaustionStrategy full(generated_candles(900, 8), {});
  const std::vector<strategies::BarBlock> blocks = {{0, 300}, {300, 600}, {600, 900}};
  const auto objective = GENERATE(ex::Objective::TotalReturn, ex::Objective::Sharpe);
  strategies::ExhaustionOptions o;
  o.objective = objective;
  const strategies::ExhaustionStrategy f(full.candles(), o);
  const auto all = f.with_blocks(blocks, 5);
  const auto v = loose_params(30, 2.5);
  std::vector<double> m(ex::kNumMetrics), mb(ex::kNumMetrics);
  const auto s = all->evaluate(v.data(), m.data());
  double sum = 0.0, trades = 0.0;
  std::vector<ex::Trade> concatenated;
  for (const auto& b : blocks) {
    const auto one = f.with_blocks({b}, 0);
    sum = sum + one->evaluate(v.data(), mb.data()).score;
    trades += mb[ex::kMTrades];
    const auto t = one->trades(v.data());
    concatenated.insert(concatenated.end(), t.begin(), t.end());
  }
  REQUIRE(trades > 0);
  REQUIRE(same_bits(s.score, sum));
  REQUIRE(m[ex::kMTrades] == trades);
  // The metrics are those of all blocks' trades together, in block order.
  require_same_trades(all->trades(v.data()), concatenated);
  REQUIRE(s.violation == std::max(0.0, 5.0 - trades));
}
