// The Sharpe ratio every strategy reports (strategies/trade_stats.hpp, shared with the CUDA
// kernels): constant returns, up to the rounding of their computation, have a Sharpe ratio
// of 0, not the +-1e11..1e15 that dividing by a rounding residue gives.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "strategies/atc/atc.hpp"
#include "strategies/trade_stats.hpp"

using namespace tpeopt::strategies;

namespace {

ReturnStats stats_of(const std::vector<double>& returns) {
  ReturnStats s;
  for (double r : returns) add_return(s, r);
  return s;
}

/// The ratio with any m2 > 0 as a spread: what the minimum variance guards against.
double undefended_sharpe(const ReturnStats& s) {
  if (s.trades == 0 || !(s.m2 > 0.0)) return 0.0;
  const double n = static_cast<double>(s.trades);
  return (s.total_return / n) / std::sqrt(s.m2 / n) * std::sqrt(n);
}

}  // namespace

TEST_CASE("Sharpe: returns equal but for rounding have a Sharpe ratio of 0", "[cpu][strategies][first-hour]") {
  // Four stop-loss exits of ema_cross on data/backtesting-py/EURUSD.csv (sl_pct 0.001): each
  // -1e-5, as computed from its own prices.
  const ReturnStats stops =
      stats_of({-9.99999999995449e-06, -1.0000000000065512e-05, -9.999999999843467e-06, -9.99999999995449e-06});
  REQUIRE(stops.m2 > 0.0);                            // a rounding residue, not a spread
  CHECK(std::fabs(undefended_sharpe(stops)) > 1e10);  // what dividing by it gives
  CHECK(sharpe(stops) == 0.0);
  // Exactly equal returns, no trades.
  CHECK(sharpe(stats_of({0.0027292180820341905, 0.0027292180820341905})) == 0.0);
  CHECK(sharpe(ReturnStats{}) == 0.0);
  // The threshold: a standard deviation of 1e-5 of the mean; below it none, above it the ratio.
  const double limit = kSharpeMinRelativeVariance * (0.01 * 0.01);
  CHECK(sharpe_ratio(0.01, limit, 4.0) == 0.0);
  CHECK(sharpe_ratio(0.01, 4.0 * limit, 4.0) == 0.01 / std::sqrt(4.0 * limit) * 2.0);
  CHECK(sharpe_ratio(-0.01, 4.0 * limit, 4.0) == -0.01 / std::sqrt(4.0 * limit) * 2.0);
  CHECK(sharpe_ratio(0.01, NAN, 4.0) == 0.0);
  CHECK(sharpe_ratio(0.0, 1e-30, 4.0) == 0.0);
}

TEST_CASE("Sharpe: returns with a spread keep the ratio, bit for bit as before", "[cpu][strategies][first-hour]") {
  const std::vector<double> returns = {0.012, -0.004, 0.0031, -0.0105, 0.02, 0.0002};
  const ReturnStats s = stats_of(returns);
  CHECK(sharpe(s) == undefended_sharpe(s));
  CHECK(sharpe(s) != 0.0);
  // Two trades a hundredth of a basis point apart (a tenth of a thousandth of their mean).
  const ReturnStats close = stats_of({0.001, 0.0010001});
  CHECK(sharpe(close) == undefended_sharpe(close));
  CHECK(sharpe(close) > 1000.0);
}

TEST_CASE("Sharpe: atc's per-bar ratio follows the same definition", "[cpu][strategies][first-hour]") {
  atc::TradeState s;
  s.bars = 3;
  // Three bars of the same return: sum of squares minus the squared mean leaves a residue.
  const double r = 0.0018447362809681143;
  s.total = (r + r) + r;
  s.sumsq = (r * r + r * r) + r * r;
  const double n = 3.0, mean = s.total / n, var = s.sumsq / n - mean * mean;
  CAPTURE(var);
  REQUIRE(var > 0.0);  // a residue, which a rule of var > 0 would divide by
  REQUIRE(var <= kSharpeMinRelativeVariance * mean * mean);
  double metrics[atc::kNumMetrics];
  double equity = 0.0;
  atc::finish_symbol(s, atc::Objective::Sharpe, metrics, &equity);
  CHECK(metrics[atc::kMSharpe] == 0.0);
}

