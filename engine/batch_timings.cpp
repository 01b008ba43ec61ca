#include "engine/batch_timings.hpp"

#include <algorithm>

namespace tpeopt::engine {

namespace {
double ms_of(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }
}  // namespace

double ExecutorTimeline::add(const Interval& busy) {
  ++count_;
  const auto latest_end = union_.empty() ? start_ : union_.back().end;
  idle_before_last_ms_ = busy.begin > latest_end ? ms_of(busy.begin - latest_end) : 0.0;
  if (!(busy.end > busy.begin)) return 0.0;
  // The union's intervals that touch [begin, end] are [first, last), near its end (batches
  // arrive in order): they merge with the new one, which adds its length less what they cover.
  auto last = union_.end();
  while (last != union_.begin() && std::prev(last)->begin > busy.end) --last;
  auto first = last;
  while (first != union_.begin() && std::prev(first)->end >= busy.begin) --first;
  Interval merged = busy;
  double covered = 0.0;
  for (auto it = first; it != last; ++it) {
    const auto b = std::max(it->begin, busy.begin), e = std::min(it->end, busy.end);
    if (e > b) covered += ms_of(e - b);
    merged.begin = std::min(merged.begin, it->begin);
    merged.end = std::max(merged.end, it->end);
  }
  union_.insert(union_.erase(first, last), merged);
  return std::max(0.0, busy.ms() - covered);
}

double ExecutorTimeline::covered_ms(const Interval& span) const {
  double total = 0.0;
  for (auto it = union_.rbegin(); it != union_.rend(); ++it) {
    if (it->end <= span.begin) break;  // disjoint and in time order: everything earlier ends earlier
    const auto b = std::max(it->begin, span.begin);
    const auto e = std::min(it->end, span.end);
    if (e > b) total += ms_of(e - b);
  }
  return total;
}

}  // namespace tpeopt::engine
