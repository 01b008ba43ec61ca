#include "engine/run_log.hpp"

#include <fmt/format.h>

namespace tpeopt::engine {

std::string format_batch_line(const std::string& sampler, const std::string& executor, std::uint64_t done,
                              std::uint64_t total, const BatchTimings& t) {
  const char* label = executor == "cuda" ? "gpu" : executor.c_str();
  if (t.replayed) return fmt::format("[{}] {}/{} | replayed from the journal", sampler, done, total);
  return fmt::format("[{}] {}/{} | ask={:.1f}ms {}={:.1f}ms tell={:.1f}ms overlap={:.1f}ms idle={:.1f}ms", sampler,
                     done, total, t.ask_ms, label, t.exec_ms, t.tell_ms, t.overlap_ms, t.idle_ms);
}

}  // namespace tpeopt::engine
