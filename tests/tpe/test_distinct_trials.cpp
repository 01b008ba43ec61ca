// Batch TPE's distinct trials (docs/tpe.md, "Distinct trials"): the window of recent rows, a
// batch of a converged discrete search without repeats (and with them when the key is off),
// the same rows for any thread count, depth and after a resume, and the rows of a space
// smaller than the budget.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <deque>
#include <map>
#include <set>
#include <vector>

#include "support/sampler_fixtures.hpp"
#include "tpe/batch_tpe_sampler.hpp"
#include "tpe/recent_rows.hpp"
#include "tpe/trial_rng.hpp"

using namespace tpeopt;
using namespace tpeopt::testing;
using tpe::BatchTpeConfig;
using tpe::BatchTpeSampler;
using tpe::Direction;
using tpe::RecentRows;
using tpe::row_key;

namespace {

// Four int axes of 12 values: 20,736 points, a bowl with its minimum at (3, 7, 9, 2). Batch
// TPE converges on it in a few batches and then proposes mostly rows it has asked.
SearchSpace grid_space() {
  SearchSpace s;
  for (const char* name : {"a", "b", "c", "d"}) s.axes.push_back(int_axis(name, 0, 11));
  return s;
}

TrialOutcome bowl(const double* p, std::uint64_t) {
  const double centre[4] = {3, 7, 9, 2};
  double f = 0.0;
  for (int a = 0; a < 4; ++a) f += (a + 1) * (p[a] - centre[a]) * (p[a] - centre[a]);
  return {f, 0.0};
}

std::size_t distinct_rows(const std::vector<double>& params, std::size_t d, std::size_t first, std::size_t n) {
  std::set<std::vector<double>> rows;
  for (std::size_t t = first; t < first + n; ++t) rows.insert({&params[t * d], &params[t * d] + d});
  return rows.size();
}

BatchTpeConfig config_with(bool distinct, unsigned threads = 1) {
  BatchTpeConfig c;
  c.distinct = distinct;
  c.threads = threads;
  return c;
}

}  // namespace

TEST_CASE("RecentRows: keys of equal rows, a window of the newest rows", "[cpu][tpe][batch][distinct]") {
  const double a[3] = {1.0, 2.0, 0.0}, same[3] = {1.0, 2.0, -0.0}, other[3] = {1.0, 2.0, 3.0};
  CHECK(row_key(a, 3) == row_key(same, 3));
  CHECK(row_key(a, 3) != row_key(other, 3));
  CHECK(row_key(a, 2) != row_key(a, 3));
  RecentRows window(3);
  for (std::uint64_t k : {10u, 11u, 10u}) window.record(k);
  CHECK(window.size() == 3);
  CHECK(window.contains(10));
  window.record(12);  // the first 10 leaves; the second stays
  CHECK(window.contains(10));
  CHECK(window.contains(11));
  window.record(13);  // 11 leaves
  CHECK_FALSE(window.contains(11));
  window.record(14);  // the second 10 leaves
  CHECK_FALSE(window.contains(10));
  CHECK(window.contains(12));
  CHECK(window.contains(13));
  CHECK(window.contains(14));
  CHECK(window.size() == 3);
  CHECK_THROWS(RecentRows(0));
}

TEST_CASE("RecentRows: colliding keys, wrap-around, growth and deletion against a brute-force window",
          "[cpu][tpe][batch][distinct]") {
  // Keys whose low bits collide (the table indexes by them), key 0, and keys recorded several
  // times in the window: contains() must equal membership in a plain queue of the last rows.
  for (std::size_t capacity : {1u, 2u, 3u, 33u, 1000u}) {
    CAPTURE(capacity);
    RecentRows window(capacity);
    std::deque<std::uint64_t> last;
    std::map<std::uint64_t, int> held;
    tpe::SplitMix64 rng(capacity);
    std::size_t mismatches = 0;
    for (int op = 0; op < 40000; ++op) {
      const std::uint64_t id = rng() % (2 * capacity + 3);
      const std::uint64_t low = rng() % 4 == 0 ? 63 : rng() % 8;  // 63: the last slot of 64, wraps
      const std::uint64_t key = id == 0 ? 0 : (id << 20) | low;
      window.record(key);
      last.push_back(key);
      ++held[key];
      if (last.size() > capacity) {
        if (--held[last.front()] == 0) held.erase(last.front());
        last.pop_front();
      }
      const std::uint64_t probe = rng() % (2 * capacity + 3);
      const std::uint64_t probe_key = probe == 0 ? 0 : (probe << 20) | (rng() % 4 == 0 ? 63 : rng() % 8);
      if (window.contains(probe_key) != (held.count(probe_key) != 0)) ++mismatches;
      if (window.size() != last.size()) ++mismatches;
    }
    CHECK(mismatches == 0);
  }
}

