// scaleout/mpi_ranks.hpp for builds without MPI: one rank.
#include "scaleout/mpi_ranks.hpp"

namespace tpeopt::engine::mpi {

bool built_with_mpi() { return false; }
Session::Session(int&, char**&) {}
Session::~Session() = default;
int rank() { return 0; }
int size() { return 1; }
int serve_jobs(const BuildRankExecutor&) { return 0; }
std::unique_ptr<Executor> spread_over_ranks(std::unique_ptr<Executor> local, const io::StudyConfig&,
                                            const RankExecutorOptions&, std::size_t) {
  return local;
}

}  // namespace tpeopt::engine::mpi
