#pragma once
// One axis' observations in (value, index) order, for the fast acquisition (docs/tpe.md,
// "Cost and memory"). Kept as a few sorted runs of growing capacity (a levelled
// log-structured merge): a tell merges its batch into the smallest run, and only now and
// then does a run overflow into the next, so a tell moves O(min(n, level 0) + b log n)
// elements amortized instead of the O(n) of one sorted array. RunCursor walks the runs as
// one order. Internal to the TPE sampler; in a header for the tests.
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

namespace tpeopt::tpe::detail {

/// The index that stands for the prior's centre in the order: after the observations of its
/// value (ParzenEstimator's stable order puts the prior last).
inline constexpr std::uint32_t kPriorIndex = std::numeric_limits<std::uint32_t>::max();
/// The index of "no element" (RunCursor::Around).
inline constexpr std::uint32_t kMissingIndex = kPriorIndex - 1;
/// Observations an axis can hold: their indices stay below the two reserved above.
inline constexpr std::size_t kMaxObservations = kMissingIndex;

/// One element of the order: an observation (its value and index) or the prior's centre.
struct OrderEntry {
  double x = 0.0;
  std::uint32_t index = 0;
  bool is_prior() const { return index == kPriorIndex; }
};

/// Whether (xa, ia) comes before (xb, ib) in the order.
inline bool precedes(double xa, std::uint32_t ia, double xb, std::uint32_t ib) {
  return xa < xb || (xa == xb && ia < ib);
}
inline bool precedes(const OrderEntry& a, const OrderEntry& b) { return precedes(a.x, a.index, b.x, b.index); }

/// Observations sorted by (value, index).
struct SortedRun {
  std::vector<double> value;
  std::vector<std::uint32_t> index;
  std::size_t size() const { return value.size(); }
  void clear() {
    value.clear();
    index.clear();
  }
};

/// Merges two runs into `out` (whose buffers are reused), every index of `newer` above
/// every index of `older` (as a tell's batch against the levels, and a lower level against
/// a higher one): on equal values the older comes first, so one compare of values decides.
/// With newer_at, also writes newer_at[k]: how many of older's elements come
/// before newer's k-th.
void merge_runs(const SortedRun& older, const SortedRun& newer, SortedRun& out, std::uint32_t* newer_at = nullptr);

/// A batch on its way into the runs: merged with level 0 by SortedRuns::stage, put in place
/// by commit. In between, level0_at[k] is the number of level 0's elements before the
/// batch's k-th (what the running sums' update needs of level 0, for free from the merge).
struct StagedBatch {
  SortedRun merged;
  std::vector<std::uint32_t> level0_at;
  std::size_t added = 0;
};

/// An axis' observations as levels: level i is one sorted run of at most
/// base x growth^(i+1) observations (or empty).
class SortedRuns {
 public:
  /// The sampler's: level 0 holds up to 262,144 observations, level 1 2,097,152, level 2
  /// 16,777,216. Up to level 0's capacity a tell is one merge through it, cheap per element;
  /// a higher level costs the update comparisons per new observation, which a first level
  /// of 32,768 made dearer than the merge they saved (measured with a stand-alone program while the sorted runs
  /// were written; docs/benchmarks.md, "Tell and ask at up to 1,000,000 observations, one thread", times the result).
  /// Smaller values exercise many levels in the tests.
  explicit SortedRuns(std::size_t base = 32768, std::size_t growth = 8);

  std::size_t size() const { return n_; }
  const std::vector<SortedRun>& levels() const { return levels_; }
  /// The run that holds every observation (an empty one before the first), or null when
  /// they are spread over several.
  const SortedRun* flat() const;
  /// Level i (an empty run past the last).
  const SortedRun& level(std::size_t i) const;

