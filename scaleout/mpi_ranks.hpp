#pragma once
// Several hosts through MPI (docs/design.md, "Scale-out"). Launched by `mpirun -n N tpeopt ...`,
// rank 0 runs the command as usual (sampler, pipeline, run directory); every other
// rank serves it: for each study rank 0 broadcasts the resolved config and executor
// options (a "job"), each rank builds its own executor (CPU or its GPUs) with the function
// it serves jobs with (study/study.hpp's serve_rank_jobs gives the study's), and every
// batch is cut into one contiguous slice per rank, scattered with
// MPI_Scatterv and gathered in trial order with MPI_Gatherv. Per-trial results do not
// depend on the cut (docs/design.md, "Determinism", rule 3), so 1, 2 or 4 ranks give the same digest.
//
// Without MPI at build time (TPEOPT_MPI=OFF or no Open MPI found) every function here
// behaves as a single rank.
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/executor.hpp"
#include "config/study_config.hpp"

namespace tpeopt::engine::mpi {

/// The options of a rank's own executor, as rank 0 sends them with a job.
struct RankExecutorOptions {
  std::string executor;  ///< rank 0's executor's name ("cpu", "cuda", ...)
  unsigned cpu_threads = 0;
  int cuda_block_size = 128;
  std::vector<int> cuda_devices;
};

/// A rank's executor for one job, and what it reads (the strategy), kept alive with it.
struct RankExecutor {
  std::shared_ptr<const void> keep_alive;  ///< declared first: destroyed after the executor
  std::unique_ptr<Executor> executor;
  std::size_t n_metrics = 0;  ///< the strategy's metrics per trial
};

/// Builds a rank's executor for a job's config, as rank 0 builds its own.
using BuildRankExecutor = std::function<RankExecutor(const io::StudyConfig&, const RankExecutorOptions&)>;

/// True when this tpeopt was built with MPI.
bool built_with_mpi();

/// Starts MPI when the process was launched by mpirun (with MPI built in); ends it on
/// destruction, telling the other ranks there is no more work.
class Session {
 public:
  Session(int& argc, char**& argv);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
};

/// This process' rank and the number of ranks (0 and 1 without MPI).
int rank();
int size();

/// Ranks other than 0: serve rank 0's jobs until it has no more, each with the executor
/// `build` makes. Returns the exit code.
int serve_jobs(const BuildRankExecutor& build);

/// Rank 0 with more than one rank: sends the job (config and options) to every rank
/// and returns an executor that spreads each batch over all ranks, `local` doing
/// rank 0's slice. Otherwise returns `local` unchanged.
std::unique_ptr<Executor> spread_over_ranks(std::unique_ptr<Executor> local, const io::StudyConfig& config,
                                            const RankExecutorOptions& options, std::size_t n_metrics);

}  // namespace tpeopt::engine::mpi
