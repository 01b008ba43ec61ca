#include "engine/synthetic_load.hpp"

#include <algorithm>

namespace tpeopt::engine {

void spin_for_ms(double ms) {
  if (ms <= 0) return;
  const auto until =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double, std::milli>(ms));
  while (Clock::now() < until) {}
}

void LoadedSampler::ask(std::uint64_t first, std::size_t n, double* out) {
  spin_for_ms(extra_ms_);
  inner_.ask(first, n, out);
}

BatchResult LoadedExecutor::delay(BatchResult r) {
  const auto busy = r.timings.end - r.timings.begin;
  const auto extra = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double, std::milli>(extra_ms_));
  const auto begin = std::max(r.timings.begin, last_end_);
  const auto end = begin + busy + extra;
  while (Clock::now() < end) {}
  r.timings.begin = begin;
  r.timings.end = end;
  r.timings.busy_ms = std::chrono::duration<double, std::milli>(end - begin).count();
  last_end_ = end;
  return r;
}

BatchResult LoadedExecutor::complete() { return delay(inner_.complete()); }

BatchResult LoadedExecutor::evaluate(const BatchRequest& request) { return delay(inner_.evaluate(request)); }

}  // namespace tpeopt::engine
