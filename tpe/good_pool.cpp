#include "tpe/good_pool.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace tpeopt::tpe {

bool ranks_before(const RankedTrial& x, const RankedTrial& y, Direction direction) {
  const bool fx = x.violation <= 0.0, fy = y.violation <= 0.0;
  if (fx != fy) return fx;
  if (fx && x.score != y.score) return direction == Direction::Minimize ? x.score < y.score : x.score > y.score;
  if (!fx && x.violation != y.violation) return x.violation < y.violation;
  return x.trial < y.trial;
}

void GoodPool::reserve_best(std::size_t capacity) { best_capacity_ = std::max(best_capacity_, capacity); }

void GoodPool::reserve_recent(std::size_t count) { recent_capacity_ = std::max(recent_capacity_, count); }

void GoodPool::add(std::span<const RankedTrial> trials, std::span<const double> codes) {
  // Best: merge the new trials into the ranked pool and keep the first best_capacity_.
  std::vector<std::size_t> order(trials.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return ranks_before(trials[a], trials[b], direction_); });
  std::vector<RankedTrial> merged;
  std::vector<double> merged_codes;
  const std::size_t keep = std::min(best_capacity_, best_.size() + trials.size());
  merged.reserve(keep);
  merged_codes.reserve(keep * n_codes_);
  std::size_t i = 0, j = 0;
  while (merged.size() < keep) {
    const bool take_old =
        j == order.size() || (i < best_.size() && ranks_before(best_[i], trials[order[j]], direction_));
    const RankedTrial& t = take_old ? best_[i] : trials[order[j]];
    const double* c = take_old ? &best_codes_[i * n_codes_] : &codes[order[j] * n_codes_];
    merged.push_back(t);
    merged_codes.insert(merged_codes.end(), c, c + n_codes_);
    if (take_old) ++i;
    else ++j;
  }
  best_ = std::move(merged);
  best_codes_ = std::move(merged_codes);

  // Recent: append in trial order, drop the oldest beyond recent_capacity_.
  recent_.insert(recent_.end(), trials.begin(), trials.end());
  recent_codes_.insert(recent_codes_.end(), codes.begin(), codes.end());
  const std::size_t kept = recent_.size() - recent_start_;
  if (kept > recent_capacity_) recent_start_ += kept - recent_capacity_;
  if (recent_start_ > 0 && recent_start_ >= recent_.size() - recent_start_) {
    recent_.erase(recent_.begin(), recent_.begin() + static_cast<std::ptrdiff_t>(recent_start_));
    recent_codes_.erase(recent_codes_.begin(),
                        recent_codes_.begin() + static_cast<std::ptrdiff_t>(recent_start_ * n_codes_));
    recent_start_ = 0;
  }
}

}  // namespace tpeopt::tpe
