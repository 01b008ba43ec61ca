#include "storage/grid_run.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <ostream>

#include <fmt/format.h>

#include "common/atomic_file.hpp"
#include "common/digest.hpp"
#include "common/error.hpp"
#include "engine/interrupt.hpp"
#include "storage/run_directory.hpp"
#include "storage/run_files.hpp"
#include "strategies/registry.hpp"
#include "study/slot_grid_config.hpp"

namespace tpeopt::engine {

namespace fs = std::filesystem;
using strategies::GridEntry;
using strategies::GridTop;
using strategies::SlotGrid;

namespace {

constexpr RecordFileFormat kFormat{{'T', 'P', 'E', 'O', 'P', 'T', 'G', '1'},
                                   1,
                                   0x47455353 /* "SSEG" */,
                                   "grid journal"};
constexpr const char* kJournalName = "grid_journal.bin";

/// One journaled segment: its exact top K in full-grid combination indices.
struct SegmentRecord {
  std::uint64_t segment = 0;
  std::vector<GridEntry> hits;
  double ms = 0.0;
};

std::string encode(const SegmentRecord& r) {
  std::string p;
  binary::StringWriter w(p);
  w.put(r.segment);
  w.put(static_cast<std::uint64_t>(r.hits.size()));
  for (const GridEntry& h : r.hits) {
    w.put(h.key);
    w.put(h.combination);
    w.put_array(h.exact);
  }
  w.put(r.ms);
  return p;
}

bool decode(const std::string& payload, std::size_t exact_words, SegmentRecord& r) {
  binary::BytesReader c(payload);
  std::uint64_t n = 0;
  if (!c.get(r.segment) || !c.get(n) || n > payload.size() / (8 * (2 + exact_words))) return false;
  r.hits.resize(n);
  for (std::uint64_t i = 0; i < n; ++i) {
    GridEntry& h = r.hits[i];
    h.exact.resize(exact_words);
    if (!c.get(h.key) || !c.get(h.combination)) return false;
    for (std::int64_t& v : h.exact)
      if (!c.get(v)) return false;
  }
  return c.get(r.ms) && c.at_end();
}

/// The best K hits by (key, combination), whatever the order they come in.
class TopHits {
 public:
  explicit TopHits(std::size_t k) : k_(k) {}
  void add(const GridEntry& h) {
    hits_.push_back(h);
    if (hits_.size() >= 2 * k_ + 64) trim();
  }
  std::vector<GridEntry> sorted() {
    trim();
    return hits_;
  }

