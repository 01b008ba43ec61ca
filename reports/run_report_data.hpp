#pragma once
// What `tpeopt report` reads from a run directory (storage/run_directory.hpp writes it):
// config.json, trials.csv, timings.csv, and top.json / summary.json when the run got
// that far. An interrupted run (no summary.json, or complete = false) still loads:
// its totals and top trials are computed from the CSVs. An exact grid's run directory
// (`tpeopt grid` of a strategy with an exact grid: grid_journal.bin, no trials.csv) loads
// its top.json, summary.json and per-segment timings.csv. The data is loaded again (as
// config.json names it) to say what it is and to draw the best trial's equity curve.
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "config/study_config.hpp"

namespace tpeopt::engine {

/// One row of trials.csv. Parameter values are kept as written (labels for string
/// categoricals); `values` holds their external doubles (label index for labels).
struct ReportTrial {
  std::uint64_t trial = 0;
  std::uint64_t batch = 0;
  std::vector<double> values;  ///< one per axis of config.space
  double score = 0.0;          ///< NaN: failed
  double violation = 0.0;      ///< > 0: infeasible
  bool pruned = false;         ///< successive halving: pruned after a rung (never ranked)
};

/// One row of timings.csv; the *_begin/*_end times are ms since the first evaluated batch's ask.
struct ReportBatch {
  std::uint64_t batch = 0, first_trial = 0, trials = 0;
  double ask_ms = 0, exec_ms = 0, tell_ms = 0, overlap_ms = 0, idle_ms = 0, wall_ms = 0;
  double ask_begin = 0, ask_end = 0, exec_begin = 0, exec_end = 0, tell_begin = 0, tell_end = 0;
  bool replayed = false;          ///< replayed from the journal by a resume: no intervals
  double device_occupancy = NAN;  ///< NaN: not measured (CPU executor, older runs)
};

/// The run's totals: from summary.json when present, else summed from timings.csv.
struct ReportTotals {
  std::uint64_t trials = 0, batches = 0;
  double wall_ms = 0, ask_ms = 0, exec_ms = 0, tell_ms = 0, overlap_ms = 0, idle_ms = 0;
  double device_occupancy = NAN;  ///< NaN: not measured
  std::string digest;             ///< empty when summary.json is absent
  bool complete = false;          ///< summary.json says the run completed
  bool from_summary = false;
};

/// The data a run read, as the report finds it now.
struct ReportData {
  io::Json config_data;                    ///< config.json's `data` (null: the strategy reads none)
  std::vector<std::string> loaded;         ///< "file: N bars, FIRST .. LAST", a line per file or symbol
  std::vector<std::string> checksums_run;  ///< data.json: the checksums when the run started
  std::vector<std::string> checksums_now;  ///< of the data loaded now (empty when it could not be)
  std::string error;                       ///< why the data could not be loaded ("" when it was)
};

/// One line of the best trial's equity: after each of its trades (in exit order) the
/// compounded equity prod(1 + return), from 1 at the first entry.
struct EquitySeries {
  std::string name;                                     ///< the symbol ("" for one series)
  std::vector<std::pair<std::int64_t, double>> points;  ///< (Unix ms, equity)
  std::size_t trades = 0;
};

struct RunReportData {
  std::filesystem::path dir;
  bool grid = false;  ///< an exact grid's directory: no trials.csv; timings.csv has a row per segment
  io::StudyConfig config;
  std::string executor;  ///< as recorded in config.json
  std::vector<ReportTrial> trials;
  std::vector<ReportBatch> batches;
  io::Json top = io::Json::array();  ///< top.json, or the best trials ranked from trials.csv
  bool top_from_file = false;
  ReportTotals totals;
  io::Json summary;         ///< summary.json as written (null when absent)
  io::Json selection_bias;  ///< selection_bias.json (storage/selection_bias_file.hpp; null when absent)
  ReportData data;
  std::vector<EquitySeries> equity;  ///< of the best trial (top.json's first), one line per symbol
  std::string equity_note;           ///< why there is no equity curve ("" when there is one)
};

/// Loads a run directory. Throws tpeopt::Error naming the file that is missing or corrupt
/// (config.json, trials.csv and timings.csv are required, trials.csv not for an exact grid;
/// top.json and summary.json not). With `with_data`, also loads the data and backtests the
/// best trial for its equity curve (a failure there is noted, not thrown).
RunReportData load_run_report_data(const std::filesystem::path& dir, bool with_data = true);

/// Indexes of `trials` in rank order (engine/trial_ranking.hpp): best first.
std::vector<std::size_t> rank_trials(const std::vector<ReportTrial>& trials, tpe::Direction direction);

}  // namespace tpeopt::engine
