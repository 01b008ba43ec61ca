// The fast acquisition's sorted runs (tpe/sorted_runs.hpp): batch after batch, the levels
// hold every observation so far in (value, index) order, each level sorted and within its
// capacity; the cursor over them and the prior's centre finds the same neighbours as the one
// merged order, by seeks in any direction, by steps, and by a tell's planned walk over a
// staged batch; a flat insert leaves one run.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

#include "support/test_rng.hpp"
#include "tpe/sorted_runs.hpp"

using namespace tpeopt::tpe::detail;
using tpeopt::testing::Rng;

namespace {

// Every observation and the prior's centre, sorted: the reference order.
std::vector<OrderEntry> reference_order(const std::vector<double>& values, double prior_mu) {
  std::vector<OrderEntry> all;
  for (std::size_t i = 0; i < values.size(); ++i) all.push_back({values[i], static_cast<std::uint32_t>(i)});
  all.push_back({prior_mu, kPriorIndex});
  std::sort(all.begin(), all.end(), [](const OrderEntry& a, const OrderEntry& b) { return precedes(a, b); });
  return all;
}

bool same(const OrderEntry& a, const OrderEntry& b) { return a.index == b.index && a.x == b.x; }

// The two neighbours on each side of the gap before reference[g] (g = size: the end)
// against the reference's; counts the disagreements.
std::size_t wrong_around(const RunCursor::Around& near, const std::vector<OrderEntry>& reference, std::size_t g) {
  std::size_t wrong = 0;
  auto check = [&](const OrderEntry& e, std::ptrdiff_t at) {
    const bool exists = at >= 0 && at < static_cast<std::ptrdiff_t>(reference.size());
    if (RunCursor::Around::present(e) != exists || (exists && !same(e, reference[static_cast<std::size_t>(at)])))
      ++wrong;
  };
  const auto gi = static_cast<std::ptrdiff_t>(g);
  check(near.before1, gi - 1);
  check(near.before2, gi - 2);
  check(near.after1, gi);
  check(near.after2, gi + 1);
  return wrong;
}

// The cursor's neighbours of the gap, by around() and by before() / after(), against the
// reference's.
std::size_t wrong_neighbours(const RunCursor& c, const std::vector<OrderEntry>& reference, std::size_t g) {
  const RunCursor::Around near = c.around();
  std::size_t wrong = wrong_around(near, reference, g);
  OrderEntry e;
  const bool has_before = c.before(e);
  if (has_before != RunCursor::Around::present(near.before1) || (has_before && !same(e, near.before1))) ++wrong;
  const bool has_after = c.after(e);
  if (has_after != RunCursor::Around::present(near.after1) || (has_after && !same(e, near.after1))) ++wrong;
  return wrong;
}

// How many elements of `run` differ from the reference order (the prior's centre left out).
std::size_t wrong_order(const SortedRun& run, const std::vector<OrderEntry>& reference) {
  std::size_t wrong = 0, p = 0;
  for (const OrderEntry& e : reference) {
    if (e.is_prior()) continue;
    wrong += p < run.size() && run.index[p] == e.index && run.value[p] == e.x ? 0 : 1;
    ++p;
  }
  return wrong + (run.size() > p ? run.size() - p : 0);
}

}  // namespace

