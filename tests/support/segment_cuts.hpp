#pragma once
// The cuts the CPU tests of segmented walks try (strategies/segment_stitch.hpp): for one
// trial's reference trades, every cut into G segments with room for `room` trades each gives
// the same trades, bit for bit (same_trade); one segment with room for everything leaves the
// stitch nothing to walk; no room leaves it everything.
#include <catch2/catch.hpp>

#include <cstddef>
#include <vector>

namespace tpeopt::testing {

/// Trades the stitch walked itself and took from the records, at cuts of 2 to 7 segments with
/// room for every trade.
struct StitchTally {
  std::size_t stitched = 0, adopted = 0;
};

/// segmented(G, room, &walked) returns the trades of the walk cut into G segments with room
/// for `room` trades each, and sets `walked` to how many the stitch walked itself.
template <typename Trade, typename Segmented, typename SameTrade>
void check_every_cut(const std::vector<Trade>& reference, Segmented&& segmented, SameTrade&& same_trade,
                     StitchTally& tally) {
  for (const int G : {1, 2, 3, 7, 64, 997}) {
    for (const int room : {0, 1, 3, 1 << 20}) {
      CAPTURE(G, room, reference.size());
      int walked = 0;
      const std::vector<Trade> got = segmented(G, room, &walked);
      REQUIRE(got.size() == reference.size());
      bool same = true;
      for (std::size_t i = 0; i < got.size(); ++i) same = same && same_trade(got[i], reference[i]);
      CHECK(same);
      if (room == (1 << 20) && G > 1 && G <= 7) {
        tally.stitched += static_cast<std::size_t>(walked);
        tally.adopted += got.size() - static_cast<std::size_t>(walked);
      }
      if (G == 1 && room == (1 << 20)) CHECK(walked == 0);
      if (room == 0) CHECK(walked == static_cast<int>(reference.size()));
    }
  }
}

}  // namespace tpeopt::testing
