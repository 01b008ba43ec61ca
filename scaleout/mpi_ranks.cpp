#include "scaleout/mpi_ranks.hpp"

#include <mpi.h>
#include <signal.h>

#include <cmath>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <string>

#include <fmt/format.h>

#include "common/error.hpp"
#include "scaleout/split_executor.hpp"

namespace tpeopt::engine::mpi {

namespace {

bool g_active = false;  // MPI initialised by Session
int g_rank = 0, g_size = 1;

enum : std::uint64_t { kStop = 0, kBatch = 1 };

void check(int rc, const char* what) {
  if (rc != MPI_SUCCESS) {
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, text, &len);
    throw make_error("MPI: {} failed: {}", what, std::string(text, static_cast<std::size_t>(len)));
  }
}

int as_count(std::size_t n) {
  if (n > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw make_error("MPI: a batch slice of {} values exceeds what one MPI message carries; use smaller batches", n);
  return static_cast<int>(n);
}

void broadcast_text(std::string& text) {
  std::uint64_t n = text.size();
  check(MPI_Bcast(&n, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD), "MPI_Bcast(job size)");
  text.resize(n);
  if (n > 0) check(MPI_Bcast(text.data(), as_count(n), MPI_CHAR, 0, MPI_COMM_WORLD), "MPI_Bcast(job)");
}

/// For the tests of a dying rank: TPEOPT_MPI_KILL_RANK_AT_BATCH=R:B makes rank R kill
/// itself (SIGKILL, no cleanup) when batch B arrives.
void maybe_die(std::uint64_t batch) {
  const char* spec = std::getenv("TPEOPT_MPI_KILL_RANK_AT_BATCH");
  if (!spec) return;
  int r = -1;
  unsigned long long b = 0;
  if (std::sscanf(spec, "%d:%llu", &r, &b) == 2 && r == g_rank && b == batch) ::raise(SIGKILL);
}

/// Rank 0's executor: each batch cut into one slice per rank.
class RankSpreadExecutor final : public Executor {
 public:
  RankSpreadExecutor(std::unique_ptr<Executor> local, std::size_t n_metrics)
      : local_(std::move(local)), n_metrics_(n_metrics) {}
  ~RankSpreadExecutor() override {
    // The job ends: the other ranks go back to waiting for the next one.
    std::uint64_t header[4] = {kStop, 0, 0, 0};
    std::vector<std::uint64_t> msg(4 + static_cast<std::size_t>(g_size), 0);
    std::copy(header, header + 4, msg.begin());
    MPI_Bcast(msg.data(), static_cast<int>(msg.size()), MPI_UINT64_T, 0, MPI_COMM_WORLD);
  }
  std::string name() const override { return local_->name(); }

  BatchResult evaluate(const BatchRequest& q) override {
    const auto t0 = Clock::now();
    const std::vector<std::size_t> counts = slice_sizes(q.n_trials, std::vector<double>(g_size, 1.0));
    std::vector<std::uint64_t> msg = {kBatch, q.batch_index, q.first_trial, q.n_trials};
    msg.insert(msg.end(), counts.begin(), counts.end());
    check(MPI_Bcast(msg.data(), static_cast<int>(msg.size()), MPI_UINT64_T, 0, MPI_COMM_WORLD), "MPI_Bcast(batch)");

    std::vector<int> send_counts(g_size), send_offsets(g_size), recv_counts(g_size), recv_offsets(g_size);
    const std::size_t per_trial = 2 + n_metrics_;
    std::size_t at = 0;
    for (int r = 0; r < g_size; ++r) {
      send_counts[r] = as_count(counts[r] * q.n_axes);
      send_offsets[r] = as_count(at * q.n_axes);
      recv_counts[r] = as_count(counts[r] * per_trial);
      recv_offsets[r] = as_count(at * per_trial);
      at += counts[r];
    }
    BatchRequest mine{q.batch_index, q.first_trial, counts[0], q.n_axes, {}};
    mine.values.resize(counts[0] * q.n_axes);
    check(MPI_Scatterv(q.values.data(), send_counts.data(), send_offsets.data(), MPI_DOUBLE, mine.values.data(),
                       send_counts[0], MPI_DOUBLE, 0, MPI_COMM_WORLD),
          "MPI_Scatterv(parameters)");
    // Rank 0's own slice; a failure still takes part in the gather so no rank hangs.
    std::vector<double> packed(counts[0] * per_trial, std::numeric_limits<double>::quiet_NaN());
    std::exception_ptr error;
    try {
      if (counts[0] > 0) {
        local_->submit(mine);
        pack(local_->complete(), packed);
      }
    } catch (...) {
      error = std::current_exception();
    }
    std::vector<double> all(q.n_trials * per_trial);
    check(MPI_Gatherv(packed.data(), recv_counts[0], MPI_DOUBLE, all.data(), recv_counts.data(), recv_offsets.data(),
                      MPI_DOUBLE, 0, MPI_COMM_WORLD),
          "MPI_Gatherv(results)");
    if (error) std::rethrow_exception(error);

    BatchResult out;
    out.batch_index = q.batch_index;
    out.first_trial = q.first_trial;
    out.n_trials = q.n_trials;
    out.n_metrics = n_metrics_;
    out.scores.resize(q.n_trials);
    out.violations.resize(q.n_trials);
    out.metrics.resize(q.n_trials * n_metrics_);
    for (std::size_t i = 0; i < q.n_trials; ++i) {
      out.scores[i] = all[i * per_trial];
      out.violations[i] = all[i * per_trial + 1];
      for (std::size_t m = 0; m < n_metrics_; ++m) out.metrics[i * n_metrics_ + m] = all[i * per_trial + 2 + m];
    }
    out.timings.begin = t0;
    out.timings.end = Clock::now();
    out.timings.busy_ms = std::chrono::duration<double, std::milli>(out.timings.end - t0).count();
    return out;
  }

  static void pack(const BatchResult& r, std::vector<double>& packed) {
    const std::size_t per_trial = 2 + r.n_metrics;
    for (std::size_t i = 0; i < r.n_trials; ++i) {
      packed[i * per_trial] = r.scores[i];
      packed[i * per_trial + 1] = r.violations[i];
      for (std::size_t m = 0; m < r.n_metrics; ++m) packed[i * per_trial + 2 + m] = r.metrics[i * r.n_metrics + m];
    }
  }

 private:
  std::unique_ptr<Executor> local_;
  std::size_t n_metrics_;
};

/// A worker rank's side of one job: batches until rank 0 says stop.
void serve_one_job(const io::Json& job, const BuildRankExecutor& build) {
  const io::StudyConfig config = io::parse_study_config(job.at("config"), job.at("source").get<std::string>(),
                                                        job.at("base_dir").get<std::string>());
  RankExecutorOptions options;
  options.executor = job.at("executor").get<std::string>();
  options.cpu_threads = job.at("threads").get<unsigned>();
  options.cuda_block_size = job.at("block_size").get<int>();
  options.cuda_devices = job.at("devices").get<std::vector<int>>();
  RankExecutor built = build(config, options);
  Executor* executor = built.executor.get();
  const std::size_t n_axes = config.space.size(), n_metrics = built.n_metrics;
  const std::size_t per_trial = 2 + n_metrics;
  std::vector<std::uint64_t> msg(4 + static_cast<std::size_t>(g_size));
  for (;;) {
    check(MPI_Bcast(msg.data(), static_cast<int>(msg.size()), MPI_UINT64_T, 0, MPI_COMM_WORLD), "MPI_Bcast(batch)");
    if (msg[0] == kStop) return;
    maybe_die(msg[1]);
    const std::size_t mine = msg[4 + g_rank];
    BatchRequest q{msg[1], msg[2], mine, n_axes, std::vector<double>(mine * n_axes)};
    for (int r = 0; r < g_rank; ++r) q.first_trial += msg[4 + r];
    check(MPI_Scatterv(nullptr, nullptr, nullptr, MPI_DOUBLE, q.values.data(), as_count(mine * n_axes), MPI_DOUBLE, 0,
                       MPI_COMM_WORLD),
          "MPI_Scatterv(parameters)");
    std::vector<double> packed(mine * per_trial);
    if (mine > 0) {
      executor->submit(std::move(q));
      RankSpreadExecutor::pack(executor->complete(), packed);
    }
    check(MPI_Gatherv(packed.data(), as_count(packed.size()), MPI_DOUBLE, nullptr, nullptr, nullptr, MPI_DOUBLE, 0,
                      MPI_COMM_WORLD),
          "MPI_Gatherv(results)");
  }
}

}  // namespace

bool built_with_mpi() { return true; }

Session::Session(int& argc, char**& argv) {
  // Only under mpirun (Open MPI sets OMPI_COMM_WORLD_SIZE, PMIx launchers PMIX_RANK):
  // a plain `tpeopt run` never pays for MPI start-up.
  if (!std::getenv("OMPI_COMM_WORLD_SIZE") && !std::getenv("PMIX_RANK")) return;
  int provided = 0;
  // Rank 0 calls MPI from its executor thread, never from two threads at once.
  if (MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS ||
      provided < MPI_THREAD_SERIALIZED) {
    std::cerr << "tpeopt: error: MPI could not start with MPI_THREAD_SERIALIZED support\n";
    std::exit(2);
  }
  g_active = true;
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
}

Session::~Session() {
  if (!g_active) return;
  if (g_rank == 0 && g_size > 1) {
    std::uint64_t n = 0;  // no more jobs
    MPI_Bcast(&n, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  }
  MPI_Finalize();
  g_active = false;
}

int rank() { return g_rank; }
int size() { return g_size; }

int serve_jobs(const BuildRankExecutor& build) {
  for (;;) {
    std::string text;
    std::uint64_t n = 0;
    // A job is announced by its size (0: no more jobs), then its text.
    if (MPI_Bcast(&n, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD) != MPI_SUCCESS) return 2;
    if (n == 0) return 0;
    text.resize(n);
    if (MPI_Bcast(text.data(), static_cast<int>(n), MPI_CHAR, 0, MPI_COMM_WORLD) != MPI_SUCCESS) return 2;
    try {
      serve_one_job(io::Json::parse(text), build);
    } catch (const std::exception& e) {
      std::cerr << fmt::format("tpeopt: error on MPI rank {}: {}\n", g_rank, e.what());
      MPI_Abort(MPI_COMM_WORLD, 2);  // rank 0 is waiting in a collective: end the whole job
    }
  }
}

std::unique_ptr<Executor> spread_over_ranks(std::unique_ptr<Executor> local, const io::StudyConfig& config,
                                            const RankExecutorOptions& options, std::size_t n_metrics) {
  if (!g_active || g_rank != 0 || g_size < 2) return local;
  io::Json job = {{"config", config.resolved()},
                  {"source", config.source},
                  {"base_dir", std::filesystem::absolute(config.base_dir).lexically_normal().string()},
                  {"executor", local->name()},
                  {"threads", options.cpu_threads},
                  {"block_size", options.cuda_block_size},
                  {"devices", options.cuda_devices}};
  std::string text = job.dump();
  broadcast_text(text);
  return std::make_unique<RankSpreadExecutor>(std::move(local), n_metrics);
}

}  // namespace tpeopt::engine::mpi