  /// Adds a batch sorted by (value, index) whose indices are above every held one: merged
  /// into level 0, a level over its capacity then merged into the next. With `flat`, every
  /// level is merged into one run instead (for g built straight from the order).
  /// `scratch` lends its buffers (they trade places with the levels').
  void insert(const SortedRun& batch, bool flat, SortedRun& scratch);
  /// insert() in two steps: stage() merges the batch with level 0, commit() puts it in.
  void stage(const SortedRun& batch, StagedBatch& staged) const;
  void commit(StagedBatch& staged, bool flat, SortedRun& scratch);
  /// Every observation in order, into `out` (`scratch` as for insert).
  void gather(SortedRun& out, SortedRun& scratch) const;

 private:
  std::size_t capacity(std::size_t level) const;

  std::size_t base_, growth_;
  std::vector<SortedRun> levels_;
  std::size_t n_ = 0;
};

/// A gap in the order formed by some runs and the prior's centre: for each run, how many of
/// its elements come before the gap. Moves by seek (galloping from where it is, so that a
/// series of ascending seeks costs the log of the distances) and by single steps; each look
/// at the elements beside the gap compares the runs' heads.
class RunCursor {
 public:
  // Levels grow 8-fold from 262,144 (the tests use growth 2 from 2): 16 is far beyond
  // any study, and keeps a cursor small to copy (the ask copies it to walk a neighbour).
  static constexpr std::size_t kMaxRuns = 16;

  /// Over `runs` (empty ones are skipped) and the prior's centre prior_mu, at the beginning.
  RunCursor(std::span<const SortedRun> runs, double prior_mu);

  /// How many (non-empty) runs the cursor walks, besides the prior's centre.
  std::size_t runs() const { return n_lanes_; }

  /// Moves to the gap just before (x, index): after it, after() is that element if present.
  void seek(double x, std::uint32_t index);
  /// For an ascending series of keys newer than every element of the runs (a tell's batch),
  /// the gap before each key in each run:
  /// positions[r * keys.size() + k], in one pass per run (a merge through a run
  /// up to 8 times longer than the series, galloping through a longer one). Then place(k)
  /// moves there without searching.
  void plan(const SortedRun& keys, std::vector<std::uint32_t>& positions) const;
  void place(const std::vector<std::uint32_t>& positions, const SortedRun& keys, std::size_t k) {
    const std::size_t m = keys.size();
    for (std::size_t r = 0; r < n_lanes_; ++r) lanes_[r].pos = positions[r * m + k];
    prior_before_ = precedes(prior_mu_, kPriorIndex, keys.value[k], keys.index[k]);
  }

  /// The two elements on each side of the gap, nearest first. A missing one has index
  /// kMissingIndex and an infinite value (-inf before the gap, +inf after), so that merging two
  /// Arounds needs no branch.
  struct Around {
    OrderEntry before1{-std::numeric_limits<double>::infinity(), kMissingIndex}, before2 = before1;
    OrderEntry after1{std::numeric_limits<double>::infinity(), kMissingIndex}, after2 = after1;

    static bool present(const OrderEntry& e) { return e.index != kMissingIndex; }
    /// e, or null where it is missing.
    static const OrderEntry* if_present(const OrderEntry& e) { return present(e) ? &e : nullptr; }
    /// Takes one more element of the side before / after the gap into account.
    void push_before(const OrderEntry& e) {
      if (precedes(before1, e)) {
        before2 = before1;
        before1 = e;
      } else if (precedes(before2, e)) {
        before2 = e;
      }
    }
    void push_after(const OrderEntry& e) {
      if (precedes(e, after1)) {
        after2 = after1;
        after1 = e;
      } else if (precedes(e, after2)) {
        after2 = e;
      }
    }
    /// The nearest two on each side among a's and b's (two gaps at the same place in two
    /// sets of runs). Branch-free: which set holds the nearest is a coin toss.
    static Around merge(const Around& a, const Around& b) {
      // On each side: the nearer of the two firsts, then the nearer of the other first and
      // the winner's second. Selected by indexing (GCC branches on a ternary here).
      Around m;
      {
        const bool b_nearer = precedes_bits(a.before1, b.before1);
        const OrderEntry first[2] = {a.before1, b.before1}, loser[2] = {b.before1, a.before1};
        const OrderEntry second[2] = {a.before2, b.before2};
        m.before1 = first[b_nearer];
        const OrderEntry runner_up[2] = {loser[b_nearer], second[b_nearer]};
        m.before2 = runner_up[precedes_bits(loser[b_nearer], second[b_nearer])];
      }
      {
        const bool b_nearer = precedes_bits(b.after1, a.after1);
        const OrderEntry first[2] = {a.after1, b.after1}, loser[2] = {b.after1, a.after1};
        const OrderEntry second[2] = {a.after2, b.after2};
        m.after1 = first[b_nearer];
        const OrderEntry runner_up[2] = {loser[b_nearer], second[b_nearer]};
        m.after2 = runner_up[precedes_bits(second[b_nearer], loser[b_nearer])];
      }
      return m;
    }

