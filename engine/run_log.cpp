#include "engine/run_log.hpp"

#include <cmath>

#include <fmt/format.h>

namespace tpeopt::engine {

std::string format_batch_line(const std::string& sampler, const std::string& executor, std::uint64_t done,
                              std::uint64_t total, const BatchTimings& t) {
  const char* label = executor == "cuda" ? "gpu" : executor.c_str();
  if (t.replayed) return fmt::format("[{}] {}/{} | replayed from the journal", sampler, done, total);
  std::string line = fmt::format("[{}] {}/{} | ask={:.1f}ms {}={:.1f}ms tell={:.1f}ms overlap={:.1f}ms idle={:.1f}ms",
                                 sampler, done, total, t.ask_ms, label, t.exec_ms, t.tell_ms, t.overlap_ms, t.idle_ms);
  if (!std::isnan(t.device_occupancy)) line += fmt::format(" occupancy={:.0f}%", 100.0 * t.device_occupancy);
  return line;
}

std::string format_progress_line(std::uint64_t done, std::uint64_t total, double trials_per_s, double best,
                                 double busy_fraction) {
  std::string eta = "--:--:--";
  if (trials_per_s > 0 && done <= total) {
    const auto s = static_cast<std::uint64_t>((total - done) / trials_per_s);
    eta = fmt::format("{:02}:{:02}:{:02}", s / 3600, (s / 60) % 60, s % 60);
  }
  return fmt::format("{}/{} trials ({:.1f}%) | {:.0f} trials/s | best {} | ETA {} | busy {:.0f}%   ", done, total,
                     total ? 100.0 * done / total : 100.0, trials_per_s, best, eta, 100.0 * busy_fraction);
}

}  // namespace tpeopt::engine
