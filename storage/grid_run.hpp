#pragma once
// `tpeopt grid` with a strategy's exact grid (the registry's capability,
// strategies/exact_grid.hpp) as a long run: the grid is cut into segments along its
// slowest parameters; each segment's exact top K is journaled (fsynced) before it counts,
// so a grid killed at any point resumes with `tpeopt resume DIR` and ends with the very
// top K of an uninterrupted search (whatever executor either part ran).
//
// Why segments give the same top K: a segment fixes the value of its slowest slots; its
// own combination indices are those of the full grid minus a constant offset (the
// remaining slots keep their strides), and the searcher ranks by exact totals, so merging
// the segments' top K by (rank key, combination) is the full grid's top K.
//
// The directory: config.json, run.json ({"command": "grid", "top", "segment_combinations"}),
// data.json, grid_journal.bin, timings.csv (per segment), metrics.prom, and at the
// end top.json and summary.json (with a digest of the top K).
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <vector>

#include "config/study_config.hpp"
#include "storage/record_file.hpp"
#include "strategies/exact_grid.hpp"
#include "strategies/strategy.hpp"

namespace tpeopt::engine {

/// The grid cut along its slowest slots into segments of at most `max_combinations`
/// (as far as the slots allow: a segment never splits the fastest slots).
class GridSegments {
 public:
  GridSegments(const strategies::SlotGrid& grid, std::uint64_t max_combinations);
  std::uint64_t count() const { return count_; }
  /// Segment j's own grid; *offset receives the full-grid index of its combination 0.
  strategies::SlotGrid segment(std::uint64_t j, std::uint64_t* offset) const;

 private:
  const strategies::SlotGrid& grid_;
  std::vector<int> split_;  // slots fixed per segment, slowest first
  std::uint64_t count_ = 1;
};

/// Searches one segment's grid (CPU or GPU); combination indices are the segment's own.
using SegmentSearch =
    std::function<strategies::GridTop(const strategies::SlotGrid&, const strategies::GridSearchSettings&)>;

struct GridRunSettings {
  std::size_t top_k = 10;
  std::uint64_t segment_combinations = std::uint64_t{1} << 28;
  /// memory_budget and threads are the caller's; top_k, min_trades and maximize are
  /// set by GridRun from the run (top_k above, the strategy and the config).
  strategies::GridSearchSettings search;
};

struct GridRunOutcome {
  strategies::GridTop result;  ///< full-grid combination indices, best first
  std::uint64_t segments = 0, segments_done = 0, segments_replayed = 0;
  std::uint64_t combinations_done = 0;
  bool complete = false;
  double ms = 0.0;  ///< this process' search time
  std::string digest;
};

/// A grid run in its directory.
class GridRun {
 public:
  /// Starts a new grid run in `dir` (must not exist, or be empty).
  /// `strategy`'s registry entry must have an exact grid.
  static std::unique_ptr<GridRun> create(const std::filesystem::path& dir, const io::StudyConfig& config,
                                         const strategies::Strategy& strategy, const std::string& executor,
                                         const GridRunSettings& settings);
  /// Reopens `dir` (a grid run) to continue it; refuses a changed config or data.
  /// `settings` receives the run's own top K and segment size (keep your search.memory_budget and threads).
  static std::unique_ptr<GridRun> resume(const std::filesystem::path& dir, const io::StudyConfig& config,
                                         const strategies::Strategy& strategy, const std::string& executor,
                                         GridRunSettings& settings);
  /// True when `dir` holds a grid run (its grid_journal.bin).
  static bool is_grid_run(const std::filesystem::path& dir);

  ~GridRun();

  /// Searches the segments not yet journaled, in order, until done or interrupted
  /// (engine/interrupt.hpp); writes top.json and summary.json either way.
  GridRunOutcome run(const SegmentSearch& search, std::ostream* log);

  const std::filesystem::path& dir() const { return dir_; }
  const strategies::SlotGrid& grid() const { return grid_; }
  std::uint64_t segment_count() const { return GridSegments(grid_, settings_.segment_combinations).count(); }
  std::uint64_t segments_journaled() const { return journaled_.size(); }
  bool dropped_torn_tail() const { return dropped_torn_tail_; }
  /// top.json's entries for `result` (params by name, score, violation, the strategy's metrics).
  io::Json top_json(const strategies::GridTop& result) const;

 private:
  GridRun(std::filesystem::path dir, const io::StudyConfig& config, const strategies::Strategy& strategy,
          GridRunSettings settings, RecordFileWriter journal);

  std::filesystem::path dir_;
  const io::StudyConfig& config_;
  const strategies::Strategy& strategy_;
  const strategies::ExactGrid& exact_;  ///< the strategy's capability
  GridRunSettings settings_;
  strategies::SlotGrid grid_;
  RecordFileWriter journal_;
  std::vector<std::string> journaled_;  // payloads of the segments found when resuming
  bool dropped_torn_tail_ = false;
};

}  // namespace tpeopt::engine
