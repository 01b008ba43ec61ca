#pragma once
#include <cmath>
#include <cstdint>

#include "tpe/search_space.hpp"

namespace tpeopt::engine {

/// The order of trials in top-K lists: feasible trials by score (best first), then
/// infeasible ones by increasing violation, then failed ones (NaN score); ties by the
/// lower trial number, so the order is total and deterministic.
struct RankKey {
  std::uint64_t trial = 0;
  double score = 0.0;
  double violation = 0.0;
};

inline bool ranks_before(const RankKey& a, const RankKey& b, tpe::Direction direction) {
  auto klass = [](const RankKey& k) { return std::isnan(k.score) ? 2 : (k.violation > 0.0 ? 1 : 0); };
  const int ca = klass(a), cb = klass(b);
  if (ca != cb) return ca < cb;
  if (ca == 0 && a.score != b.score)
    return direction == tpe::Direction::Minimize ? a.score < b.score : a.score > b.score;
  if (ca == 1 && a.violation != b.violation) return a.violation < b.violation;
  return a.trial < b.trial;
}

}  // namespace tpeopt::engine
