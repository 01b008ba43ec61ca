#pragma once
// The long/short walk (strategies/long_short.hpp) as segments walked at once, then stitched:
// the same trades, in the same order, with the same bits as run_backtest.
//
// A long walk is a chain of dependent steps; a batch of few trials over a long series leaves
// a GPU with one such chain per trial, nearly empty. While flat, the walk is a function of
// its scan position alone (walk_from: an entry at signal s, its exit bar j found, the scan
// going on at j), so it can be cut: [c_0 = begin, c_G = n - 1) at cuts c_0 < ... < c_G,
// segment g's walk starting flat at c_g and opening positions at signals in [c_g, c_{g+1})
// (walk_segment), every segment at once, each recording its trades' (signal, exit) bars.
// The true walk enters segment g at some position st >= c_g; where st falls on the
// segment's own walk decides what is known (stitch_segments): where that walk was flat
// (before its first signal, or between an exit and the next signal it took) the two walks
// take the same next trade and agree from there on, so the segment's recorded trades are
// the true ones; inside one of its positions, the true walk takes its own next trade and
// looks again. Trades are then made from their bars (replay_trade: the functions the walk
// calls) in trade order.
#include "common/hd.hpp"
#include "strategies/long_short.hpp"

namespace tpeopt::strategies::long_short {

/// A trade's signal and exit bars (what a segment records of it).
struct BarPair {
  int signal, exit;
};

/// One segment's walk as recorded by walk_segment.
struct SegmentRecord {
  const BarPair* trades = nullptr;  ///< in trade order
  int count = 0;
  int end = 0;  ///< where the walk stopped: walk_from's result, or when it ran out of room the exit of its last trade
  bool complete = true;  ///< false: it ran out of room after `count` trades
};

/// Segment g's first bar when [b.begin, b.n - 1) is cut into G: cut(0) = begin, cut(G) = n - 1
/// (where the walk's entry signals end).
TPEOPT_HD_INLINE int segment_cut(const Bars& b, int G, int g) {
  return b.begin + static_cast<int>(static_cast<long long>(b.n - 1 - b.begin) * g / G);
}

/// Walks segment [from, stop) from `from`, flat, recording at most `room` trades:
/// record(q, BarPair) for the q-th. `walk(from, stop, on_exit)` is walk_from over the trial's
/// bars, or a walk with its contract (a warp's: strategies/device/warp_long_short_walk.cuh).
/// Returns the record (its `trades` left null).
TPEOPT_LONG_SHORT_NO_CHECK
template <typename Walk, typename Record>
TPEOPT_HD_INLINE SegmentRecord walk_segment_with(Walk&& walk, int from, int stop, int room, Record&& record) {
  SegmentRecord r;
  if (room <= 0) {
    r.end = from;
    r.complete = from >= stop;
    return r;
  }
  r.end = walk(from, stop, [&](const Position& pos, int j, double, int) {
    record(r.count, BarPair{pos.signal_bar, j});
    ++r.count;
    return r.count < room;
  });
  r.complete = r.count < room || r.end >= stop;
  return r;
}

/// walk_from over a trial's bars as a walk(from, stop, on_exit) for the *_with functions
/// (every argument held by reference: the lambda lives no longer than the call it is passed to).
TPEOPT_LONG_SHORT_NO_CHECK
template <typename SignalsAt>
TPEOPT_HD_INLINE auto walk_from_of(const Bars& b, const Costs& c, const int& first_valid, const double* const& atr,
                                   SignalsAt& signals) {
  return [&](int from, int stop, auto&& on_exit) {
    return walk_from(b, c, first_valid, atr, signals, from, stop, on_exit);
  };
}

/// walk_segment_with walk_from.
TPEOPT_LONG_SHORT_NO_CHECK
template <typename SignalsAt, typename Record>
TPEOPT_HD_INLINE SegmentRecord walk_segment(const Bars& b, const Costs& c, int first_valid, const double* atr,
                                            SignalsAt&& signals, int from, int stop, int room, Record&& record) {
  return walk_segment_with(walk_from_of(b, c, first_valid, atr, signals), from, stop, room, record);
}

/// The trade whose signal and exit bars the walk recorded, as the walk made it: its side
/// from signals(signal bar), its stop from atr there, and its exit as run_backtest decides
/// it at bar j: the stop first, then the exit signal of bar j - 1, else the end (the walk
/// checks neither at the entry bar, where only the end can close it: j = n - 1).
TPEOPT_LONG_SHORT_NO_CHECK
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

/// The walk over [b.begin, b.n - 1) from its segments' records: cut(g) gives c_g (cut(0) =
/// b.begin, cut(G) = b.n - 1, non-decreasing), record_of(g) segment g's record.
/// on_trade(const Trade&) receives the trades the stitch walks itself, adopt(record, k) the
/// record's trades k .. count - 1 (to be replayed in order, before anything later): together,
/// every trade of run_backtest in trade order. `walk(from, stop, on_exit)` walks what the
/// records do not know: walk_from over the trial's bars, or a walk with its contract (a
/// warp's). Returns how many it walked itself.
TPEOPT_LONG_SHORT_NO_CHECK
template <typename Walk, typename Cut, typename Records, typename OnTrade, typename Adopt>
TPEOPT_HD_INLINE int stitch_segments_with(Walk&& walk, const Costs& c, int G, Cut&& cut, Records&& record_of,
                                          OnTrade&& on_trade, Adopt&& adopt) {
  int walked = 0;
  auto trade = [&](const Position& pos, int j, double price, int reason) {
    ++walked;
    on_trade(close_position(c, pos, j, price, reason));
  };
  int st = cut(0);
  for (int g = 0; g < G; ++g) {
    const int hi = cut(g + 1);
    if (st >= hi) continue;  // a trade of an earlier segment spans this one
    const SegmentRecord r = record_of(g);
    int k = 0;  // the first recorded trade whose signal is >= st
    while (st < hi) {
      while (k < r.count && r.trades[k].signal < st) ++k;
      // st >= cut(g): flat on the segment's walk before its first trade, or after trade k - 1's exit.
      if (k == 0 || st >= r.trades[k - 1].exit) {
        if (k < r.count || r.complete) {
          adopt(r, k);
          st = r.end;
          if (r.complete) break;
        }
        st = walk(st, hi, trade);  // past what the record knows
        break;
      }
      // Inside trade k - 1's position: the true walk's next trade, then look again.
      st = walk(st, hi, [&](const Position& pos, int j, double price, int reason) {
        trade(pos, j, price, reason);
        return false;
      });
    }
  }
  return walked;
}

/// stitch_segments_with walk_from.
TPEOPT_LONG_SHORT_NO_CHECK
template <typename SignalsAt, typename Cut, typename Records, typename OnTrade, typename Adopt>
TPEOPT_HD_INLINE int stitch_segments(const Bars& b, const Costs& c, int first_valid, const double* atr,
                                     SignalsAt&& signals, int G, Cut&& cut, Records&& record_of, OnTrade&& on_trade,
                                     Adopt&& adopt) {
  return stitch_segments_with(walk_from_of(b, c, first_valid, atr, signals), c, G, cut, record_of, on_trade, adopt);
}

/// stitch_segments with the records' trades replayed one after another into on_trade.
TPEOPT_LONG_SHORT_NO_CHECK
template <typename SignalsAt, typename Cut, typename Records, typename OnTrade>
TPEOPT_HD_INLINE int stitch_segments(const Bars& b, const Costs& c, int first_valid, const double* atr,
                                     SignalsAt&& signals, int G, Cut&& cut, Records&& record_of, OnTrade&& on_trade) {
  return stitch_segments(b, c, first_valid, atr, signals, G, cut, record_of, on_trade,
                         [&](const SegmentRecord& r, int k) {
                           for (int q = k; q < r.count; ++q) on_trade(replay_trade(b, c, atr, signals, r.trades[q]));
                         });
}

}  // namespace tpeopt::strategies::long_short
