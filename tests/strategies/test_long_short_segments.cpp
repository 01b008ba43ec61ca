// [cpu]: the long/short walk cut into segments walked on their own and stitched
// (strategies/long_short_segments.hpp: walk_segment, stitch_segments, replay_trade) gives
// run_backtest's trades, trade for trade and bit for bit, and the same summaries and scores
// (the CUDA twin's segmented kernels run these functions). bollinger and donchian logic over
// generated bars (several seeds), costs with and without the ATR stop, trials whose first
// valid bar lies past many cuts or past the end, 1 to more segments than a trade spans,
// rooms that leave records incomplete, and blocks of bars.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "strategies/bollinger/bollinger.hpp"
#include "strategies/donchian/donchian.hpp"
#include "strategies/long_short_segments.hpp"
#include "strategies/signal_backtest.hpp"
#include "strategies/symbol_strategy.hpp"
#include "support/bits.hpp"
#include "support/test_rng.hpp"

using namespace tpeopt;
namespace ls = strategies::long_short;
using tpeopt::testing::same_bits;

namespace {

struct GeneratedBars {
  std::vector<double> open, high, low, close;
  ls::Bars view() const {
    ls::Bars b;
    b.n = static_cast<int>(close.size());
    b.open = open.data();
    b.high = high.data();
    b.low = low.data();
    b.close = close.data();
    return b;
  }
};

/// A random walk with bursts of trend and mean reversion, so that trades are short and long.
GeneratedBars generate_bars(int n, std::uint64_t seed) {
  tpeopt::testing::Rng rng(seed);
  GeneratedBars g;
  double price = 100.0, drift = 0.0;
  for (int t = 0; t < n; ++t) {
    if (rng.below(200) == 0) drift = (rng.u01() - 0.5) * 0.004;
    const double open = price * (1.0 + (rng.u01() - 0.5) * 0.002);
    const double close = open * (1.0 + drift + (rng.u01() - 0.5) * 0.01);
    g.open.push_back(open);
    g.close.push_back(close);
    g.high.push_back(std::max(open, close) * (1.0 + rng.u01() * 0.004));
    g.low.push_back(std::min(open, close) * (1.0 - rng.u01() * 0.004));
    price = close;
  }
  return g;
}

/// Random parameter slots of bollinger or donchian (the same ranges shape both): an ATR stop
/// in half of the trials, fees and slippage.
template <typename Logic>
std::vector<double> random_slots(tpeopt::testing::Rng& rng) {
  std::vector<double> v(Logic::kNumSlots);
  v[0] = 3.0 + static_cast<double>(rng.below(70));  // window / channel
  if constexpr (Logic::kNumSeries == strategies::bollinger::kNumSeries) v[1] = 0.3 + 2.5 * rng.u01();  // num_std
  else v[1] = 2.0 + static_cast<double>(rng.below(40));                                                // exit_channel
  v[2] = 2.0 + static_cast<double>(rng.below(30));                                                     // atr_window
  v[3] = rng.below(2) == 0 ? 0.0 : 0.3 + 4.0 * rng.u01();                                              // atr stop
  v[4] = 5.0 * rng.u01();                                                                              // fee_bp
  v[5] = 3.0 * rng.u01();                                                                              // slippage_bp
  return v;
}

/// A trial's series over the bars.
template <typename Logic>
struct TrialSeries {
  std::vector<double> own[Logic::kNumSeries];
  const double* ptr[Logic::kNumSeries];
  TrialSeries(const typename Logic::Params& p, const ls::Bars& b) {
    strategies::SeriesKey keys[Logic::kNumSeries];
    Logic::series_keys(p, keys);
    for (int j = 0; j < Logic::kNumSeries; ++j) {
      own[j].resize(static_cast<std::size_t>(b.n));
      strategies::compute_logic_series<Logic>(keys[j].kind, keys[j].value, b, own[j].data());
      ptr[j] = own[j].data();
    }
  }
};

/// A block walker (strategies/signal_backtest.hpp, PlainWalk's contract) that cuts each
/// block into G segments, each recording at most `room` trades, and stitches them.
template <typename Logic>
struct SegmentedWalk {
  const typename Logic::Params& p;
  const ls::Bars& bars;
  const double* const* series;
  int G, room;
  int* walked;  ///< trades the stitch walked itself
  template <typename OnTrade>
  void operator()(int, const ls::Bars& b, OnTrade&& on_trade) const {
    const strategies::LogicSignals<Logic> signals{p, bars, series};
    const double* atr = series[Logic::kAtrSeries];
    auto cut = [&](int g) { return ls::segment_cut(b, G, g); };
    std::vector<std::vector<ls::BarPair>> pairs(static_cast<std::size_t>(G));
    std::vector<ls::SegmentRecord> records(static_cast<std::size_t>(G));
    for (int g = G - 1; g >= 0; --g) {  // any order: segments are independent
      auto& mine = pairs[static_cast<std::size_t>(g)];
      // A segment records at most one trade per bar it scans.
      mine.resize(static_cast<std::size_t>(std::max(0, std::min(room, cut(g + 1) - cut(g)))));
      ls::SegmentRecord r =
          ls::walk_segment(b, p.costs, p.first_valid, atr, signals, cut(g), cut(g + 1), room,
                           [&](int q, const ls::BarPair& bp) { mine.at(static_cast<std::size_t>(q)) = bp; });
      r.trades = mine.data();
      records[static_cast<std::size_t>(g)] = r;
    }
    *walked += ls::stitch_segments(
        b, p.costs, p.first_valid, atr, signals, G, cut, [&](int g) { return records[static_cast<std::size_t>(g)]; },
        on_trade);
  }
};

bool same_trade(const ls::Trade& a, const ls::Trade& b) {
  return a.signal_bar == b.signal_bar && a.entry_bar == b.entry_bar && a.exit_bar == b.exit_bar && a.side == b.side &&
         a.reason == b.reason && same_bits(a.entry_price, b.entry_price) && same_bits(a.exit_price, b.exit_price) &&
         same_bits(a.ret, b.ret);
}

bool same_summary(const ls::Summary& a, const ls::Summary& b) {
  return a.trades == b.trades && a.wins == b.wins && same_bits(a.total_return, b.total_return) &&
         same_bits(a.mean, b.mean) && same_bits(a.m2, b.m2) && same_bits(a.gross_win, b.gross_win) &&
         same_bits(a.gross_loss, b.gross_loss) && same_bits(a.equity, b.equity) && same_bits(a.peak, b.peak) &&
         same_bits(a.max_drawdown, b.max_drawdown);
}

struct Tally {
  std::size_t trials_with_trades = 0, stitched = 0, adopted = 0, reasons[4] = {0, 0, 0, 0};
};

template <typename Logic>
void check_logic(std::uint64_t seed, Tally& tally) {
  const int n = 3000;
  const GeneratedBars g = generate_bars(n, seed);
  const ls::Bars bars = g.view();
  tpeopt::testing::Rng rng(seed * 7 + 1);
  // The whole series, and blocks that start and end off any cut (as data subsets do).
  const std::vector<std::vector<strategies::BarBlock>> block_sets = {
      {{0, n}}, {{n / 7, n / 2}, {n / 2 + 11, n - n / 5}, {n - n / 5 + 3, n}}};
  for (int trial = 0; trial < 24; ++trial) {
    const std::vector<double> slots = random_slots<Logic>(rng);
    typename Logic::Params p = Logic::unpack(slots.data());
    // First valid bars past many cuts (as a long window) and past the last entry signal.
    if (trial % 8 == 5) p.first_valid = n / 2 + static_cast<int>(rng.below(n / 3));
    if (trial % 8 == 7) p.first_valid = n - 2 + static_cast<int>(rng.below(3));
    const TrialSeries<Logic> series(p, bars);
    for (const auto& blocks : block_sets) {
      const int nb = static_cast<int>(blocks.size());
      for (const auto o : {ls::Objective::TotalReturn, ls::Objective::Sharpe}) {
        std::vector<ls::Trade> reference;
        ls::Summary ref_all;
        const double ref_score =
            strategies::run_signal_symbol<Logic>(p, bars, series.ptr, blocks.data(), nb, o, &ref_all,
                                                 [&](const ls::Trade& t) { reference.push_back(t); });
        if (!reference.empty() && nb == 1 && o == ls::Objective::TotalReturn) ++tally.trials_with_trades;
        for (const auto& t : reference) ++tally.reasons[t.reason];
        for (const int G : {1, 2, 7, 64, 997}) {
          for (const int room : {0, 1, 3, 1 << 20}) {
            CAPTURE(seed, trial, nb, G, room, reference.size(), p.first_valid, p.costs.stop_mult);
            int walked = 0;
            std::vector<ls::Trade> got;
            ls::Summary all;
            const double score =
                strategies::run_signal_walks<Logic>(bars, blocks.data(), nb, o, &all,
                                                    SegmentedWalk<Logic>{p, bars, series.ptr, G, room, &walked},
                                                    [&](const ls::Trade& t) { got.push_back(t); });
            REQUIRE(got.size() == reference.size());
            std::size_t differing = 0;
            for (std::size_t i = 0; i < got.size(); ++i) differing += same_trade(got[i], reference[i]) ? 0 : 1;
            CHECK(differing == 0);
            CHECK(same_summary(all, ref_all));
            CHECK(same_bits(score, ref_score));
            if (room == (1 << 20) && G > 1 && G <= 64) {
              tally.stitched += static_cast<std::size_t>(walked);
              tally.adopted += got.size() - static_cast<std::size_t>(walked);
            }
            // One segment with room for everything: all adopted, nothing walked twice.
            if (G == 1 && room == (1 << 20)) CHECK(walked == 0);
            // No room at all: the stitch walks everything itself.
            if (room == 0) CHECK(walked == static_cast<int>(reference.size()));
          }
        }
      }
    }
  }
}

/// A folded trial through the segmented walk, and through the two lanes of the CUDA stitch:
/// the same score, violation and fold columns.
template <typename Logic>
void check_folded(std::uint64_t seed) {
  const int n = 3000;
  const GeneratedBars g = generate_bars(n, seed);
  const ls::Bars bars = g.view();
  tpeopt::testing::Rng rng(seed + 99);
  const std::vector<int> edges = {0, 400, 1100, 1900, n};
  const std::vector<int> embargo_end = {0, 410, 1100, 1950, n};
  const strategies::FoldBars folds{4, edges.data(), embargo_end.data()};
  strategies::FoldRule rule{};
  rule.rule = static_cast<int>(strategies::AcrossFolds::Rule::Mean);
  const strategies::symbols::AggregateSpec spec =
      strategies::trade_metrics_aggregate_spec(strategies::symbols::Aggregate::Mean, true, 5);
  const strategies::BarBlock block{0, n};
  std::size_t traded = 0;
  for (int trial = 0; trial < 16; ++trial) {
    const std::vector<double> slots = random_slots<Logic>(rng);
    const typename Logic::Params p = Logic::unpack(slots.data());
    const TrialSeries<Logic> series(p, bars);
    const std::size_t m = strategies::kNumTradeMetrics + 4 * 4;
    std::vector<double> ref(m), got(m);
    double ref_violation = 0.0, violation = 0.0;
    const double ref_score = strategies::run_signal_folded<Logic>(p, bars, series.ptr, &block, 1, ls::Objective::Sharpe,
                                                                  spec, folds, rule, &ref_violation, ref.data());
    for (const int G : {2, 64}) {
      CAPTURE(seed, trial, G);
      int walked = 0;
      const double score =
          strategies::run_signal_folded_walks<Logic>(bars, &block, 1, ls::Objective::Sharpe, spec, folds, rule,
                                                     &violation, got.data(),
                                                     SegmentedWalk<Logic>{p, bars, series.ptr, G, 3, &walked});
      CHECK(same_bits(score, ref_score));
      CHECK(same_bits(violation, ref_violation));
      CHECK(same_bits(got, ref));
    }
    {
      // The CUDA stitch's two lanes (strategies/device/signal_device.cuh), run here as lane 0
      // then lane 1 for each trade: lane 0 adds it to the whole span, lane 1 to its fold
      // (add_lane_trade), and finish_signal_folded ends from lane 0's summary: the same bits.
      strategies::FoldSummaries<ls::Summary> storage;
      const strategies::FoldView<ls::Summary> view = storage.view();
      strategies::reset_folds(view, folds.n);
      strategies::FoldCursor<ls::Summary> cursor;
      strategies::start_folds(cursor);
      ls::Summary lane_sum[2];
      strategies::PlainWalk<Logic>{p, bars, series.ptr}(0, ls::block_bars(bars, 0, n), [&](const ls::Trade& t) {
        for (int lane = 0; lane < 2; ++lane)
          strategies::add_lane_trade(lane_sum[lane], cursor, view, folds, lane, t.entry_bar, t.ret,
                                     [&](ls::Summary& s) { ls::add_trade(s, t); });
      });
      strategies::flush_lane_fold(lane_sum[1], cursor, view, 1);
      std::vector<double> lanes(m);
      double lanes_violation = 0.0;
      const double lanes_score =
          strategies::finish_signal_folded(lane_sum[0], strategies::one_block_score(lane_sum[0], ls::Objective::Sharpe),
                                           ls::Objective::Sharpe, spec, view, folds, rule, &lanes_violation,
                                           lanes.data());
      CHECK(same_bits(lanes_score, ref_score));
      CHECK(same_bits(lanes_violation, ref_violation));
      CHECK(same_bits(lanes, ref));
    }
    traded += ref[strategies::kTradeMetricTrades] > 0 ? 1 : 0;
  }
  CHECK(traded > 8);
}

/// One symbol through the several-symbol fold path (run_signal_symbol_folds, then
/// symbols::aggregate_symbols_folded over S = 1) gives the one-series path's bits
/// (run_signal_folded): score, violation, base and fold columns, for every aggregate and rule.
template <typename Logic>
void check_one_symbol_folds(std::uint64_t seed) {
  const int n = 3000;
  const GeneratedBars g = generate_bars(n, seed);
  const ls::Bars bars = g.view();
  tpeopt::testing::Rng rng(seed + 7);
  const std::vector<int> edges = {100, 700, 1300, 2200, 2900};
  const std::vector<int> embargo_end = {100, 720, 1300, 2260};
  const strategies::FoldBars folds{4, edges.data(), embargo_end.data()};
  const strategies::BarBlock block{0, n};
  const std::size_t m = strategies::kNumTradeMetrics + 4 * 4;
  using Rule = strategies::AcrossFolds::Rule;
  int checked = 0;
  for (const auto aggregate : {strategies::symbols::Aggregate::Sum, strategies::symbols::Aggregate::Mean,
                               strategies::symbols::Aggregate::Worst, strategies::symbols::Aggregate::Portfolio}) {
    for (const Rule r : {Rule::All, Rule::Mean, Rule::Min, Rule::Quantile, Rule::MeanMinusStd}) {
      const strategies::symbols::AggregateSpec spec = strategies::trade_metrics_aggregate_spec(aggregate, true, 5);
      const strategies::FoldRule rule = strategies::fold_rule({r, 0.3, 0.7}, true);
      for (int trial = 0; trial < 6; ++trial) {
        CAPTURE(seed, static_cast<int>(aggregate), static_cast<int>(r), trial);
        const std::vector<double> slots = random_slots<Logic>(rng);
        const typename Logic::Params p = Logic::unpack(slots.data());
        const TrialSeries<Logic> series(p, bars);
        const ls::Objective o = ls::Objective::Sharpe;
        std::vector<double> ref(m), row(m), got(m);
        double ref_violation = 0.0, violation = 0.0, equity = 0.0;
        const double ref_score = strategies::run_signal_folded<Logic>(p, bars, series.ptr, &block, 1, o, spec, folds,
                                                                      rule, &ref_violation, ref.data());
        const double objective = strategies::run_signal_symbol_folds<Logic>(
            bars, &block, 1, o, aggregate == strategies::symbols::Aggregate::Portfolio, folds, row.data(), &equity,
            strategies::PlainWalk<Logic>{p, bars, series.ptr}, [](const ls::Trade&) {});
        const strategies::symbols::SymbolRows rows{&objective, &equity, row.data(), 1, 1, static_cast<long long>(m)};
        const double score =
            strategies::symbols::aggregate_symbols_folded(rows, 1, spec, 4, rule, got.data(), &violation);
        CHECK(same_bits(score, ref_score));
        CHECK(same_bits(violation, ref_violation));
        CHECK(same_bits(got, ref));
        checked += ref[strategies::kTradeMetricTrades] > 0 ? 1 : 0;
      }
    }
  }
  CHECK(checked > 60);
}

}  // namespace