TEST_CASE("Batch TPE: a converged discrete search asks no row twice", "[cpu][tpe][batch][distinct]") {
  const SearchSpace space = grid_space();
  const std::size_t d = space.size(), n_trials = 4000, batch = 200;
  BatchTpeSampler on(space, Direction::Minimize, 5, config_with(true));
  const auto with = run_schedule(on, d, n_trials, batch, 2, bowl);
  // The first two blocks are random (asked before anything is told, at depth 2): the random
  // sampler's rows, repeats allowed. No later row repeats one of them or another later row.
  const std::size_t random = 2 * batch;
  CHECK(distinct_rows(with, d, random, n_trials - random) == n_trials - random);
  CHECK(distinct_rows(with, d, 0, n_trials) == distinct_rows(with, d, 0, random) + n_trials - random);
  // Off, the same search repeats rows: what the check above excludes happens.
  BatchTpeSampler off(space, Direction::Minimize, 5, config_with(false));
  const auto without = run_schedule(off, d, n_trials, batch, 2, bowl);
  CHECK(distinct_rows(without, d, random, n_trials - random) < (n_trials - random) / 2);
  // Both find the minimum.
  auto best = [&](const std::vector<double>& p) {
    double f = INFINITY;
    for (std::size_t t = 0; t < n_trials; ++t) f = std::min(f, bowl(&p[t * d], t).score);
    return f;
  };
  CHECK(best(with) == 0.0);
  CHECK(best(without) == 0.0);
}

TEST_CASE("Batch TPE: distinct rows are the same for every thread count, depth and resume",
          "[cpu][tpe][batch][distinct][determinism]") {
  const SearchSpace space = grid_space();
  const std::size_t d = space.size(), n_trials = 3000, batch = 150;
  const std::size_t depth = GENERATE(1u, 2u, 3u);
  CAPTURE(depth);
  BatchTpeSampler one(space, Direction::Minimize, 9, config_with(true, 1));
  const auto expected = run_schedule(one, d, n_trials, batch, depth, bowl);
  for (unsigned threads : {2u, 4u}) {
    CAPTURE(threads);
    BatchTpeSampler many(space, Direction::Minimize, 9, config_with(true, threads));
    const auto got = run_schedule(many, d, n_trials, batch, depth, bowl);
    REQUIRE(std::memcmp(got.data(), expected.data(), got.size() * sizeof(double)) == 0);
  }
  // Resume: the first 7 blocks adopted from the journal, the rest asked.
  BatchTpeSampler resumed(space, Direction::Minimize, 9, config_with(true, 3));
  const auto params = run_resumed_schedule(resumed, expected, d, n_trials, batch, depth, 7, bowl);
  REQUIRE(std::memcmp(params.data(), expected.data(), params.size() * sizeof(double)) == 0);
}

TEST_CASE("Batch TPE: a row evicted from the window may be asked again, and a resume across evictions is exact",
          "[cpu][tpe][batch][distinct][determinism]") {
  const SearchSpace space = grid_space();
  const std::size_t d = space.size(), n_trials = 6000, batch = 500;  // batches of 500: rounds on the workers
  BatchTpeConfig small = config_with(true, 1);
  small.distinct_window = 700;  // less than two batches
  BatchTpeSampler one(space, Direction::Minimize, 13, small);
  const auto expected = run_schedule(one, d, n_trials, batch, 2, bowl);
  // Blocks 0 and 1 are random (asked before anything is told). From block 3 on, a block and
  // the one before it (inside the window when it is asked) repeat no row...
  for (std::size_t k = 3; k < n_trials / batch; ++k)
    REQUIRE(distinct_rows(expected, d, (k - 1) * batch, 2 * batch) == 2 * batch);
  // ...but over the run, rows evicted from the window were asked again: the search stays in
  // a few hundred points near the minimum.
  CHECK(distinct_rows(expected, d, batch, n_trials - batch) < n_trials - batch);
  // Threads and resume give the same rows with the small window too.
  small.threads = 4;
  BatchTpeSampler many(space, Direction::Minimize, 13, small);
  REQUIRE(run_schedule(many, d, n_trials, batch, 2, bowl) == expected);
  BatchTpeSampler resumed(space, Direction::Minimize, 13, small);  // 5 blocks adopted, after evictions
  const auto params = run_resumed_schedule(resumed, expected, d, n_trials, batch, 2, 5, bowl);
  REQUIRE(std::memcmp(params.data(), expected.data(), params.size() * sizeof(double)) == 0);
}

TEST_CASE("Batch TPE: a space smaller than the budget is asked whole, then repeats", "[cpu][tpe][batch][distinct]") {
  SearchSpace space;
  space.axes.push_back(int_axis("a", 0, 9));
  space.axes.push_back(int_axis("b", 0, 4));  // 50 points
  const std::size_t d = space.size(), batch = 20, n_trials = 200;
  BatchTpeSampler sampler(space, Direction::Minimize, 3, config_with(true));
  const auto params = run_schedule(sampler, d, n_trials, batch, 1, [](const double* p, std::uint64_t) {
    return TrialOutcome{p[0] + p[1], 0.0};
  });
  // Every point is asked by the end; all rows stay in the domain.
  CHECK(distinct_rows(params, d, 0, n_trials) == 50);
  for (std::size_t t = 0; t < n_trials; ++t)
    for (std::size_t a = 0; a < d; ++a) REQUIRE(in_domain(space.axes[a], params[t * d + a]));
}
