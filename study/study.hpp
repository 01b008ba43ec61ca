#pragma once
// Builds a study (strategy, sampler, executor) from a validated config and runs it.
#include <cmath>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>

#include "config/study_config.hpp"
#include "engine/executor.hpp"
#include "engine/pipeline.hpp"
#include "engine/study_result.hpp"
#include "strategies/strategy.hpp"
#include "tpe/sampler.hpp"

namespace tpeopt::engine {

/// How to run a study; command-line flags land here.
struct RunOptions {
  bool serial = false;
  std::string executor = "auto";  ///< cpu | cuda | auto (CUDA when a device is usable)
  unsigned cpu_threads = 0;       ///< CPU executor threads (0 = all)
  int cuda_block_size = 128;
  /// CUDA devices to spread each batch over (scaleout/split_executor.hpp); empty = device 0.
  std::vector<int> cuda_devices;
  bool keep_trials = false;     ///< keep every trial in StudyResult::trials()
  std::ostream* log = nullptr;  ///< per-batch log lines (docs/design.md, "Pipeline protocol"); null = none
  /// With `log`: one progress line rewritten in place (for a terminal) instead of a
  /// line per batch; at most 4 updates a second.
  bool progress_line = false;
  /// Synthetic extra work per batch (ms), for `tpeopt bench` (engine/synthetic_load.hpp).
  double sampler_load_ms = 0.0;
  double executor_load_ms = 0.0;
  /// The caller's executor, used instead of the one the config names (the Python package's
  /// objective executor, python/src/objective_executor.hpp); not owned. Required by a study
  /// whose trials tpeopt cannot score (StrategyEntry::scored_by_caller).
  Executor* external_executor = nullptr;
};

std::unique_ptr<strategies::Strategy> make_strategy(const io::StudyConfig& config);
/// make_strategy, writing what was loaded to `log` (null: nowhere), a line per file or symbol
/// ("tpeopt: loaded FILE: N bars, FIRST .. LAST"). `data_bytes` (optional) receives the host
/// bytes of the loaded data (io/data_log.hpp), for the memory check (study/memory_check.hpp).
std::unique_ptr<strategies::Strategy> load_strategy(const io::StudyConfig& config, std::ostream* log,
                                                    std::uint64_t* data_bytes = nullptr);
/// Throws Error (the config, the strategy and where its study runs) when tpeopt's executors
/// cannot score the study's trials (StrategyEntry::scored_by_caller).
void check_scored_by_tpeopt(const io::StudyConfig& config);
/// The study's sampler. `beside_gpu`: its trials are scored by a CUDA executor, which leaves
/// the host's cores free: TPE's ask() then runs on
/// sampler_threads_beside_gpu(usable_hardware_threads()) workers unless the config sets
/// search.tpe.threads (results do not depend on the count).
std::unique_ptr<tpe::Sampler> make_sampler(const io::StudyConfig& config, bool beside_gpu = false);
/// Ask workers beside a GPU for a process that may run on `hardware_threads` threads
/// (common/hardware_threads.hpp): two fewer, for the sampler's and the executor's own
/// threads, kept in [1, 8]. On the H200 machine's 16-core host, batch
/// TPE's ask() of 4,096 trials of ten axes takes about 7.4 ms on one worker and 2.5 ms on
/// eight, time the GPU at depth 2 spent waiting (docs/benchmarks.md, "TPE's ask workers
/// beside the GPU").
unsigned sampler_threads_beside_gpu(unsigned hardware_threads);
/// Total trials of the study: search.trials, or the grid's size for the grid sampler.
std::uint64_t study_trial_count(const io::StudyConfig& config);
/// "cpu" or "cuda" as `which` resolves on this machine ("auto": cuda if usable); "cuda"
/// without a usable device is an error.
std::string resolve_executor(const std::string& which);
/// `--devices`: "all", or a comma-separated list of device numbers ("0,1"); "" = default
/// (device 0). Errors name the flag and the bad item.
std::vector<int> parse_devices(const std::string& text);
/// This process' executor over exactly `strategy` (no data subsets, no other MPI rank): the
/// CPU, one GPU, or several GPUs of this host, as `options` say.
std::unique_ptr<Executor> make_local_executor(const io::StudyConfig& config, const strategies::Strategy& strategy,
                                              const RunOptions& options);
/// The study's executor over `strategy` (the full data). With data.holdout it evaluates
/// the in-sample part only; with search.halving it is a HalvingExecutor over the rungs'
/// slices (engine/halving_executor.hpp). It keeps the subset strategies it builds alive.
std::unique_ptr<Executor> make_executor(const io::StudyConfig& config, const strategies::Strategy& strategy,
                                        const RunOptions& options);

/// `data.holdout` after a run (docs/strategies.md, "Data subsets"): each top-K trial scored on the
/// out-of-sample part by the CPU reference, in top-K order.
struct HoldoutResult {
  std::vector<double> scores, violations;
  std::vector<std::vector<double>> metrics;
  /// Spearman's rank correlation of the top-K trials' in-sample and out-of-sample scores
  /// (trials with a NaN score on either side left out); NaN with fewer than 2 pairs.
  double spearman = NAN;
  std::size_t in_sample_atoms = 0, out_of_sample_atoms = 0;
  std::string unit;  ///< "trading days" or "bars"
};

struct SelectionBias;  // study/selection_pass.hpp

struct StudyRun {
  PipelineSummary summary;
  StudyResult result;
  std::string executor;
  std::optional<HoldoutResult> holdout;  ///< set when the config has data.holdout
  /// The selection-bias statistics, set by run_recorded_study (storage/recorded_study.hpp).
  std::shared_ptr<const SelectionBias> selection;
};

/// Scores `result`'s top trials on the out-of-sample part of `strategy` (the full data)
/// given by config.holdout; min_trades is scaled to the part's share of the in-sample atoms.
HoldoutResult score_holdout(const io::StudyConfig& config, const strategies::Strategy& strategy,
                            const StudyResult& result);

/// Runs the study end to end. `observer` (optional) sees every told batch after the
/// result collector and the log.
/// `replay`: batches from a journal, replayed before evaluation continues (resume).
StudyRun run_study(const io::StudyConfig& config, const RunOptions& options, BatchObserver* observer = nullptr,
                   std::vector<ReplayedBatch> replay = {});
/// The same with a strategy the caller already built from `config` (data loaded once).
StudyRun run_study(const io::StudyConfig& config, const strategies::Strategy& strategy, const RunOptions& options,
                   BatchObserver* observer = nullptr, std::vector<ReplayedBatch> replay = {});

/// Under mpirun, on ranks other than 0: serves rank 0's jobs (scaleout/mpi_ranks.hpp), each
/// rank building its strategy and executor from the job's config as make_executor does.
/// Returns the exit code.
int serve_rank_jobs();

}  // namespace tpeopt::engine