TEST_CASE("long/short: a walk cut into segments and stitched makes run_backtest's trades and sums",
          "[cpu][long_short][segments]") {
  const std::uint64_t seed = GENERATE(1u, 2u, 3u);
  Tally tally;
  SECTION("bollinger") { check_logic<strategies::bollinger::Logic>(seed, tally); }
  SECTION("donchian") { check_logic<strategies::donchian::Logic>(seed, tally); }
  CHECK(tally.trials_with_trades > 12);
  // Every exit reason occurs: stops, exit signals, the end of a block.
  CHECK(tally.reasons[ls::kSignal] > 0);
  CHECK(tally.reasons[ls::kStop] > 0);
  CHECK(tally.reasons[ls::kEnd] > 0);
  // With room, most trades come from the segments' records: the stitch walks only where the
  // true walk enters a segment inside one of its positions.
  CHECK(tally.adopted > 4 * tally.stitched);
  CHECK(tally.stitched > 0);
}

TEST_CASE("long/short: folded trials score the same through the segmented walk", "[cpu][long_short][segments][folds]") {
  const std::uint64_t seed = GENERATE(4u, 5u);
  SECTION("bollinger") { check_folded<strategies::bollinger::Logic>(seed); }
  SECTION("donchian") { check_folded<strategies::donchian::Logic>(seed); }
}

