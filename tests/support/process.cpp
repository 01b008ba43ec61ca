#include "support/process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <random>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

extern char** environ;

namespace tpeopt::testing {

namespace {

pid_t spawn(const std::vector<std::string>& args, const std::string& output_file) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, output_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) throw std::runtime_error("posix_spawn failed for " + args[0]);
  return pid;
}

ProcessResult finish(pid_t pid, const std::string& output_file) {
  int status = 0;
  struct rusage usage {};
  while (wait4(pid, &status, 0, &usage) < 0) {}
  ProcessResult r;
  r.max_rss_kb = usage.ru_maxrss;
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  std::ifstream in(output_file);
  std::stringstream text;
  text << in.rdbuf();
  r.output = text.str();
  std::filesystem::remove(output_file);
  return r;
}

std::string output_file_name() {
  static std::mt19937_64 rng(std::random_device{}());
  return (std::filesystem::temp_directory_path() / ("tpeopt-test-out-" + std::to_string(rng()))).string();
}

}  // namespace

ProcessResult run_process(const std::vector<std::string>& args) {
  const std::string out = output_file_name();
  return finish(spawn(args, out), out);
}

RunningProcess start_process(const std::vector<std::string>& args) {
  RunningProcess p;
  p.output_file = output_file_name();
  p.pid = spawn(args, p.output_file);
  return p;
}

ProcessResult finish_process(const RunningProcess& process) { return finish(process.pid, process.output_file); }

namespace {

/// Polls the running child every `interval`; SIGKILLs it as soon as `should_kill()` holds.
/// Returns true when it was killed, false when it exited first.
template <class Condition>
bool kill_when(pid_t pid, Condition should_kill, std::chrono::microseconds interval) {
  for (;;) {
    // WNOWAIT leaves the child to be reaped by finish(): its pid is not reused meanwhile.
    siginfo_t info{};
    const int rc = waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT);
    if (rc == 0 && info.si_pid == pid) return false;
    if (rc != 0 && errno != EINTR) throw std::runtime_error("waitid failed for the child process");
    if (should_kill()) {
      kill(pid, SIGKILL);
      return true;
    }
    std::this_thread::sleep_for(interval);
  }
}

}  // namespace

ProcessResult run_process_within(const std::vector<std::string>& args, std::chrono::milliseconds limit) {
  const std::string out = output_file_name();
  const pid_t pid = spawn(args, out);
  const auto end = std::chrono::steady_clock::now() + limit;
  const bool timed_out = kill_when(
      pid, [&] { return std::chrono::steady_clock::now() >= end; }, std::chrono::milliseconds(5));
  ProcessResult r = finish(pid, out);
  r.timed_out = timed_out;
  return r;
}

ProcessResult run_and_kill_at_size(const std::vector<std::string>& args, const std::string& file, std::uintmax_t bytes,
                                   std::chrono::milliseconds limit) {
  const std::string out = output_file_name();
  const pid_t pid = spawn(args, out);
  const auto end = std::chrono::steady_clock::now() + limit;
  bool timed_out = false;
  kill_when(
      pid,
      [&] {
        std::error_code ec;
        const auto size = std::filesystem::file_size(file, ec);
        if (!ec && size >= bytes) return true;
        timed_out = std::chrono::steady_clock::now() >= end;
        return timed_out;
      },
      std::chrono::microseconds(200));
  ProcessResult r = finish(pid, out);
  r.timed_out = timed_out;
  return r;
}

std::string cli_path() { return TPEOPT_CLI_PATH; }

ProcessResult run_cli(std::vector<std::string> args) {
  args.insert(args.begin(), cli_path());
  return run_process(args);
}

std::string make_temp_dir(const std::string& tag) {
  static std::mt19937_64 rng(std::random_device{}());
  const auto p = std::filesystem::temp_directory_path() / ("tpeopt-" + tag + "-" + std::to_string(rng()));
  std::filesystem::create_directories(p);
  return p.string();
}

std::string make_process_temp_dir(const std::string& tag) {
  struct RemovedAtExit {
    std::mutex mutex;
    std::vector<std::filesystem::path> dirs;
    ~RemovedAtExit() {
      for (const auto& d : dirs) {
        std::error_code ec;
        std::filesystem::remove_all(d, ec);  // best effort: the process is ending
      }
    }
  };
  static RemovedAtExit removed;
  std::string dir = make_temp_dir(tag);
  std::lock_guard lock(removed.mutex);
  removed.dirs.push_back(dir);
  return dir;
}

}  // namespace tpeopt::testing