namespace {

/// A trade for the fold tests: entry bar and return.
struct FoldTrade {
  int bar;
  double ret;
};

bool same_stats(const tpeopt::strategies::ReturnStats& a, const tpeopt::strategies::ReturnStats& b) {
  return a.trades == b.trades && a.wins == b.wins && a.total_return == b.total_return && a.mean == b.mean &&
         a.m2 == b.m2 && a.gross_win == b.gross_win && a.gross_loss == b.gross_loss && a.equity == b.equity &&
         a.peak == b.peak && a.max_drawdown == b.max_drawdown;
}

/// Fold statistics of `trades` added directly (add_fold_trade on the storage) and by
/// `add_all(storage)`; returns whether the two storages are equal bit for bit.
template <typename AddAll>
bool storage_equals_direct(const std::vector<FoldTrade>& trades, const tpeopt::strategies::FoldBars& bars,
                           AddAll&& add_all) {
  using namespace tpeopt::strategies;
  FoldSummaries<ReturnStats> direct, other;
  reset_folds(direct.view(), bars.n);
  reset_folds(other.view(), bars.n);
  for (const FoldTrade& t : trades)
    add_fold_trade(direct.view(), bars, t.bar, t.ret, [&](ReturnStats& s) { add_return(s, t.ret); });
  add_all(other.view());
  for (int k = 0; k < bars.n; ++k)
    if (!same_stats(direct.fold[k], other.fold[k]) || direct.sumsq[k] != other.sumsq[k]) return false;
  return true;
}

/// storage_equals_direct through a cursor.
bool cursor_equals_direct(const std::vector<FoldTrade>& trades, const tpeopt::strategies::FoldBars& bars) {
  using namespace tpeopt::strategies;
  return storage_equals_direct(trades, bars, [&](FoldView<ReturnStats> f) {
    FoldCursor<ReturnStats> c;
    start_folds(c);
    for (const FoldTrade& t : trades)
      add_fold_trade(c, f, bars, t.bar, t.ret, [&](ReturnStats& s) { add_return(s, t.ret); });
    flush_fold(c, f);
  });
}

/// storage_equals_direct through a FoldRange.
bool range_equals_direct(const std::vector<FoldTrade>& trades, const tpeopt::strategies::FoldBars& bars) {
  using namespace tpeopt::strategies;
  return storage_equals_direct(trades, bars, [&](FoldView<ReturnStats> f) {
    FoldRange r;
    for (const FoldTrade& t : trades)
      add_fold_trade(r, f, bars, t.bar, t.ret, [&](ReturnStats& s) { add_return(s, t.ret); });
  });
}

/// storage_equals_direct through add_lane_trade, as a warp's lanes 0, 1 and 2 run it (one
/// after another here), each with its own accumulator and cursor; also checks that lane 0's
/// accumulator is the whole span's summary and lane 2's stays empty.
bool lanes_equal_direct(const std::vector<FoldTrade>& trades, const tpeopt::strategies::FoldBars& bars) {
  using namespace tpeopt::strategies;
  ReturnStats whole;
  for (const FoldTrade& t : trades) add_return(whole, t.ret);
  ReturnStats acc[3];
  const bool folds_equal = storage_equals_direct(trades, bars, [&](FoldView<ReturnStats> f) {
    FoldCursor<ReturnStats> c[3];
    for (const FoldTrade& t : trades)
      for (int lane = 0; lane < 3; ++lane)
        add_lane_trade(acc[lane], c[lane], f, bars, lane, t.bar, t.ret, [&](ReturnStats& s) { add_return(s, t.ret); });
    for (int lane = 0; lane < 3; ++lane) flush_lane_fold(acc[lane], c[lane], f, lane);
  });
  return folds_equal && same_stats(acc[0], whole) && same_stats(acc[2], ReturnStats{});
}

}  // namespace