TEST_CASE("long/short: one symbol through the several-symbol fold aggregation is the one-series path",
          "[cpu][long_short][folds]") {
  const std::uint64_t seed = GENERATE(6u, 7u);
  SECTION("bollinger") { check_one_symbol_folds<strategies::bollinger::Logic>(seed); }
  SECTION("donchian") { check_one_symbol_folds<strategies::donchian::Logic>(seed); }
}

namespace {
/// donchian's series written as one chain over the bars (compute_series, no series_at): the
/// form of a Logic whose series are not per bar (an EMA).
struct DonchianChain {
  static void compute_series(int kind, int n, const ls::Bars& b, double* out) {
    for (int t = 0; t < b.n; ++t) out[t] = strategies::donchian::Logic::series_at(kind, n, b, t);
  }
};
}  // namespace

TEST_CASE("signal series: series_at bar by bar, or compute_series for a Logic without it", "[cpu][long_short]") {
  static_assert(strategies::SeriesPerBar<strategies::donchian::Logic>);
  static_assert(strategies::SeriesPerBar<strategies::bollinger::Logic>);
  static_assert(!strategies::SeriesPerBar<DonchianChain>);
  const GeneratedBars g = generate_bars(900, 5);
  const ls::Bars b = g.view();
  std::vector<double> per_bar(900), chain(900, 0.0);
  for (const auto& [kind, n] : {std::pair{0, 20}, std::pair{1, 7}, std::pair{2, 14}}) {
    strategies::compute_logic_series<strategies::donchian::Logic>(kind, n, b, per_bar.data());
    std::fill(chain.begin(), chain.end(), 0.0);
    strategies::compute_logic_series<DonchianChain>(kind, n, b, chain.data());
    CHECK(std::isnan(per_bar[static_cast<std::size_t>(n) - 2]));
    CHECK_FALSE(std::isnan(per_bar[static_cast<std::size_t>(n)]));
    for (int t = 0; t < 900; ++t)
      REQUIRE(same_bits(per_bar[static_cast<std::size_t>(t)], chain[static_cast<std::size_t>(t)]));
  }
}