 private:
  void trim() {
    std::sort(hits_.begin(), hits_.end(), [](const GridEntry& a, const GridEntry& b) {
      return a.key != b.key ? a.key < b.key : a.combination < b.combination;
    });
    if (hits_.size() > k_) hits_.resize(k_);
  }
  std::size_t k_;
  std::vector<GridEntry> hits_;
};

io::Json make_header(const io::StudyConfig& config, const SlotGrid& grid, const strategies::Strategy& strategy,
                     const GridRunSettings& s) {
  return {{"config_digest", config_digest(config)},
          {"data_checksums", strategy.data_checksums()},
          {"grid_combinations", grid.size()},
          {"top_k", s.top_k},
          {"segment_combinations", s.segment_combinations}};
}

SlotGrid grid_of(const io::StudyConfig& config, const strategies::Strategy& strategy) {
  try {
    return make_slot_grid(config, strategy);
  } catch (const Error& e) {
    throw Error(config.source + ": " + e.what());
  }
}

}  // namespace

GridSegments::GridSegments(const SlotGrid& grid, std::uint64_t max_combinations) : grid_(grid) {
  std::vector<std::size_t> slots;
  for (std::size_t s = 0; s < grid.values.size(); ++s)
    if (grid.values[s].size() > 1) slots.push_back(s);
  std::stable_sort(slots.begin(), slots.end(),
                   [&](std::size_t a, std::size_t b) { return grid.stride[a] > grid.stride[b]; });
  std::uint64_t per_segment = grid.size();
  // Keep at least one slot whole: a segment of one combination would pay the whole
  // per-segment setup (a pass over the data) for nothing.
  for (std::size_t i = 0; i + 1 < slots.size() && per_segment > std::max<std::uint64_t>(1, max_combinations); ++i) {
    split_.push_back(static_cast<int>(slots[i]));
    per_segment /= grid.values[slots[i]].size();
    count_ *= grid.values[slots[i]].size();
  }
}

SlotGrid GridSegments::segment(std::uint64_t j, std::uint64_t* offset) const {
  SlotGrid seg = grid_;
  *offset = 0;
  for (auto it = split_.rbegin(); it != split_.rend(); ++it) {  // the last split slot varies fastest in j
    const auto s = static_cast<std::size_t>(*it);
    const std::uint64_t radix = grid_.values[s].size();
    const std::uint64_t idx = j % radix;
    j /= radix;
    seg.values[s] = {grid_.values[s][idx]};
    *offset += idx * grid_.stride[s];
  }
  return seg;
}

GridRun::GridRun(fs::path dir, const io::StudyConfig& config, const strategies::Strategy& strategy,
                 GridRunSettings settings, RecordFileWriter journal)
    : dir_(std::move(dir)), config_(config), strategy_(strategy),
      exact_(strategies::registry().at(strategy.name()).exact_grid), settings_(settings),
      grid_(grid_of(config, strategy)), journal_(std::move(journal)) {
  TPEOPT_ASSERT(exact_.available(), "a grid run needs a strategy with an exact grid");
  // What ranks a combination comes from the run itself, never from the caller.
  settings_.search.top_k = settings_.top_k;
  settings_.search.min_trades = strategy.min_trades();
  settings_.search.maximize = config.objective.direction == tpe::Direction::Maximize;
}

GridRun::~GridRun() = default;

bool GridRun::is_grid_run(const fs::path& dir) { return fs::exists(dir / kJournalName); }

std::unique_ptr<GridRun> GridRun::create(const fs::path& dir, const io::StudyConfig& config,
                                         const strategies::Strategy& strategy, const std::string& executor,
                                         const GridRunSettings& settings) {
  const SlotGrid grid = grid_of(config, strategy);  // config errors before anything is written
  create_run_directory(dir, config, strategy, executor,
                       {{"command", "grid"},
                        {"top", settings.top_k},
                        {"segment_combinations", settings.segment_combinations}});
  auto journal =
      RecordFileWriter::create(dir / kJournalName, kFormat, make_header(config, grid, strategy, settings).dump());
  return std::unique_ptr<GridRun>(new GridRun(dir, config, strategy, settings, std::move(journal)));
}

std::unique_ptr<GridRun> GridRun::resume(const fs::path& dir, const io::StudyConfig& config,
                                         const strategies::Strategy& strategy, const std::string& executor,
                                         GridRunSettings& settings) {
  RecordFileContents file = read_record_file(dir / kJournalName, kFormat);
  const io::Json head = io::Json::parse(file.header, nullptr, false);
  if (head.is_discarded() || !head.contains("config_digest"))
    throw make_error("{}: the grid journal header is not valid", (dir / kJournalName).string());
  settings.top_k = head.value("top_k", std::size_t{10});
  settings.segment_combinations = head.value("segment_combinations", std::uint64_t{1} << 28);
  const SlotGrid grid = grid_of(config, strategy);
  const io::Json expected = make_header(config, grid, strategy, settings);
  if (head.at("config_digest") != expected.at("config_digest"))
    throw make_error(
        "{}: refusing to resume: config.json was changed since the grid started (journal {} vs now {}); "
        "start a new run for a new config",
        dir.string(), head.at("config_digest").get<std::string>(), expected.at("config_digest").get<std::string>());
  if (head.value("data_checksums", io::Json::array()) != expected.at("data_checksums"))
    throw make_error(
        "{}: refusing to resume: the data changed since the grid started (journal {} vs now {}); a "
        "resumed run must read the same data",
        dir.string(), head.value("data_checksums", io::Json::array()).dump(), expected.at("data_checksums").dump());
  rewrite_run_config(dir, config, executor);
  auto writer = RecordFileWriter::open_for_append(dir / kJournalName, kFormat, file.valid_bytes);
  std::unique_ptr<GridRun> r(new GridRun(dir, config, strategy, settings, std::move(writer)));
  r->journaled_ = std::move(file.payloads);
  r->dropped_torn_tail_ = file.dropped_torn_tail;
  return r;
}

io::Json GridRun::top_json(const GridTop& result) const {
  io::Json top = io::Json::array();
  const auto& names = strategy_.param_names();
  std::vector<double> slots(names.size());
  for (std::size_t r = 0; r < result.entries.size(); ++r) {
    const GridEntry& h = result.entries[r];
    grid_.slots_of(h.combination, slots.data());
    io::Json params = io::Json::object();
    for (const auto& axis : config_.space.axes) {
      const auto s = static_cast<std::size_t>(std::find(names.begin(), names.end(), axis.name) - names.begin());
      params[axis.name] = slots[s];
    }
    const strategies::GridScore score = exact_.score(h.exact.data(), settings_.search.min_trades);
    top.push_back({{"rank", r + 1},
                   {"trial", h.combination},
                   {"params", params},
                   {"score", score.score},
                   {"violation", score.violation},
                   {"metrics", score.metrics}});
  }
  return top;
}

GridRunOutcome GridRun::run(const SegmentSearch& search, std::ostream* log) {
  using Clock = std::chrono::steady_clock;
  const GridSegments segments(grid_, settings_.segment_combinations);
  TopHits top(settings_.top_k);
  GridRunOutcome out;
  out.segments = segments.count();
  std::FILE* timings = open_table(dir_ / "timings.csv",
                                  "segment,first_combination,combinations,ms,"
                                  "combinations_per_s,replayed\n");
  std::uint64_t first = 0;
  auto record_segment = [&](const SegmentRecord& rec, std::uint64_t n_combinations, bool replayed) {
    for (const GridEntry& h : rec.hits) top.add(h);
    append_or_throw(timings,
                    fmt::format("{},{},{},{:.3f},{:.1f},{}\n", rec.segment, first, n_combinations, rec.ms,
                                rec.ms > 0 ? n_combinations / (rec.ms / 1000.0) : 0.0, replayed ? 1 : 0),
                    dir_ / "timings.csv");
    out.combinations_done += n_combinations;
    ++out.segments_done;
    RunGauges g;
    g.trials_done = out.combinations_done;
    const auto best = top.sorted();
    if (!best.empty()) g.best_score = exact_.score(best.front().exact.data(), settings_.search.min_trades).score;
    g.executor_busy = 1.0;  // the grid has no sampler: the executor is never idle
    g.trials_per_second = rec.ms > 0 && !replayed ? n_combinations / (rec.ms / 1000.0) : 0.0;
    write_metrics_file(dir_, g);
  };
  try {
    for (std::uint64_t j = 0; j < journaled_.size(); ++j) {
      SegmentRecord rec;
      if (!decode(journaled_[j], exact_.exact_words, rec) || rec.segment != j)
        throw make_error("{}: segment record {} does not hold segment {}; the grid journal cannot be trusted",
                         (dir_ / kJournalName).string(), j, j);
      std::uint64_t offset = 0;
      const auto seg = segments.segment(j, &offset);
      first = offset;
      record_segment(rec, seg.size(), true);
    }
    out.segments_replayed = journaled_.size();
    auto last_log = Clock::now() - std::chrono::seconds(1);
    for (std::uint64_t j = journaled_.size(); j < segments.count(); ++j) {
      if (InterruptGuard::requested()) break;
      std::uint64_t offset = 0;
      const SlotGrid seg = segments.segment(j, &offset);
      const auto t0 = Clock::now();
      GridTop found = search(seg, settings_.search);
      SegmentRecord rec;
      rec.segment = j;
      rec.ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
      out.ms += rec.ms;
      for (GridEntry h : found.entries) {
        h.combination += offset;
        rec.hits.push_back(std::move(h));
      }
      out.result.method = found.method;
      journal_.append(encode(rec));  // durable first: then the segment counts as done
      first = offset;
      record_segment(rec, seg.size(), false);
      if (log && (Clock::now() - last_log > std::chrono::milliseconds(250) || j + 1 == segments.count())) {
        last_log = Clock::now();
        *log << fmt::format("[grid] segment {}/{} | {} of {} combinations | {:.1f} ms ({})\n", j + 1, segments.count(),
                            out.combinations_done, grid_.size(), rec.ms, found.method);
      }
    }
  } catch (...) {
    std::fclose(timings);
    throw;
  }
  std::fclose(timings);
  out.complete = out.segments_done == segments.count();
  out.result.entries = top.sorted();
  Digest d;
  for (const GridEntry& h : out.result.entries) {
    for (std::uint64_t v : {h.key, h.combination}) d.add(v);
    for (std::int64_t v : h.exact) d.add(static_cast<std::uint64_t>(v));
  }
  out.digest = d.hex();
  write_file_atomically(dir_ / "top.json", top_json(out.result).dump(2) + "\n", true);
  write_file_atomically(dir_ / "summary.json",
                        io::Json{{"combinations", grid_.size()},
                                 {"combinations_done", out.combinations_done},
                                 {"segments", out.segments},
                                 {"segments_done", out.segments_done},
                                 {"replayed_segments", out.segments_replayed},
                                 {"complete", out.complete},
                                 {"digest", out.digest},
                                 {"search_ms", out.ms},
                                 {"feasible_found",
                                  !out.result.entries.empty() &&
                                      exact_.score(out.result.entries.front().exact.data(), settings_.search.min_trades)
                                              .violation == 0.0}}
                                .dump(2) +
                            "\n",
                        true);
  return out;
}

}  // namespace tpeopt::engine
