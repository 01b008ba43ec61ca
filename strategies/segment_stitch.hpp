#pragma once
// One walk as segments walked at once, then stitched: the same trades, in the same order, as
// the walk itself. Shared by every strategy whose walk has the property below
// (docs/strategies.md names them); each supplies its walk and how a recorded trade is made
// again.
//
// A long walk is a chain of dependent steps, and a batch of few trials over a long series
// leaves a GPU with one such chain per trial, nearly empty. While flat, such a walk is a
// function of its scan position alone (an entry at the first signal s from the scan
// position, its exit bar j found, the scan going on at j), so it can be cut: [c_0, c_G) at
// cuts c_0 < ... < c_G, segment g's walk starting flat at c_g and opening positions only at
// signals in [c_g, c_{g+1}) (walk_segment_with), every segment at once, each recording its
// trades' (signal, exit) bars. The true walk enters segment g at some scan position
// st >= c_g; where st falls on the segment's own walk decides what is known
// (stitch_segments_with): where that walk was flat (before its first signal, or between an
// exit and the next signal it took) the two walks take the same next trade and agree from
// there on, so the segment's recorded trades are the true ones; inside one of its positions,
// the true walk takes its own next trade and looks again.
//
// The walk's contract: walk(from, stop, on_exit) walks flat from scan position `from`,
// opening positions only at signals before `stop`, calls on_exit(position, j, more...) for
// each trade in trade order (position.signal_bar its signal bar, j its exit bar; `more` what
// else the strategy's walk reports), ends after a trade where on_exit returns false, and
// returns where the scan stands when it ends: the exit bar of its last trade when that is
// >= stop or on_exit ended it, else stop.
#include "common/hd.hpp"

namespace tpeopt::strategies::segments {

/// A trade's signal and exit bars (what a segment records of it).
struct BarPair {
  int signal, exit;
};

/// One segment's walk as recorded by walk_segment_with.
struct SegmentRecord {
  const BarPair* trades = nullptr;  ///< in trade order
  int count = 0;
  int end = 0;           ///< where the walk stopped: its result, or when it ran out of room the exit of its last trade
  bool complete = true;  ///< false: it ran out of room after `count` trades
};

/// Cut g of [first, last) cut into G segments: cut_at(.., 0) = first, cut_at(.., G) = last.
TPEOPT_HD_INLINE int cut_at(int first, int last, int G, int g) {
  return first + static_cast<int>(static_cast<long long>(last - first) * g / G);
}

/// The walk of a strategy whose walk_from(bars, params, series, from, stop, find_signal,
/// find_exit, on_exit) has the contract above, as a walk(from, stop, on_exit): walk_from is the
/// one of the namespace of the strategy's types (found by argument-dependent lookup). Every
/// argument is held by reference: the lambda lives no longer than the call it is passed to.
TPEOPT_HD_NO_CHECK
template <typename Bars, typename Params, typename Series, typename SignalFinder, typename ExitFinder>
TPEOPT_HD_INLINE auto walk_of(const Bars& b, const Params& p, const Series& t, SignalFinder& find_signal,
                              ExitFinder& find_exit) {
  return [&](int from, int stop, auto&& on_exit) {
    return walk_from(b, p, t, from, stop, find_signal, find_exit, on_exit);
  };
}

/// Walks segment [from, stop) from `from`, flat, recording at most `room` trades:
/// record(q, BarPair) for the q-th. Returns the record (its `trades` left null).
TPEOPT_HD_NO_CHECK
template <typename Walk, typename Record>
TPEOPT_HD_INLINE SegmentRecord walk_segment_with(Walk&& walk, int from, int stop, int room, Record&& record) {
  SegmentRecord r;
  if (room <= 0) {
    r.end = from;
    r.complete = from >= stop;
    return r;
  }
  r.end = walk(from, stop, [&](const auto& pos, int j, const auto&...) {
    record(r.count, BarPair{pos.signal_bar, j});
    ++r.count;
    return r.count < room;
  });
  r.complete = r.count < room || r.end >= stop;
  return r;
}

/// The walk from scan position `start` (>= cut(0)) to cut(G) from its segments' records:
/// cut(g) gives c_g (non-decreasing), record_of(g) segment g's record. on_walked(position, j,
/// more...) receives the trades the stitch walks itself, adopt(record, k) the record's trades
/// k .. count - 1 (to be made again in order, before anything later): together, every trade
/// of the walk from `start`, in trade order. `walk` walks what the records do not know.
/// Returns how many trades it walked itself.
TPEOPT_HD_NO_CHECK
template <typename Walk, typename Cut, typename Records, typename OnWalked, typename Adopt>
TPEOPT_HD_INLINE int stitch_segments_with(Walk&& walk, int start, int G, Cut&& cut, Records&& record_of,
                                          OnWalked&& on_walked, Adopt&& adopt) {
  int walked = 0;
  auto trade = [&](const auto& pos, int j, const auto&... more) {
    ++walked;
    on_walked(pos, j, more...);
  };
  int st = start;
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
      st = walk(st, hi, [&](const auto& pos, int j, const auto&... more) {
        trade(pos, j, more...);
        return false;
      });
    }
  }
  return walked;
}

}  // namespace tpeopt::strategies::segments
