// The device series cache's bookkeeping (strategies/device/series_slots.hpp): host-only code shared by
// every CUDA twin, so tested here, on the CPU.
#include <catch2/catch.hpp>

#include <set>
#include <utility>
#include <vector>

#include "strategies/device/series_slots.hpp"

using tpeopt::gpu::DenseSlotTable;
using tpeopt::gpu::SeriesSlots;

namespace {

std::vector<int> keys_of(const std::vector<std::pair<int, int>>& placed) {
  std::vector<int> out;
  for (const auto& [k, s] : placed) out.push_back(k);
  return out;
}

template <typename Slots>
void check_lru(Slots slots) {
  REQUIRE(slots.reserve(3));
  REQUIRE(slots.slots() == 3);
  // A first part fills the slots in order.
  auto placed = slots.place({10, 11, 12});
  REQUIRE(placed == std::vector<std::pair<int, int>>{{10, 0}, {11, 1}, {12, 2}});
  // Resident keys stay where they are and are not computed again.
  placed = slots.place({11, 13});
  REQUIRE(placed == std::vector<std::pair<int, int>>{{13, 0}});  // 10 was least recently used
  CHECK(slots.slot(10) == -1);
  CHECK(slots.slot(11) == 1);
  CHECK(slots.slot(13) == 0);
  // Ties between equally old slots go to the lowest slot; the part's keys are pinned.
  placed = slots.place({14});
  REQUIRE(placed == std::vector<std::pair<int, int>>{{14, 2}});  // slot 2 (12) was used first
  placed = slots.place({13, 15, 16});
  REQUIRE(keys_of(placed) == std::vector<int>{15, 16});
  CHECK(std::set<int>{placed[0].second, placed[1].second} == std::set<int>{1, 2});
  CHECK(slots.slot(13) == 0);
  // A part larger than the pool is a broken invariant.
  CHECK_THROWS_AS(slots.place({20, 21, 22, 23}), std::logic_error);
}

}  // namespace

TEST_CASE("series slots: least recently used out, resident series stay, ties to the lowest slot", "[cpu][gpu_glue]") {
  check_lru(SeriesSlots<int>(8));
  check_lru(SeriesSlots<int, DenseSlotTable>(8, DenseSlotTable(64)));
}

TEST_CASE("series slots: the pool grows to twice its size, up to its limit, and then holds nothing",
          "[cpu][gpu_glue]") {
  SeriesSlots<int> slots(5);
  CHECK_FALSE(slots.reserve(0));
  REQUIRE(slots.reserve(2));
  CHECK(slots.slots() == 2);
  CHECK_FALSE(slots.reserve(2));  // room enough: nothing changes
  slots.place({1, 2});
  REQUIRE(slots.reserve(3));
  CHECK(slots.slots() == 4);   // max(3, 2 * 2)
  CHECK(slots.slot(1) == -1);  // the grown pool holds nothing
  REQUIRE(slots.reserve(5));
  CHECK(slots.slots() == 5);  // capped at max_slots
  CHECK(slots.max_slots() == 5);
}

TEST_CASE("series slots: each placement says the latest part that used a slot it evicted", "[cpu][gpu_glue]") {
  // What a twin whose launches overlap on the device waits for before it overwrites a series.
  SeriesSlots<int> slots(3);
  REQUIRE(slots.reserve(3));
  std::uint64_t evicted = 99;
  slots.place({1, 2, 3}, &evicted);  // part 1 fills empty slots: nothing evicted
  CHECK(slots.part() == 1);
  CHECK(evicted == 0);
  slots.place({1}, &evicted);  // part 2 reads 1 only
  CHECK(evicted == 0);
  slots.place({4}, &evicted);  // part 3 evicts 2 (last used by part 1)
  CHECK(slots.part() == 3);
  CHECK(evicted == 1);
  slots.place({4, 5, 6}, &evicted);  // part 4 evicts 1 (part 2) and 3 (part 1): the latest is 2
  CHECK(evicted == 2);
  slots.place({4, 5, 6}, &evicted);  // all resident
  CHECK(evicted == 0);
  slots.place({7}, &evicted);  // evicts one of part 5's series
  CHECK(evicted == 5);
}
