#pragma once
// Runs the tpeopt program from tests: spawn, wait, kill. POSIX only.
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace tpeopt::testing {

struct ProcessResult {
  int exit_code = -1;      ///< exit status, or -1 when killed by a signal
  int signal = 0;          ///< the signal that ended it, if any
  std::string output;      ///< stdout and stderr together
  long max_rss_kb = 0;     ///< the process's peak resident memory (getrusage of the child)
  bool timed_out = false;  ///< run_process_within or run_and_kill_at_size killed it at its time limit
};

/// Runs `args` (args[0] = the program) to completion.
ProcessResult run_process(const std::vector<std::string>& args);

/// Runs `args` to completion, or SIGKILLs it once it has run `limit` (then timed_out is set).
ProcessResult run_process_within(const std::vector<std::string>& args, std::chrono::milliseconds limit);

/// A process started and not yet waited for.
struct RunningProcess {
  int pid = 0;
  std::string output_file;
};
/// Starts `args`; finish_process waits for it and collects its result.
RunningProcess start_process(const std::vector<std::string>& args);
ProcessResult finish_process(const RunningProcess& process);

/// Starts `args`, SIGKILLs it as soon as `file` holds at least `bytes` bytes (if it is still
/// running then), waits for it. Kill points set by progress rather than by time land inside
/// the run however fast or loaded the machine is. A child whose file has not grown that far
/// within `limit` is killed too, with timed_out set.
ProcessResult run_and_kill_at_size(const std::vector<std::string>& args, const std::string& file, std::uintmax_t bytes,
                                   std::chrono::milliseconds limit = std::chrono::minutes(2));

/// Path of the tpeopt program built with the tests.
std::string cli_path();

/// Runs the tpeopt program with `args` (its arguments, without the program) to completion.
ProcessResult run_cli(std::vector<std::string> args);

/// A fresh empty directory under the system's temp folder.
std::string make_temp_dir(const std::string& tag);

/// A fresh empty directory under the system's temp folder that is removed when the test
/// process exits: for data a process builds once and its tests share (ctest runs each test
/// case in a process of its own, so such folders would otherwise pile up, one per case).
std::string make_process_temp_dir(const std::string& tag);

}  // namespace tpeopt::testing
