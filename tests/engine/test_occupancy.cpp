// [cpu]: the device occupancy figure (strategies/device/occupancy.hpp) and the timeline of batches that
// overlap on the device (engine/batch_timings.hpp). The probe's rule is the one the kernels
// run (probe_block_start / probe_block_end), replayed here over block intervals with plain
// operations and compared with the union of the intervals computed directly.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "engine/batch_timings.hpp"
#include "engine/pipeline.hpp"
#include "strategies/device/occupancy.hpp"

using namespace tpeopt;

namespace {

struct PlainOps {
  unsigned long long add(unsigned long long* p, unsigned long long v) {
    const unsigned long long old = *p;
    *p = old + v;
    return old;
  }
  void min(unsigned long long* p, unsigned long long v) { *p = std::min(*p, v); }
  void max(unsigned long long* p, unsigned long long v) { *p = std::max(*p, v); }
};

struct Block {
  int sm;
  unsigned long long start, end;
};

/// The probe words after replaying `blocks` in time order (an end before a start at the
/// same time, as a block that leaves lets the next one in), as the device leaves them.
std::vector<unsigned long long> replay(const std::vector<Block>& blocks, int ids) {
  std::vector<unsigned long long> w(gpu::ProbeLayout::words(ids), 0ull);
  w[gpu::ProbeLayout::kFirst] = ~0ull;
  struct Ev {
    unsigned long long t;
    bool is_start;
    int sm;
  };
  std::vector<Ev> events;
  for (const Block& b : blocks) {
    events.push_back({b.start, true, b.sm});
    events.push_back({b.end, false, b.sm});
  }
  std::stable_sort(events.begin(), events.end(),
                   [](const Ev& a, const Ev& b) { return a.t < b.t || (a.t == b.t && !a.is_start && b.is_start); });
  PlainOps ops;
  for (const Ev& e : events) {
    if (e.is_start) gpu::probe_block_start(ops, w.data(), ids, e.sm, e.t);
    else gpu::probe_block_end(ops, w.data(), ids, e.sm, e.t);
  }
  return w;
}

/// The length of the union of each SM's block intervals, summed over the SMs.
double union_ns(std::vector<Block> blocks, int ids) {
  double total = 0;
  for (int sm = 0; sm < ids; ++sm) {
    std::vector<Block> mine;
    for (const Block& b : blocks)
      if (b.sm == sm) mine.push_back(b);
    std::sort(mine.begin(), mine.end(), [](const Block& a, const Block& b) { return a.start < b.start; });
    unsigned long long cur_b = 0, cur_e = 0;
    bool open = false;
    for (const Block& b : mine) {
      if (open && b.start <= cur_e) {
        cur_e = std::max(cur_e, b.end);
        continue;
      }
      if (open) total += static_cast<double>(cur_e - cur_b);
      cur_b = b.start;
      cur_e = b.end;
      open = true;
    }
    if (open) total += static_cast<double>(cur_e - cur_b);
  }
  return total;
}

engine::Interval at(double begin_ms, double end_ms) {
  const auto t0 = engine::Clock::time_point{} + std::chrono::hours(1);
  auto ms = [&](double v) {
    return t0 + std::chrono::duration_cast<engine::Clock::duration>(std::chrono::duration<double, std::milli>(v));
  };
  return {ms(begin_ms), ms(end_ms)};
}

}  // namespace

