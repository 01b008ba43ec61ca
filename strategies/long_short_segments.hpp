#pragma once
// The long/short walk (strategies/long_short.hpp) as segments walked at once, then stitched:
// the same trades, in the same order, with the same bits as run_backtest.
//
// strategies/segment_stitch.hpp says why a walk may be cut and how the stitch decides; here
// are the long/short walk's pieces: its segment cuts, walk_from as the walk, and a recorded
// trade made again from its bars (replay_trade: the functions the walk calls).
#include "common/hd.hpp"
#include "strategies/long_short.hpp"
#include "strategies/segment_stitch.hpp"

namespace tpeopt::strategies::long_short {

using segments::BarPair;
using segments::SegmentRecord;
using segments::walk_segment_with;

/// Segment g's first bar when [b.begin, b.n - 1) is cut into G: cut(0) = begin, cut(G) = n - 1
/// (where the walk's entry signals end).
TPEOPT_HD_INLINE int segment_cut(const Bars& b, int G, int g) { return segments::cut_at(b.begin, b.n - 1, G, g); }

/// walk_from over a trial's bars as a walk(from, stop, on_exit) for the *_with functions
/// (every argument held by reference: the lambda lives no longer than the call it is passed to).
TPEOPT_HD_NO_CHECK
template <typename SignalsAt>
TPEOPT_HD_INLINE auto walk_from_of(const Bars& b, const Costs& c, const int& first_valid, const double* const& atr,
                                   SignalsAt& signals) {
  return [&](int from, int stop, auto&& on_exit) {
    return walk_from(b, c, first_valid, atr, signals, from, stop, on_exit);
  };
}

/// walk_segment_with walk_from.
TPEOPT_HD_NO_CHECK
template <typename SignalsAt, typename Record>
TPEOPT_HD_INLINE SegmentRecord walk_segment(const Bars& b, const Costs& c, int first_valid, const double* atr,
                                            SignalsAt&& signals, int from, int stop, int room, Record&& record) {
  return walk_segment_with(walk_from_of(b, c, first_valid, atr, signals), from, stop, room, record);
}

/// The trade whose signal and exit bars the walk recorded, as the walk made it: its side
/// from signals(signal bar), its stop from atr there, and its exit as run_backtest decides
/// it at bar j: the stop first, then the exit signal of bar j - 1, else the end (the walk
/// checks neither at the entry bar, where only the end can close it: j = n - 1).
TPEOPT_HD_NO_CHECK
template <typename SignalsAt>
TPEOPT_HD_INLINE Trade replay_trade(const Bars& b, const Costs& c, const double* atr, SignalsAt&& signals,
                                    const BarPair& bars) {
  const int s = bars.signal, j = bars.exit;
  // open_at's rule written out: through open_at the CUDA stitch kernels compile to other
  // register assignments (the same operations), and they were tested on the GPU as they are.
  const Position pos = open_position(b, c, c.stop_mult > 0.0 ? atr[s] : 0.0, s, entry_side(signals(s)));
  double price = 0.0;
  if (j > pos.entry_bar) {
    if (const int reason = exit_at(b, pos, signals, j, &price); reason != kNoExit)
      return close_position(c, pos, j, price, reason);
  }
  return close_position(c, pos, b.n - 1, b.close[b.n - 1], kEnd);
}

/// The walk over [b.begin, b.n - 1) from its segments' records (segments::stitch_segments_with
/// from cut(0)): cut(g) gives c_g (cut(0) = b.begin, cut(G) = b.n - 1, non-decreasing),
/// record_of(g) segment g's record. on_trade(const Trade&) receives the trades the stitch walks
/// itself, adopt(record, k) the record's trades k .. count - 1 (to be replayed in order, before
/// anything later): together, every trade of run_backtest in trade order. `walk(from, stop,
/// on_exit)` walks what the records do not know: walk_from over the trial's bars, or a walk
/// with its contract (a warp's). Returns how many it walked itself.
TPEOPT_HD_NO_CHECK
template <typename Walk, typename Cut, typename Records, typename OnTrade, typename Adopt>
TPEOPT_HD_INLINE int stitch_segments_with(Walk&& walk, const Costs& c, int G, Cut&& cut, Records&& record_of,
                                          OnTrade&& on_trade, Adopt&& adopt) {
  return segments::stitch_segments_with(
      walk, cut(0), G, cut, record_of,
      [&](const Position& pos, int j, double price, int reason) { on_trade(close_position(c, pos, j, price, reason)); },
      adopt);
}

/// stitch_segments_with walk_from.
TPEOPT_HD_NO_CHECK
template <typename SignalsAt, typename Cut, typename Records, typename OnTrade, typename Adopt>
TPEOPT_HD_INLINE int stitch_segments(const Bars& b, const Costs& c, int first_valid, const double* atr,
                                     SignalsAt&& signals, int G, Cut&& cut, Records&& record_of, OnTrade&& on_trade,
                                     Adopt&& adopt) {
  return stitch_segments_with(walk_from_of(b, c, first_valid, atr, signals), c, G, cut, record_of, on_trade, adopt);
}

/// stitch_segments with the records' trades replayed one after another into on_trade.
TPEOPT_HD_NO_CHECK
template <typename SignalsAt, typename Cut, typename Records, typename OnTrade>
TPEOPT_HD_INLINE int stitch_segments(const Bars& b, const Costs& c, int first_valid, const double* atr,
                                     SignalsAt&& signals, int G, Cut&& cut, Records&& record_of, OnTrade&& on_trade) {
  return stitch_segments(b, c, first_valid, atr, signals, G, cut, record_of, on_trade,
                         [&](const SegmentRecord& r, int k) {
                           for (int q = k; q < r.count; ++q) on_trade(replay_trade(b, c, atr, signals, r.trades[q]));
                         });
}

}  // namespace tpeopt::strategies::long_short