   private:
    static bool precedes_bits(const OrderEntry& a, const OrderEntry& b) {
      return (a.x < b.x) | ((a.x == b.x) & (a.index < b.index));
    }
  };
  Around around() const {
    Around a;
    if (n_lanes_ == 1) {
      // One run: its elements beside the gap, directly.
      const Lane& lane = lanes_[0];
      const std::size_t p = lane.pos;
      if (p >= 1) a.before1 = {lane.value[p - 1], lane.index[p - 1]};
      if (p >= 2) a.before2 = {lane.value[p - 2], lane.index[p - 2]};
      if (p < lane.n) a.after1 = {lane.value[p], lane.index[p]};
      if (p + 1 < lane.n) a.after2 = {lane.value[p + 1], lane.index[p + 1]};
    } else {
      for (std::size_t r = 0; r < n_lanes_; ++r) {
        const Lane& lane = lanes_[r];
        const std::size_t p = lane.pos;
        if (p >= 1) a.push_before({lane.value[p - 1], lane.index[p - 1]});
        if (p >= 2) a.push_before({lane.value[p - 2], lane.index[p - 2]});
        if (p < lane.n) a.push_after({lane.value[p], lane.index[p]});
        if (p + 1 < lane.n) a.push_after({lane.value[p + 1], lane.index[p + 1]});
      }
    }
    if (prior_before_) a.push_before({prior_mu_, kPriorIndex});
    else a.push_after({prior_mu_, kPriorIndex});
    return a;
  }

  /// The element just before / after the gap (false: none); around() gives two a side.
  bool before(OrderEntry& e) const { return lane_before(e) != kNone; }
  bool after(OrderEntry& e) const { return lane_after(e) != kNone; }
  /// Moves the gap past the element before / after it (which must exist).
  void step_back();
  void step_forward();

 private:
  struct Lane {
    const double* value = nullptr;
    const std::uint32_t* index = nullptr;
    std::size_t n = 0;
    std::size_t pos = 0;  // elements before the gap
  };
  // The lane (kMaxRuns: the prior) holding the element just before / after the gap, and
  // that element; kNone if there is none.
  static constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();
  std::size_t lane_before(OrderEntry& e) const;
  std::size_t lane_after(OrderEntry& e) const;
  // Lane r's new position at or after its current one, by galloping from `from`.
  std::size_t gallop_forward(std::size_t r, std::size_t from, double x, std::uint32_t index) const;
  // Lane r's first element in [lo, lo + len] not before (x, index), all before lo being so.
  std::size_t first_not_before(std::size_t r, std::size_t lo, std::size_t len, double x, std::uint32_t index) const;

  std::array<Lane, kMaxRuns> lanes_{};
  std::size_t n_lanes_ = 0;
  double prior_mu_ = 0.0;
  bool prior_before_ = false;  // whether the prior's centre is before the gap
};

}  // namespace tpeopt::tpe::detail
