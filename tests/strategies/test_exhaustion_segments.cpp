// [cpu]: one exhaustion walk cut into segments walked on their own and stitched
// (exhaustion.hpp: stitch_segments, replay_trade; segment_stitch.hpp: walk_of) gives
// run_backtest's trades, bit for bit, whatever the cuts and however little room a segment has
// to record its trades (the GPU's segmented kernels run these functions with warp finders).
// Real series, random trials, cuts from 1 to more segments than trades, and blocks of bars.
#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include "io/candles_csv.hpp"
#include "strategies/exhaustion/exhaustion.hpp"
#include "strategies/exhaustion/exhaustion_strategy.hpp"
#include "support/bits.hpp"
#include "support/exhaustion_params.hpp"
#include "support/paths.hpp"
#include "support/segment_cuts.hpp"

using namespace tpeopt;
namespace ex = strategies::exhaustion;

namespace {

struct Series {
  std::vector<double> ef, es, vz, tz;
  ex::TrialSeries view() const { return {ef.data(), es.data(), vz.data(), tz.data()}; }
};

Series series_of(const strategies::ExhaustionStrategy& s, const ex::Params& p) {
  Series out;
  const std::size_t n = static_cast<std::size_t>(s.n_bars());
  for (auto* v : {&out.ef, &out.es, &out.vz, &out.tz}) v->resize(n);
  s.ema(p.ema_fast, out.ef.data());
  s.ema(p.ema_slow, out.es.data());
  s.volume_z(p.z_window, out.vz.data());
  s.tr_z(p.z_window, out.tz.data());
  return out;
}

/// The trades of the segmented walk: G segments, each with room for `room` trades.
std::vector<ex::Trade> segmented(const ex::Bars& b, const ex::Params& p, const ex::TrialSeries& t, int G, int room,
                                 int* stitch_walked) {
  auto cut = [&](int g) { return b.begin + static_cast<int>(static_cast<long long>(b.n - 1 - b.begin) * g / G); };
  std::vector<std::vector<ex::BarPair>> pairs(static_cast<std::size_t>(G));
  std::vector<ex::SegmentRecord> records(static_cast<std::size_t>(G));
  ex::SequentialFinder sequential;
  for (int g = 0; g < G; ++g) {  // any order: segments are independent
    auto& mine = pairs[static_cast<std::size_t>(g)];
    // A segment records at most one trade per bar it scans.
    mine.resize(static_cast<std::size_t>(std::max(0, std::min(room, cut(g + 1) - cut(g) + 1))));
    ex::SegmentRecord r =
        strategies::segments::walk_segment_with(strategies::segments::walk_of(b, p, t, sequential, sequential), cut(g),
                                                cut(g + 1), room, [&](int q, const ex::BarPair& bp) {
                                                  mine[static_cast<std::size_t>(q)] = bp;
                                                });
    r.trades = mine.data();
    records[static_cast<std::size_t>(g)] = r;
  }
  std::vector<ex::Trade> out;
  *stitch_walked = 0;
  ex::stitch_segments(
      b, p, t, G, cut, [&](int g) { return records[static_cast<std::size_t>(g)]; }, ex::SequentialFinder{},
      ex::SequentialFinder{},
      [&](const ex::Trade& tr) {
        out.push_back(tr);
        ++*stitch_walked;
      },
      [&](const ex::SegmentRecord& r, int k) {
        for (int q = k; q < r.count; ++q) out.push_back(ex::replay_trade(b, p, r.trades[q]));
      });
  return out;
}

bool same_trade(const ex::Trade& a, const ex::Trade& b) {
  using testing::same_bits;
  return a.signal_bar == b.signal_bar && a.entry_bar == b.entry_bar && a.exit_bar == b.exit_bar &&
         a.reason == b.reason && same_bits(a.entry_price, b.entry_price) && same_bits(a.exit_price, b.exit_price) &&
         same_bits(a.ret, b.ret) && same_bits(a.r_multiple, b.r_multiple);
}

}  // namespace

TEST_CASE("exhaustion: a walk cut into segments and stitched makes run_backtest's trades",
          "[cpu][exhaustion][segments]") {
  const std::string file =
      GENERATE(as<std::string>{}, "backtesting-py/EURUSD.csv", "binance-1m/BTCUSDT_1m_2023-03.csv");
  CAPTURE(file);
  const strategies::ExhaustionStrategy s(io::read_candles_csv(testing::data_dir() + "/" + file), {});
  const auto rows = testing::random_exhaustion_params(40, 11);
  std::size_t trials_with_trades = 0;
  testing::StitchTally tally;
  for (int trial = 0; trial < 40; ++trial) {
    const ex::Params p = ex::unpack_params(rows.data() + trial * ex::kNumSlots);
    const Series series = series_of(s, p);
    // The whole series, and a block that starts and ends off any cut (as hold-out parts do).
    for (const bool block : {false, true}) {
      const ex::Bars b =
          block ? s.host_bars(strategies::BarBlock{s.n_bars() / 7, s.n_bars() - s.n_bars() / 5}) : s.host_bars();
      std::vector<ex::Trade> reference;
      ex::run_backtest(b, p, series.view(), ex::SequentialFinder{},
                       [&](const ex::Trade& t) { reference.push_back(t); });
      if (!reference.empty()) ++trials_with_trades;
      CAPTURE(trial, block);
      testing::check_every_cut(
          reference, [&](int G, int room, int* walked) { return segmented(b, p, series.view(), G, room, walked); },
          same_trade, tally);
    }
  }
  CHECK(trials_with_trades > 20);
  // With room, most trades come from the segments' records: the stitch walks only where the
  // true walk enters a segment inside one of its positions.
  CHECK(tally.adopted > 10 * tally.stitched);
}
