#pragma once
// ema_cross's walk (ema_cross.hpp: walk_from) as segments walked at once, then stitched
// (strategies/segment_stitch.hpp says why a walk may be cut and how the stitch decides): the
// same trades, in the same order, with the same bits as run_backtest. The cuts span
// [begin, n - 1), where entry signals end; the stitch starts where run_backtest's scan does
// (scan_start), and a segment's walk never scans before first_valid + 1 (walk_from), where
// the true walk never stands.
#include "common/hd.hpp"
#include "strategies/ema_cross/ema_cross.hpp"
#include "strategies/segment_stitch.hpp"

namespace tpeopt::strategies::ema_cross {

using segments::BarPair;
using segments::SegmentRecord;

/// Segment g's first bar when [b.begin, b.n - 1) is cut into G: cut(0) = begin, cut(G) = n - 1.
TPEOPT_HD_INLINE int segment_cut(const Bars& b, int G, int g) { return segments::cut_at(b.begin, b.n - 1, G, g); }

/// The trade whose signal and exit bars the walk recorded, as the walk made it: the position
/// of signal s, closed at bar j for exit_reason's reason there; where the walk found no exit
/// it recorded j = n - 1, where exit_reason finds none (or j is the entry bar), and the
/// position is marked at the last close (kEnd).
TPEOPT_HD_INLINE Trade replay_trade(const Bars& b, const Params& p, const TrialSeries& t, const BarPair& bars) {
  const Position pos = open_position(b, p, bars.signal);
  const int j = bars.exit;
  if (j > pos.entry_bar) {
    if (const int reason = exit_reason(b, p, t, pos, j); reason != kNoExit) return close_position(b, p, pos, j, reason);
  }
  return close_position(b, p, pos, b.n - 1, kEnd);
}

/// run_backtest from its segments' records: cut(g) gives c_g (cut(0) = b.begin, cut(G) =
/// b.n - 1, non-decreasing), record_of(g) segment g's record. on_trade(const Trade&) receives
/// the trades the stitch walks itself, adopt(record, k) the record's trades k .. count - 1 (to
/// be replayed in order, before anything later): together, every trade of run_backtest in
/// trade order. The finders' contract is run_backtest's. Returns how many trades it walked.
TPEOPT_HD_NO_CHECK
template <typename Cut, typename Records, typename BelowFinder, typename SignalFinder, typename ExitFinder,
          typename OnTrade, typename Adopt>
TPEOPT_HD_INLINE int stitch_segments(const Bars& b, const Params& p, const TrialSeries& t, int G, Cut&& cut,
                                     Records&& record_of, BelowFinder&& find_below, SignalFinder&& find_signal,
                                     ExitFinder&& find_exit, OnTrade&& on_trade, Adopt&& adopt) {
  return segments::stitch_segments_with(
      segments::walk_of(b, p, t, find_signal, find_exit), scan_start(b, p, t, find_below), G, cut, record_of,
      [&](const Position& pos, int j, int reason) { on_trade(close_position(b, p, pos, j, reason)); }, adopt);
}

/// stitch_segments with the records' trades replayed one after another into on_trade.
TPEOPT_HD_NO_CHECK
template <typename Cut, typename Records, typename Finder, typename OnTrade>
TPEOPT_HD_INLINE int stitch_segments(const Bars& b, const Params& p, const TrialSeries& t, int G, Cut&& cut,
                                     Records&& record_of, Finder&& find, OnTrade&& on_trade) {
  return stitch_segments(b, p, t, G, cut, record_of, find, find, find, on_trade, [&](const SegmentRecord& r, int k) {
    for (int q = k; q < r.count; ++q) on_trade(replay_trade(b, p, t, r.trades[q]));
  });
}

}  // namespace tpeopt::strategies::ema_cross