TEST_CASE("Sorted runs hold every observation in order, and the cursor walks them as one order", "[cpu][tpe][fast]") {
  // Level 0 of 2, doubling (many levels); of 16, growing 4; of 32,768 (one level here).
  const std::size_t base = GENERATE(1, 4, 4096);
  const std::size_t growth = base == 4 ? 4 : (base == 1 ? 2 : 8);
  const bool ties = GENERATE(false, true);
  Rng rng(base * 10 + (ties ? 1 : 0));
  CAPTURE(base, growth, ties);
  const double prior_mu = 0.0;
  SortedRuns runs(base, growth);
  SortedRun scratch;
  // Before the first observation: one run, empty (g is then built from the prior alone).
  REQUIRE(runs.flat() != nullptr);
  CHECK(runs.flat()->size() == 0);
  std::vector<double> values;
  std::size_t most_levels = 0;
  for (const std::size_t batch : {1, 300, 7, 2048, 1, 999, 64, 64, 64, 3000}) {
    const std::size_t n_before = values.size();
    for (std::size_t k = 0; k < batch; ++k) {
      // With ties: a few values only (the prior's centre among them), and -0 beside +0.
      const int r = static_cast<int>(rng.below(9)) - 4;
      double x = ties ? (r == 0 && rng.below(2) == 0 ? -0.0 : 0.25 * r) : 2.0 * rng.u01() - 1.0;
      if (!ties && rng.below(50) == 0 && n_before > 0) x = values[rng.below(n_before)];  // an old value again
      values.push_back(x);
    }
    SortedRun fresh;
    std::vector<std::uint32_t> idx(batch);
    std::iota(idx.begin(), idx.end(), static_cast<std::uint32_t>(n_before));
    std::sort(idx.begin(), idx.end(),
              [&](std::uint32_t a, std::uint32_t b) { return precedes(values[a], a, values[b], b); });
    for (const std::uint32_t i : idx) {
      fresh.value.push_back(values[i]);
      fresh.index.push_back(i);
    }
    runs.insert(fresh, false, scratch);
    CAPTURE(batch, n_before);
    REQUIRE(runs.size() == values.size());

    // Each level sorted and within its capacity base x growth^(level + 1).
    std::size_t held = 0, capacity = base * growth, levels = 0;
    for (const SortedRun& level : runs.levels()) {
      CHECK(level.size() <= capacity);
      capacity *= growth;
      held += level.size();
      levels += level.size() > 0 ? 1 : 0;
      for (std::size_t p = 1; p < level.size(); ++p)
        CHECK(precedes(level.value[p - 1], level.index[p - 1], level.value[p], level.index[p]));
    }
    CHECK(held == values.size());
    most_levels = std::max(most_levels, levels);

    // gather() gives the reference order (without the prior's centre).
    const std::vector<OrderEntry> reference = reference_order(values, prior_mu);
    SortedRun all, gather_scratch;
    runs.gather(all, gather_scratch);
    REQUIRE(all.size() == values.size());
    CHECK(wrong_order(all, reference) == 0);

    // Seeks to every element, ascending (the tell's way), then in random order (the ask's).
    RunCursor cursor(runs.levels(), prior_mu);
    CHECK(wrong_neighbours(cursor, reference, 0) == 0);  // a new cursor is at the beginning
    std::size_t wrong = 0;
    for (std::size_t g = 0; g < reference.size(); ++g) {
      cursor.seek(reference[g].x, reference[g].index);
      wrong += wrong_neighbours(cursor, reference, g);
    }
    for (int k = 0; k < 500; ++k) {
      const std::size_t g = rng.below(reference.size());
      cursor.seek(reference[g].x, reference[g].index);
      wrong += wrong_neighbours(cursor, reference, g);
    }
    // Seeks to keys that are not in the order (a new batch's, between old elements).
    for (int k = 0; k < 200; ++k) {
      const std::size_t g = rng.below(reference.size());
      const OrderEntry key{reference[g].x, reference[g].is_prior() ? 0u : reference[g].index};
      std::size_t at = 0;
      while (at < reference.size() && precedes(reference[at], key)) ++at;
      if (at < reference.size() && same(reference[at], key)) continue;  // that one is present
      cursor.seek(key.x, key.index);
      wrong += wrong_neighbours(cursor, reference, at);
    }
    CHECK(wrong == 0);

    // A tell's walk: the next batch's keys (new indices) planned (runs merged through or
    // galloped), then placed key by key: around() gives the two nearest elements on each
    // side, as the reference; the stage gives each key's position in level 0.
    {
      SortedRun keys;
      std::vector<OrderEntry> key_entries;
      const std::size_t n_keys = 1 + rng.below(batch < 64 ? 64 : 2 * batch);
      for (std::size_t k = 0; k < n_keys; ++k) {
        const double x = rng.below(4) == 0 ? reference[rng.below(reference.size())].x : 2.0 * rng.u01() - 1.0;
        key_entries.push_back({x, static_cast<std::uint32_t>(values.size() + k)});
      }
      std::sort(key_entries.begin(), key_entries.end(),
                [](const OrderEntry& a, const OrderEntry& b) { return precedes(a, b); });
      for (const OrderEntry& e : key_entries) {
        keys.value.push_back(e.x);
        keys.index.push_back(e.index);
      }
      StagedBatch staged;
      runs.stage(keys, staged);
      std::size_t wrong_walk = 0;
      RunCursor walk(runs.levels(), prior_mu);
      std::vector<std::uint32_t> positions;
      walk.plan(keys, positions);
      const SortedRun& l0 = runs.level(0);
      std::size_t at = 0;  // the reference's gap before keys[k]
      for (std::size_t k = 0; k < n_keys; ++k) {
        while (at < reference.size() && precedes(reference[at], key_entries[k])) ++at;
        walk.place(positions, keys, k);
        wrong_walk += wrong_around(walk.around(), reference, at);
        // The stage's count of level 0's elements before the key.
        const std::uint32_t p = staged.level0_at[k];
        if (p > l0.size() || (p > 0 && !precedes(l0.value[p - 1], l0.index[p - 1], keys.value[k], keys.index[k])) ||
            (p < l0.size() && precedes(l0.value[p], l0.index[p], keys.value[k], keys.index[k])))
          ++wrong_walk;
      }
      CHECK(wrong_walk == 0);
    }

    // Steps: from a random gap to both ends, every element once.
    const std::size_t start = rng.below(reference.size());
    cursor.seek(reference[start].x, reference[start].index);
    RunCursor back = cursor;
    std::size_t wrong_steps = 0;
    for (std::size_t g = start; g > 0; --g) {
      back.step_back();
      wrong_steps += wrong_neighbours(back, reference, g - 1);
    }
    for (std::size_t g = start; g < reference.size(); ++g) {
      cursor.step_forward();
      wrong_steps += wrong_neighbours(cursor, reference, g + 1);
    }
    CHECK(wrong_steps == 0);
  }
  // The small bases must have spread the observations over several levels.
  if (base < 4096) CHECK(most_levels >= 3);

  // A flat insert merges every level into one run, in order (with ties: the levels are
  // merged oldest first, so equal values keep their index order).
  SortedRun one;
  values.push_back(ties ? 0.25 : 0.5);
  one.value.push_back(values.back());
  one.index.push_back(static_cast<std::uint32_t>(values.size() - 1));
  runs.insert(one, true, scratch);
  REQUIRE(runs.flat() != nullptr);
  const SortedRun& flat = *runs.flat();
  REQUIRE(flat.size() == values.size());
  CHECK(wrong_order(flat, reference_order(values, prior_mu)) == 0);
}

TEST_CASE("A flat insert keeps equal values in index order when it opens a new level", "[cpu][tpe][fast]") {
  // Level 0 holds 2, level 1 4, level 2 8 (base 1, growth 2); one equal value at a time,
  // every insert flat: each time the total outgrows a level, the levels below the new one
  // are merged into it oldest first, so the indices stay ascending.
  SortedRuns runs(1, 2);
  SortedRun scratch;
  for (std::uint32_t i = 0; i < 40; ++i) {
    SortedRun one;
    one.value.push_back(1.0);
    one.index.push_back(i);
    runs.insert(one, true, scratch);
    REQUIRE(runs.flat() != nullptr);
    const SortedRun& flat = *runs.flat();
    REQUIRE(flat.size() == i + 1);
    std::size_t out_of_order = 0;
    for (std::uint32_t p = 0; p <= i; ++p) out_of_order += flat.index[p] == p ? 0 : 1;
    CAPTURE(i);
    CHECK(out_of_order == 0);
  }
}
