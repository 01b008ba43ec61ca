#pragma once
// The segmented walks' device steps (strategies/segment_stitch.hpp) on a full warp, shared by
// every twin that cuts walks into segments: a segment's walk recorded by lane 0, a record
// read back, and a record's trades made again 32 at a time, one per lane, then handed to
// every lane in trade order.
// CUDA translation units only.
#include <cstring>
#include <type_traits>

#include "strategies/segment_stitch.hpp"

namespace tpeopt::gpu {

/// Lane `from`'s value of a plain struct, on every lane of the warp: its bits, word by word.
template <typename T>
__device__ __forceinline__ T shfl_bits(const T& v, int from) {
  static_assert(std::is_trivially_copyable_v<T> && sizeof(T) % sizeof(unsigned) == 0);
  constexpr unsigned kFull = 0xffffffffu;
  unsigned words[sizeof(T) / sizeof(unsigned)];
  memcpy(words, &v, sizeof(T));
  for (unsigned& w : words) w = __shfl_sync(kFull, w, from);
  T o;
  memcpy(&o, words, sizeof(T));
  return o;
}

/// walk_segment_with(walk, from, stop, room) on every lane alike; lane 0 writes the trades'
/// bars to `pairs` (room of them) and the record's count, end and completeness to *record.
template <typename Walk>
__device__ __forceinline__ void record_segment(Walk&& walk, int from, int stop, int room, int lane,
                                               strategies::segments::BarPair* pairs, int4* record) {
  const strategies::segments::SegmentRecord r =
      strategies::segments::walk_segment_with(walk, from, stop, room,
                                              [&](int q, const strategies::segments::BarPair& bp) {
                                                if (lane == 0) pairs[q] = bp;
                                              });
  if (lane == 0) *record = make_int4(r.count, r.end, r.complete ? 1 : 0, 0);
}

/// Unit u's record as record_segment wrote it (units of `room` pairs each).
__device__ __forceinline__ strategies::segments::SegmentRecord read_segment(const int4* records,
                                                                            const strategies::segments::BarPair* pairs,
                                                                            long long u, int room) {
  const int4 rec = records[u];
  strategies::segments::SegmentRecord r;
  r.trades = pairs + u * room;
  r.count = rec.x;
  r.end = rec.y;
  r.complete = rec.z != 0;
  return r;
}

/// The stitch's adopt(r, k) on a full warp: the record's trades k .. count - 1, each made again
/// by replay(BarPair) on its own lane (32 at a time), handed to on_trade in trade order on
/// every lane.
template <typename Replay, typename OnTrade>
__device__ __forceinline__ void adopt_on_lanes(const strategies::segments::SegmentRecord& r, int k, int lane,
                                               Replay&& replay, OnTrade&& on_trade) {
  for (int base = k; base < r.count; base += 32) {
    const int q = base + lane;
    decltype(replay(r.trades[0])) mine{};
    if (q < r.count) mine = replay(r.trades[q]);
    const int m = min(32, r.count - base);
    for (int x = 0; x < m; ++x) on_trade(shfl_bits(mine, x));
  }
}

}  // namespace tpeopt::gpu
