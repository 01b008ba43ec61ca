#pragma once
// A run's own directory (docs/design.md, "Data and run-directory formats"):
//   config.json   the config with every default filled in (+ run.json: where it came from)
//   data.json     the checksums of the data the strategy read
//   journal.bin   one fsynced, checksummed record per told batch (storage/journal.hpp)
//   trials.csv    every trial: number, batch, parameters, score, violation, metrics
//   timings.csv   per batch: ask, executor, tell, overlap, idle, trials per second
//   metrics.prom  Prometheus text format, rewritten atomically after every batch
//   top.json, summary.json   at the end (and on interruption)
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/pipeline.hpp"
#include "engine/study_result.hpp"
#include "config/study_config.hpp"
#include "storage/journal.hpp"
#include "strategies/strategy.hpp"
#include "study/selection_pass.hpp"
#include "study/study.hpp"

namespace tpeopt::engine {

/// Default run directory: runs/YYYYmmdd-HHMMSS-<strategy> under the current directory.
std::filesystem::path default_run_dir(const io::StudyConfig& config);

/// Digest of the resolved config, executor excluded: what a resume must not change.
std::string config_digest(const io::StudyConfig& config);

/// Loads the config of an existing run directory (config.json, with the base folder
/// its relative data paths were written against).
io::StudyConfig load_run_config(const std::filesystem::path& dir);

/// Records a run into its directory; the pipeline's observer on the sampler thread.
class RunRecorder final : public BatchObserver {
 public:
  /// Starts a new run in `dir` (must not exist, or be empty).
  static std::unique_ptr<RunRecorder> create(const std::filesystem::path& dir, const io::StudyConfig& config,
                                             const strategies::Strategy& strategy, const std::string& executor);

  /// Reopens `dir` to continue it. Refuses (Error) when the config or the data changed
  /// since the run started. Fills `replay` with the journaled batches.
  static std::unique_ptr<RunRecorder> resume(const std::filesystem::path& dir, const io::StudyConfig& config,
                                             const strategies::Strategy& strategy, const std::string& executor,
                                             std::vector<ReplayedBatch>& replay);

  ~RunRecorder() override;

  void on_batch(const BatchRequest& request, const BatchResult& result, const BatchTimings& timings) override;
  bool stop_requested() override;

  /// Writes top.json and summary.json (also after an interruption; summary.json's "outcomes"
  /// counts the trials by outcome: feasible, too_few_trades, failed, pruned). With a hold-out
  /// (docs/strategies.md, "Data subsets") top.json gives each trial's "out_of_sample" result, summary.json the
  /// rank correlation, and trials.csv's oos_score / oos_violation columns are filled for
  /// the top-K trials.
  /// With `selection`, summary.json's "selection_bias" and selection_bias.json
  /// (storage/selection_bias_file.hpp).
  void finish(const StudyResult& result, const PipelineSummary& summary, const HoldoutResult* holdout = nullptr,
              const SelectionBias* selection = nullptr);

  const std::filesystem::path& dir() const { return dir_; }
  /// Batches found in the journal when resuming (0 for a new run).
  std::uint64_t replayed_batches() const { return replayed_; }
  bool dropped_torn_tail() const { return dropped_torn_tail_; }

 private:
  RunRecorder(std::filesystem::path dir, const io::StudyConfig& config, const strategies::Strategy& strategy,
              JournalWriter journal);
  void open_tables();
  void write_metrics(const BatchTimings& t);
  void fill_holdout_columns(const StudyResult& result, const HoldoutResult& holdout);

  std::filesystem::path dir_;
  const io::StudyConfig& config_;
  std::vector<std::string> metric_names_;
  std::int64_t min_trades_ = -1;  ///< min_trades_of(), for summary.json's "outcomes"
  JournalWriter journal_;
  std::FILE* trials_ = nullptr;
  std::FILE* timings_ = nullptr;
  std::uint64_t replayed_ = 0;
  bool dropped_torn_tail_ = false;
  // running figures for metrics.prom
  std::uint64_t trials_done_ = 0;
  double exec_ms_total_ = 0.0, wall_ms_last_ = 0.0;
  std::optional<RankKey> best_;
  Clock::time_point origin_{};
  bool have_origin_ = false;
};

/// The study's trade minimum for messages and summary.json: objective.min_trades when the
/// config sets it, else the strategy's (when it says); -1 when not known.
std::int64_t min_trades_of(const io::StudyConfig& config, const strategies::Strategy& strategy);

/// top.json's shape: [{"rank", "trial", "params", "score", "violation", "metrics"}, ...];
/// with a hold-out each entry also has "out_of_sample": {"score", "violation", "metrics"}
/// ("score" is then the in-sample score).
io::Json top_to_json(const StudyResult& result, const io::StudyConfig& config,
                     const std::vector<std::string>& metric_names, const HoldoutResult* holdout = nullptr);

/// A parameter value as written in outputs: the label for string categoricals, else the number.
io::Json param_value_json(const tpe::Axis& axis, double value);

}  // namespace tpeopt::engine