TEST_CASE(
    "Folds: a cursor over the held fold, alone, on a warp's lane 1 or as a range, gives the storage's bits, in and out "
    "of entry order",
    "[cpu][folds]") {
  using namespace tpeopt::strategies;
  // Four folds over bars [10, 90) with an embargo of 5 bars after each inner boundary.
  const std::vector<int> edge{10, 30, 50, 70, 90}, embargo_end{10, 35, 55, 75};
  const FoldBars bars{4, edge.data(), embargo_end.data()};
  std::vector<FoldTrade> in_order;
  for (int bar = 0; bar < 100; bar += 3) in_order.push_back({bar, 0.01 * std::sin(0.7 * bar) + 0.001});
  CHECK(cursor_equals_direct(in_order, bars));
  // Out of entry order (a fold joined again is read back from the storage).
  std::vector<FoldTrade> shuffled = in_order;
  for (std::size_t i = 0; i + 7 < shuffled.size(); i += 5) std::swap(shuffled[i], shuffled[i + 7]);
  CHECK(cursor_equals_direct(shuffled, bars));
  // The held fold's range alone (FoldRange), the summaries in the storage.
  CHECK(range_equals_direct(in_order, bars));
  CHECK(range_equals_direct(shuffled, bars));
  // A warp's lane 1 holding the fold while lane 0 adds to the whole span (add_lane_trade).
  CHECK(lanes_equal_direct(in_order, bars));
  CHECK(lanes_equal_direct(shuffled, bars));
  // Something was added to every fold, and the embargoed and outside trades to none.
  FoldSummaries<ReturnStats> f;
  reset_folds(f.view(), 4);
  FoldCursor<ReturnStats> c;
  start_folds(c);
  int counted = 0;
  for (const FoldTrade& t : in_order) {
    const int k = fold_of(bars, t.bar);
    if (k >= 0) ++counted;
    add_fold_trade(c, f.view(), bars, t.bar, t.ret, [&](ReturnStats& s) { add_return(s, t.ret); });
  }
  flush_fold(c, f.view());
  int total = 0;
  for (int k = 0; k < 4; ++k) {
    CHECK(f.fold[k].trades > 0);
    total += f.fold[k].trades;
  }
  CHECK(total == counted);
  CHECK(counted < static_cast<int>(in_order.size()));
}

TEST_CASE("Folds: atc's per-bar returns through a cursor give the storage's bits", "[cpu][folds][atc]") {
  using namespace tpeopt::strategies;
  // Four folds over bars [10, 90), an embargo of 5 bars after each inner boundary; a return
  // at every bar from 0 to 99 in bar order, as the walk adds them (the CUDA grouped kernel
  // holds the fold in a cursor, the CPU adds to the storage).
  const std::vector<int> edge{10, 30, 50, 70, 90}, embargo_end{10, 35, 55, 75};
  const FoldBars bars{4, edge.data(), embargo_end.data()};
  FoldSummaries<atc::FoldStats> direct, cached;
  reset_folds(direct.view(), bars.n);
  reset_folds(cached.view(), bars.n);
  FoldCursor<atc::FoldStats> c;
  start_folds(c);
  for (int t = 0; t < 100; ++t) {
    const double r = 0.013 * std::sin(0.37 * t) - 0.0007;
    atc::add_fold_return(direct.view(), bars, t, r);
    atc::add_fold_return(c, cached.view(), bars, t, r);
  }
  flush_fold(c, cached.view());
  long long counted = 0;
  for (int k = 0; k < bars.n; ++k) {
    const atc::FoldStats &a = direct.fold[k], &b = cached.fold[k];
    CAPTURE(k);
    CHECK(a.bars == b.bars);
    CHECK(a.total == b.total);
    CHECK(a.equity == b.equity);
    CHECK(direct.sumsq[k] == cached.sumsq[k]);
    CHECK(a.bars > 0);
    counted += a.bars;
  }
  CHECK(counted == (30 - 10) + (50 - 35) + (70 - 55) + (90 - 75));
}