TEST_CASE("occupancy probe: busy is the union of each SM's block intervals", "[cpu][occupancy]") {
  const int n_sm = 8, ids = gpu::ProbeLayout::probe_ids(n_sm);
  std::mt19937_64 rng(GENERATE(1u, 2u, 3u, 4u, 5u));
  std::vector<Block> blocks;
  // Several blocks resident on an SM at once, gaps between them, one SM never used, and an
  // id past the SM count (ids fold into the probe's room, not onto the SMs).
  for (int k = 0; k < 400; ++k) {
    const int sm = std::uniform_int_distribution<int>(0, n_sm - 2)(rng) + (k % 97 == 0 ? n_sm + 1 : 0);
    const unsigned long long start = 1'000'000 + std::uniform_int_distribution<unsigned long long>(0, 5'000'000)(rng);
    const unsigned long long len = std::uniform_int_distribution<unsigned long long>(0, 200'000)(rng);
    blocks.push_back({sm, start, start + len});
  }
  const auto w = replay(blocks, ids);
  unsigned long long first = ~0ull, last = 0;
  for (const Block& b : blocks) {
    first = std::min(first, b.start);
    last = std::max(last, b.end);
  }
  CHECK(w[gpu::ProbeLayout::kFirst] == first);
  CHECK(w[gpu::ProbeLayout::kLast] == last);
  CHECK(w[gpu::ProbeLayout::kBlocks] == blocks.size());
  for (int id = 0; id < ids; ++id) CHECK(w[gpu::ProbeLayout::kBusy + ids + id] == 0ull);  // every block ended
  const gpu::SmTime t = gpu::sm_time_from_probe(w.data(), ids, n_sm);
  const double expected_busy_ms = union_ns(blocks, ids) / 1e6;
  CHECK(t.busy_ms == Approx(expected_busy_ms).epsilon(1e-12));
  CHECK(t.span_ms == Approx(n_sm * static_cast<double>(last - first) / 1e6).epsilon(1e-12));
  const double f = engine::occupancy_fraction(t.busy_ms, t.span_ms);
  CHECK(f > 0.0);
  CHECK(f < 1.0);
  CHECK(f == Approx(expected_busy_ms / t.span_ms));
}

TEST_CASE("occupancy probe: an idle tail lowers the figure, a full device gives 1", "[cpu][occupancy]") {
  const int n_sm = 4, ids = gpu::ProbeLayout::probe_ids(n_sm);
  // Every SM busy for the whole span: 1.
  std::vector<Block> full;
  for (int sm = 0; sm < n_sm; ++sm) full.push_back({sm, 100, 1100});
  const auto wf = replay(full, ids);
  const auto tf = gpu::sm_time_from_probe(wf.data(), ids, n_sm);
  CHECK(engine::occupancy_fraction(tf.busy_ms, tf.span_ms) == Approx(1.0));
  // Back-to-back blocks on one SM (an end and a start at the same time) count once.
  std::vector<Block> chained = {{0, 100, 600}, {0, 600, 1100}, {1, 100, 1100}, {2, 100, 1100}, {3, 100, 1100}};
  const auto wc = replay(chained, ids);
  const auto tc = gpu::sm_time_from_probe(wc.data(), ids, n_sm);
  CHECK(engine::occupancy_fraction(tc.busy_ms, tc.span_ms) == Approx(1.0));
  // The same work, then one SM alone for as long again (an idle tail): 5/8.
  std::vector<Block> tail = full;
  tail.push_back({2, 1100, 2100});
  const auto wt = replay(tail, ids);
  const auto tt = gpu::sm_time_from_probe(wt.data(), ids, n_sm);
  CHECK(engine::occupancy_fraction(tt.busy_ms, tt.span_ms) == Approx(5.0 / 8.0));
  // Nothing recorded: no figure.
  std::vector<unsigned long long> empty(gpu::ProbeLayout::words(ids), 0ull);
  empty[gpu::ProbeLayout::kFirst] = ~0ull;
  const auto te = gpu::sm_time_from_probe(empty.data(), ids, n_sm);
  CHECK(te.busy_ms == 0.0);
  CHECK(te.span_ms == 0.0);
  CHECK(std::isnan(engine::occupancy_fraction(te.busy_ms, te.span_ms)));
  CHECK(engine::occupancy_fraction(2.0, 1.0) == 1.0);  // crossed clock reads never exceed 1
}

TEST_CASE("executor timeline: overlapping batches count once, idle is measured after the latest end",
          "[cpu][occupancy][pipeline]") {
  engine::ExecutorTimeline tl(at(0, 0).begin);
  CHECK(tl.add(at(10, 30)) == Approx(20.0));
  CHECK(tl.idle_before_last_ms() == Approx(10.0));
  // Batch 1 starts while batch 0 runs and ends after it: it adds only [30, 50].
  CHECK(tl.add(at(20, 50)) == Approx(20.0));
  CHECK(tl.idle_before_last_ms() == 0.0);
  // Batch 2 lies inside batch 1 (it ends first): it adds nothing.
  CHECK(tl.add(at(35, 45)) == 0.0);
  CHECK(tl.idle_before_last_ms() == 0.0);
  // A gap, then batch 3.
  CHECK(tl.add(at(60, 70)) == Approx(10.0));
  CHECK(tl.idle_before_last_ms() == Approx(10.0));
  // Batch 4 starts in the gap before batch 3 and overlaps it: only the gap's part is new.
  CHECK(tl.add(at(55, 65)) == Approx(5.0));
  CHECK(tl.size() == 5u);
  // The union is [10, 50] and [55, 70].
  CHECK(tl.covered_ms(at(0, 100)) == Approx(55.0));
  CHECK(tl.covered_ms(at(40, 58)) == Approx(13.0));
  CHECK(tl.covered_ms(at(50, 55)) == 0.0);
}

namespace {

/// Returns batch k's result with a scripted device interval and SM times: batches that
/// overlap each other, as the CUDA executor's streams make them.
class ScriptedExecutor final : public engine::Executor {
 public:
  explicit ScriptedExecutor(engine::Clock::time_point t0) : t0_(t0) {}
  std::string name() const override { return "scripted"; }
  engine::BatchResult evaluate(const engine::BatchRequest& q) override {
    engine::BatchResult r;
    r.batch_index = q.batch_index;
    r.first_trial = q.first_trial;
    r.n_trials = q.n_trials;
    r.scores.assign(q.n_trials, 1.0);
    r.violations.assign(q.n_trials, 0.0);
    const double b = 10.0 * static_cast<double>(q.batch_index), e = b + 15.0;  // each overlaps the next by 5 ms
    auto ms = [&](double v) {
      return t0_ + std::chrono::duration_cast<engine::Clock::duration>(std::chrono::duration<double, std::milli>(v));
    };
    r.timings.begin = ms(b);
    r.timings.end = ms(e);
    r.timings.busy_ms = e - b;
    r.timings.sm_busy_ms = q.batch_index == 0 ? 0.0 : 60.0;  // batch 0: not measured
    r.timings.sm_span_ms = q.batch_index == 0 ? 0.0 : 100.0;
    // What the CUDA executor reports of the spans' union: batch 1 follows an unmeasured batch
    // and adds its whole span, each later one the 10 of its 15 ms that the previous left.
    r.timings.sm_new_span_ms = q.batch_index == 0 ? 0.0 : q.batch_index == 1 ? 100.0 : 100.0 * 10.0 / 15.0;
    // And of the device-wide busy time: each later batch's 60 SM-ms overlap the previous
    // batch's for a third, which the device counts once.
    r.timings.sm_union_busy_ms = q.batch_index == 0 ? 0.0 : q.batch_index == 1 ? 60.0 : 40.0;
    return r;
  }

 private:
  engine::Clock::time_point t0_;
};

class TimingsObserver final : public engine::BatchObserver {
 public:
  void on_batch(const engine::BatchRequest&, const engine::BatchResult&, const engine::BatchTimings& t) override {
    rows.push_back(t);
  }
  std::vector<engine::BatchTimings> rows;
};

class CountingSampler final : public tpe::Sampler {
 public:
  std::string name() const override { return "counting"; }
  void ask(std::uint64_t, std::size_t n, double* out) override { std::fill(out, out + n, 0.5); }
  void tell(std::uint64_t, std::span<const tpe::TrialOutcome>) override {}
};

}  // namespace

TEST_CASE("pipeline: overlapping batches' exec_ms add up to the device's busy time, occupancy per batch and run",
          "[cpu][occupancy][pipeline]") {
  ScriptedExecutor exe(engine::Clock::now());
  CountingSampler sampler;
  TimingsObserver obs;
  engine::PipelineSettings s;
  s.n_trials = 40;
  s.batch_size = 10;
  s.depth = 2;
  s.serial = true;
  const auto summary = engine::run_pipeline(sampler, exe, 1, s, obs);
  REQUIRE(obs.rows.size() == 4u);
  // Intervals [0,15], [10,25], [20,35], [30,45]: the union is 45 ms; each batch after the
  // first adds 10 ms, its busy_ms stays the whole 15.
  CHECK(obs.rows[0].exec_ms == Approx(15.0));
  for (std::size_t k = 1; k < 4; ++k) {
    CHECK(obs.rows[k].exec_ms == Approx(10.0));
    CHECK(obs.rows[k].busy_ms == Approx(15.0));
    CHECK(obs.rows[k].idle_ms == 0.0);
    CHECK(obs.rows[k].device_occupancy == Approx(0.6));
  }
  CHECK(summary.exec_ms == Approx(45.0));
  CHECK(std::isnan(obs.rows[0].device_occupancy));
  // The run's figure is the device-wide busy time over the union of the spans: 60 + 2 x 40
  // SM-ms over 100 + 2 x 66.7.
  CHECK(summary.sm_busy_ms == Approx(140.0));
  CHECK(summary.sm_span_ms == Approx(100.0 + 2 * 100.0 * 10.0 / 15.0));
  CHECK(engine::occupancy_fraction(summary.sm_busy_ms, summary.sm_span_ms) == Approx(0.6));
}

TEST_CASE("occupancy probe: a batch's uncovered span counts what earlier batches' spans left", "[cpu][occupancy]") {
  auto probe = [](unsigned long long first, unsigned long long last) {
    std::vector<unsigned long long> w(gpu::ProbeLayout::result_words(2), 0);
    w[gpu::ProbeLayout::kFirst] = first;
    w[gpu::ProbeLayout::kLast] = last;
    w[gpu::ProbeLayout::kBlocks] = 1;
    return w;
  };
  unsigned long long covered = 0;
  CHECK(gpu::uncovered_span_ns(probe(100, 250).data(), covered) == 150);
  CHECK(covered == 250);
  CHECK(gpu::uncovered_span_ns(probe(200, 400).data(), covered) == 150);  // overlaps [200, 250]
  CHECK(gpu::uncovered_span_ns(probe(300, 350).data(), covered) == 0);    // inside the union
  CHECK(covered == 400);
  CHECK(gpu::uncovered_span_ns(probe(500, 600).data(), covered) == 100);  // after a gap
  auto empty = probe(700, 800);
  empty[gpu::ProbeLayout::kBlocks] = 0;  // not measured: adds nothing, moves nothing
  CHECK(gpu::uncovered_span_ns(empty.data(), covered) == 0);
  CHECK(covered == 600);
}

TEST_CASE("occupancy probe: the device-wide words count two batches' blocks on one SM once", "[cpu][occupancy]") {
  // Two batches whose blocks overlap in time on the same SMs (as two streams run them): each
  // batch's own busy counts the overlap, the device-wide busy counts the union of all blocks.
  const int ids = 4;
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<unsigned long long> start(0, 10000), length(1, 3000);
  std::uniform_int_distribution<int> sm(0, ids - 1);
  std::vector<Block> a, b;
  for (int i = 0; i < 60; ++i) {
    const unsigned long long s = start(rng);
    (i % 2 ? a : b).push_back({sm(rng), s, s + length(rng)});
  }
  struct Ev {
    unsigned long long t;
    bool is_start;
    int sm;
    bool first_batch;
  };
  std::vector<Ev> events;
  for (const Block& x : a) events.push_back({x.start, true, x.sm, true}), events.push_back({x.end, false, x.sm, true});
  for (const Block& x : b) events.push_back({x.start, true, x.sm, false}), events.push_back({x.end, false, x.sm, false});
  std::stable_sort(events.begin(), events.end(),
                   [](const Ev& p, const Ev& q) { return p.t < q.t || (p.t == q.t && !p.is_start && q.is_start); });
  std::vector<unsigned long long> wa(gpu::ProbeLayout::words(ids), 0ull), wb = wa,
      device(gpu::DeviceProbeLayout::words(ids), 0ull);
  wa[gpu::ProbeLayout::kFirst] = wb[gpu::ProbeLayout::kFirst] = ~0ull;
  PlainOps ops;
  for (const Ev& e : events) {
    auto& w = e.first_batch ? wa : wb;
    if (e.is_start) gpu::probe_block_start(ops, w.data(), ids, e.sm, e.t, device.data());
    else gpu::probe_block_end(ops, w.data(), ids, e.sm, e.t, device.data());
  }
  std::vector<Block> both = a;
  both.insert(both.end(), b.begin(), b.end());
  const double own = gpu::sm_time_from_probe(wa.data(), ids, ids).busy_ms + gpu::sm_time_from_probe(wb.data(), ids, ids).busy_ms;
  const double device_ms = static_cast<double>(gpu::device_busy_ns(device.data(), ids)) / 1e6;
  CHECK(device_ms == Approx(union_ns(both, ids) / 1e6));
  CHECK(own == Approx((union_ns(a, ids) + union_ns(b, ids)) / 1e6));
  CHECK(device_ms < own);  // the blocks overlap: the batches' own figures count that time twice
}
