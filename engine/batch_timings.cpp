#include "engine/batch_timings.hpp"

#include <algorithm>

namespace tpeopt::engine {

double ExecutorTimeline::covered_ms(const Interval& span) const {
  double total = 0.0;
  for (auto it = busy_.rbegin(); it != busy_.rend(); ++it) {
    if (it->end <= span.begin) break;  // sorted by time: everything earlier ends earlier
    const auto b = std::max(it->begin, span.begin);
    const auto e = std::min(it->end, span.end);
    if (e > b) total += std::chrono::duration<double, std::milli>(e - b).count();
  }
  return total;
}

double ExecutorTimeline::idle_before_ms(std::size_t index) const {
  const auto prev_end = index == 0 ? start_ : busy_[index - 1].end;
  const auto gap = busy_[index].begin - prev_end;
  return gap.count() > 0 ? std::chrono::duration<double, std::milli>(gap).count() : 0.0;
}

}  // namespace tpeopt::engine
