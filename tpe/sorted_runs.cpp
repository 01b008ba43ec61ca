#include "tpe/sorted_runs.hpp"

#include <algorithm>
#include <utility>

#include "common/error.hpp"

namespace tpeopt::tpe::detail {

namespace {

template <bool kRecord>
void merge_into(const SortedRun& a, const SortedRun& b, SortedRun& out, std::uint32_t* b_at) {
  const std::size_t n = a.size() + b.size();
  // The output trades places with a level: room for a few more batches keeps later merges
  // from allocating (and faulting in) fresh pages every time.
  if (out.value.capacity() < n) out.value.reserve(n + n / 4);
  if (out.index.capacity() < n) out.index.reserve(n + n / 4);
  out.value.resize(n);
  out.index.resize(n);
  // Raw pointers, none aliasing another: the loop then keeps the sizes and bases in
  // registers.
  const double* __restrict__ av = a.value.data();
  const std::uint32_t* __restrict__ ai = a.index.data();
  const double* __restrict__ bv = b.value.data();
  const std::uint32_t* __restrict__ bi = b.index.data();
  double* __restrict__ ov = out.value.data();
  std::uint32_t* __restrict__ oi = out.index.data();
  std::uint32_t* __restrict__ at = b_at;
  const std::size_t na = a.size(), nb = b.size();
  // For each newer element, the older ones that come before it, then it. The newer run is
  // usually a batch much smaller than the older (a level), so the inner loop mostly goes on
  // and is predicted; a branch-free merge (one select per element whichever run it comes
  // from) measured 2.4 times slower at 100,000 + 4,096 on the 2-core box.
  std::size_t x = 0, o = 0;
  for (std::size_t y = 0; y < nb; ++y) {
    const double v = bv[y];
    while (x < na && !(v < av[x])) {  // an equal value: the older first
      ov[o] = av[x];
      oi[o] = ai[x];
      ++o;
      ++x;
    }
    if constexpr (kRecord) at[y] = static_cast<std::uint32_t>(x);
    ov[o] = v;
    oi[o] = bi[y];
    ++o;
  }
  std::copy(av + x, av + na, ov + o);
  std::copy(ai + x, ai + na, oi + o);
}

}  // namespace

void merge_runs(const SortedRun& older, const SortedRun& newer, SortedRun& out, std::uint32_t* newer_at) {
  if (newer_at != nullptr) merge_into<true>(older, newer, out, newer_at);
  else merge_into<false>(older, newer, out, nullptr);
}

SortedRuns::SortedRuns(std::size_t base, std::size_t growth) : base_(base), growth_(growth) {
  if (base_ < 1 || growth_ < 2) throw make_error("sorted runs: base must be >= 1 and growth >= 2");
}

std::size_t SortedRuns::capacity(std::size_t level) const {
  std::size_t c = base_ * growth_;
  for (std::size_t i = 0; i < level && c < std::numeric_limits<std::size_t>::max() / growth_; ++i) c *= growth_;
  return c;
}

namespace {
const SortedRun kEmptyRun;
}  // namespace

const SortedRun* SortedRuns::flat() const {
  const SortedRun* only = &kEmptyRun;
  for (const SortedRun& run : levels_) {
    if (run.size() == 0) continue;
    if (only->size() != 0) return nullptr;
    only = &run;
  }
  return only;
}

const SortedRun& SortedRuns::level(std::size_t i) const { return i < levels_.size() ? levels_[i] : kEmptyRun; }

void SortedRuns::insert(const SortedRun& batch, bool flat, SortedRun& scratch) {
  StagedBatch staged;
  stage(batch, staged);
  commit(staged, flat, scratch);
}

void SortedRuns::stage(const SortedRun& batch, StagedBatch& staged) const {
  // The levels the commit's cascade will reach, checked before anything changes.
  std::size_t carried = level(0).size() + batch.size(), reached = 0;
  while (carried > capacity(reached)) {
    ++reached;
    carried += level(reached).size();
  }
  if (std::max(reached + 1, levels_.size()) > RunCursor::kMaxRuns)
    throw make_error("sorted runs: {} levels, more than a cursor walks ({})", reached + 1, RunCursor::kMaxRuns);
  staged.level0_at.resize(batch.size());
  merge_runs(level(0), batch, staged.merged, staged.level0_at.data());
  staged.added = batch.size();
}

void SortedRuns::commit(StagedBatch& staged, bool flat, SortedRun& scratch) {
  if (levels_.empty()) levels_.emplace_back();
  std::swap(levels_[0], staged.merged);  // the old level 0's buffers go back to the stage
  n_ += staged.added;
  staged.added = 0;
  if (flat) {
    // Everything, merged oldest level first, into the first level that can hold it.
    std::size_t target = 0;
    while (capacity(target) < n_) ++target;
    SortedRun all;
    gather(all, scratch);
    for (SortedRun& level : levels_) level = SortedRun();
    if (levels_.size() <= target) levels_.resize(target + 1);
    std::swap(levels_[target], all);
    return;
  }
  for (std::size_t i = 0; levels_[i].size() > capacity(i); ++i) {
    if (i + 1 == levels_.size()) levels_.emplace_back();
    merge_runs(levels_[i + 1], levels_[i], scratch);
    std::swap(levels_[i + 1], scratch);
    // Level 0 refills at the next tell and keeps its buffer; a drained higher level refills
    // only over many tells, so its memory goes back.
    if (i == 0) levels_[i].clear();
    else levels_[i] = SortedRun();
  }
}

void SortedRuns::gather(SortedRun& out, SortedRun& scratch) const {
  out.clear();
  for (const SortedRun& run : levels_) {  // from the newest level to the oldest: `out` is newer
    if (run.size() == 0) continue;
    merge_runs(run, out, scratch);
    std::swap(out, scratch);
  }
}

RunCursor::RunCursor(std::span<const SortedRun> runs, double prior_mu) : prior_mu_(prior_mu) {
  for (const SortedRun& run : runs) {
    if (run.size() == 0) continue;
    if (n_lanes_ == kMaxRuns) throw make_error("sorted runs: more than {} runs for a cursor", kMaxRuns);
    lanes_[n_lanes_++] = {run.value.data(), run.index.data(), run.size(), 0};
  }
}

std::size_t RunCursor::first_not_before(std::size_t r, std::size_t lo, std::size_t len, double x,
                                        std::uint32_t index) const {
  // Branch-free: the halvings' outcomes are coin tosses.
  const Lane& lane = lanes_[r];
  while (len > 0) {
    const std::size_t half = len / 2;
    const bool right = precedes(lane.value[lo + half], lane.index[lo + half], x, index);
    lo = right ? lo + half + 1 : lo;
    len = right ? len - half - 1 : half;
  }
  return lo;
}

std::size_t RunCursor::gallop_forward(std::size_t r, std::size_t from, double x, std::uint32_t index) const {
  const Lane& lane = lanes_[r];
  // Every element before `lo` precedes the key; probe lo, lo + 1, lo + 3, lo + 7, ...
  std::size_t lo = from, bound = 1;
  while (lo + bound - 1 < lane.n && precedes(lane.value[lo + bound - 1], lane.index[lo + bound - 1], x, index)) {
    lo += bound;
    bound *= 2;
  }
  return first_not_before(r, lo, std::min(lane.n, lo + bound - 1) - lo, x, index);
}

void RunCursor::seek(double x, std::uint32_t index) {
  for (std::size_t r = 0; r < n_lanes_; ++r) {
    Lane& lane = lanes_[r];
    if (lane.pos < lane.n && precedes(lane.value[lane.pos], lane.index[lane.pos], x, index))
      lane.pos = gallop_forward(r, lane.pos + 1, x, index);  // ahead: the tell's and the ask's usual way
    else if (lane.pos > 0 && !precedes(lane.value[lane.pos - 1], lane.index[lane.pos - 1], x, index))
      lane.pos = first_not_before(r, 0, lane.pos - 1, x, index);  // behind: anywhere before
  }
  prior_before_ = precedes(prior_mu_, kPriorIndex, x, index);
}

void RunCursor::plan(const SortedRun& keys, std::vector<std::uint32_t>& positions) const {
  const std::size_t m = keys.size();
  // A merge step is cheap, a galloping probe mispredicts: merge through runs up to 8 times
  // the series' length, gallop through longer ones (the big levels).
  constexpr std::size_t kMergeRatio = 8;
  positions.resize(n_lanes_ * m);
  const double* kv = keys.value.data();
  const std::uint32_t* ki = keys.index.data();
  for (std::size_t r = 0; r < n_lanes_; ++r) {
    const Lane& lane = lanes_[r];
    std::uint32_t* out = positions.data() + r * m;
    if (lane.n <= kMergeRatio * m) {
      // A merge: the run's elements before each key (equal values: the run's are older).
      std::size_t p = 0;
      for (std::size_t k = 0; k < m; ++k) {
        while (p < lane.n && lane.value[p] <= kv[k]) ++p;
        out[k] = static_cast<std::uint32_t>(p);
      }
    } else {
      std::size_t p = 0;
      for (std::size_t k = 0; k < m; ++k) {
        if (p < lane.n && precedes(lane.value[p], lane.index[p], kv[k], ki[k]))
          p = gallop_forward(r, p + 1, kv[k], ki[k]);
        out[k] = static_cast<std::uint32_t>(p);
      }
    }
  }
}

std::size_t RunCursor::lane_before(OrderEntry& e) const {
  std::size_t best = kNone;
  for (std::size_t r = 0; r < n_lanes_; ++r) {
    const Lane& lane = lanes_[r];
    if (lane.pos == 0) continue;
    const std::size_t p = lane.pos - 1;
    if (best == kNone || precedes(e.x, e.index, lane.value[p], lane.index[p])) {
      e = {lane.value[p], lane.index[p]};
      best = r;
    }
  }
  if (prior_before_ && (best == kNone || precedes(e.x, e.index, prior_mu_, kPriorIndex))) {
    e = {prior_mu_, kPriorIndex};
    best = kMaxRuns;
  }
  return best;
}

std::size_t RunCursor::lane_after(OrderEntry& e) const {
  std::size_t best = kNone;
  for (std::size_t r = 0; r < n_lanes_; ++r) {
    const Lane& lane = lanes_[r];
    const std::size_t p = lane.pos;
    if (p >= lane.n) continue;
    if (best == kNone || precedes(lane.value[p], lane.index[p], e.x, e.index)) {
      e = {lane.value[p], lane.index[p]};
      best = r;
    }
  }
  if (!prior_before_ && (best == kNone || precedes(prior_mu_, kPriorIndex, e.x, e.index))) {
    e = {prior_mu_, kPriorIndex};
    best = kMaxRuns;
  }
  return best;
}

void RunCursor::step_back() {
  OrderEntry e;
  const std::size_t r = lane_before(e);
  if (r == kMaxRuns) prior_before_ = false;
  else if (r != kNone) --lanes_[r].pos;
}

void RunCursor::step_forward() {
  OrderEntry e;
  const std::size_t r = lane_after(e);
  if (r == kMaxRuns) prior_before_ = true;
  else if (r != kNone) ++lanes_[r].pos;
}

}  // namespace tpeopt::tpe::detail
