// [cpu]: one ema_cross walk cut into segments walked on their own and stitched
// (ema_cross_segments.hpp: stitch_segments, replay_trade; segment_stitch.hpp: walk_of) gives
// run_backtest's trades, bit for bit, whatever the cuts and however little room a segment has
// to record its trades (the CUDA twin's segmented kernels run these functions with warp
// finders). Real series, random trials (stops on and off, spans whose first valid bar lies
// past many cuts or past the end), cuts from 1 to more segments than trades, and blocks of
// bars.
#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include "io/candles_csv.hpp"
#include "strategies/ema_cross/ema_cross_segments.hpp"
#include "strategies/ema_cross/ema_cross_strategy.hpp"
#include "support/bits.hpp"
#include "support/paths.hpp"
#include "support/segment_cuts.hpp"
#include "support/test_rng.hpp"

using namespace tpeopt;
namespace ec = strategies::ema_cross;

namespace {

struct Series {
  std::vector<double> fast, slow;
  ec::TrialSeries view() const { return {fast.data(), slow.data()}; }
};

Series series_of(const strategies::EmaCrossStrategy& s, const ec::Params& p) {
  Series out;
  out.fast.resize(static_cast<std::size_t>(s.n_bars()));
  out.slow.resize(static_cast<std::size_t>(s.n_bars()));
  s.ema(p.ema_fast, out.fast.data());
  s.ema(p.ema_slow, out.slow.data());
  return out;
}

/// Random slots: spans 2..max_span (now and then past the data: no trades), each stop off in
/// a quarter of the trials, costs 0..20 bp.
std::vector<double> random_slots(tpeopt::testing::Rng& rng, int max_span, int n_bars) {
  std::vector<double> v(ec::kNumSlots);
  v[ec::kEmaFast] = 2.0 + static_cast<double>(rng.below(static_cast<std::uint64_t>(max_span)));
  v[ec::kEmaSlow] = 2.0 + static_cast<double>(rng.below(static_cast<std::uint64_t>(max_span)));
  if (rng.below(30) == 0) v[ec::kEmaSlow] = static_cast<double>(n_bars) + 3.0;
  v[ec::kSlPct] = rng.below(4) == 0 ? 0.0 : 0.1 + 5.0 * rng.u01();
  v[ec::kTpPct] = rng.below(4) == 0 ? 0.0 : 0.1 + 8.0 * rng.u01();
  v[ec::kFeeBp] = 20.0 * rng.u01();
  v[ec::kSlippageBp] = 10.0 * rng.u01();
  return v;
}

/// The trades of the segmented walk: G segments, each with room for `room` trades.
std::vector<ec::Trade> segmented(const ec::Bars& b, const ec::Params& p, const ec::TrialSeries& t, int G, int room,
                                 int* stitch_walked) {
  auto cut = [&](int g) { return ec::segment_cut(b, G, g); };
  std::vector<std::vector<ec::BarPair>> pairs(static_cast<std::size_t>(G));
  std::vector<ec::SegmentRecord> records(static_cast<std::size_t>(G));
  ec::SequentialFinder sequential;
  for (int g = G - 1; g >= 0; --g) {  // any order: segments are independent
    auto& mine = pairs[static_cast<std::size_t>(g)];
    // A segment records at most one trade per bar it scans.
    mine.resize(static_cast<std::size_t>(std::max(0, std::min(room, cut(g + 1) - cut(g) + 1))));
    ec::SegmentRecord r =
        strategies::segments::walk_segment_with(strategies::segments::walk_of(b, p, t, sequential, sequential), cut(g),
                                                cut(g + 1), room, [&](int q, const ec::BarPair& bp) {
                                                  mine.at(static_cast<std::size_t>(q)) = bp;
                                                });
    r.trades = mine.data();
    records[static_cast<std::size_t>(g)] = r;
  }
  std::vector<ec::Trade> out;
  *stitch_walked = 0;
  ec::stitch_segments(
      b, p, t, G, cut, [&](int g) { return records[static_cast<std::size_t>(g)]; }, ec::SequentialFinder{},
      ec::SequentialFinder{}, ec::SequentialFinder{},
      [&](const ec::Trade& tr) {
        out.push_back(tr);
        ++*stitch_walked;
      },
      [&](const ec::SegmentRecord& r, int k) {
        for (int q = k; q < r.count; ++q) out.push_back(ec::replay_trade(b, p, t, r.trades[q]));
      });
  return out;
}

bool same_trade(const ec::Trade& a, const ec::Trade& b) {
  using testing::same_bits;
  return a.signal_bar == b.signal_bar && a.entry_bar == b.entry_bar && a.exit_bar == b.exit_bar &&
         a.reason == b.reason && same_bits(a.entry_price, b.entry_price) && same_bits(a.exit_price, b.exit_price) &&
         same_bits(a.ret, b.ret);
}

}  // namespace

TEST_CASE("ema_cross: a walk cut into segments and stitched makes run_backtest's trades",
          "[cpu][ema_cross][segments]") {
  const std::string file =
      GENERATE(as<std::string>{}, "backtesting-py/EURUSD.csv", "binance-1m/BTCUSDT_1m_2023-03.csv");
  CAPTURE(file);
  const strategies::EmaCrossStrategy s(io::read_candles_csv(testing::data_dir() + "/" + file), {});
  tpeopt::testing::Rng rng(29);
  std::size_t trials_with_trades = 0, stop_exits = 0, end_exits = 0;
  testing::StitchTally tally;
  bool first_valid_past_cuts = false;
  for (int trial = 0; trial < 40; ++trial) {
    const std::vector<double> slots = random_slots(rng, trial % 4 == 0 ? 1200 : 400, s.n_bars());
    const ec::Params p = ec::unpack_params(slots.data());
    const Series series = series_of(s, p);
    // The whole series, and a block that starts and ends off any cut (as hold-out parts do).
    for (const bool block : {false, true}) {
      const ec::Bars b =
          block ? ec::block_bars(s.host_bars(), s.n_bars() / 7, s.n_bars() - s.n_bars() / 5) : s.host_bars();
      std::vector<ec::Trade> reference;
      ec::run_backtest(b, p, series.view(), ec::SequentialFinder{},
                       [&](const ec::Trade& t) { reference.push_back(t); });
      if (!reference.empty()) ++trials_with_trades;
      for (const ec::Trade& t : reference) {
        stop_exits += t.reason == ec::kStopLoss || t.reason == ec::kTakeProfit ? 1 : 0;
        end_exits += t.reason == ec::kEnd ? 1 : 0;
      }
      if (p.first_valid > ec::segment_cut(b, 7, 2)) first_valid_past_cuts = true;
      CAPTURE(trial, block, p.ema_fast, p.ema_slow);
      testing::check_every_cut(
          reference, [&](int G, int room, int* walked) { return segmented(b, p, series.view(), G, room, walked); },
          same_trade, tally);
    }
  }
  CHECK(trials_with_trades > 40);
  CHECK(stop_exits > 40);
  CHECK(end_exits > 10);
  CHECK(first_valid_past_cuts);
  // With room, most trades come from the segments' records: the stitch walks only where the
  // true walk enters a segment inside one of its positions.
  CHECK(tally.adopted > 10 * tally.stitched);
}
