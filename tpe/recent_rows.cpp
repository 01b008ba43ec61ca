#include "tpe/recent_rows.hpp"

#include <bit>
#include <stdexcept>

#include "tpe/trial_rng.hpp"

namespace tpeopt::tpe {

RecentRows::RecentRows(std::size_t capacity) : capacity_(capacity) {
  if (capacity == 0) throw std::logic_error("RecentRows: capacity must be >= 1");
}

std::uint64_t row_key(const double* row, std::size_t d) {
  std::uint64_t key = mix64(d);
  for (std::size_t a = 0; a < d; ++a) {
    const double v = row[a] == 0.0 ? 0.0 : row[a];  // -0 is +0
    key = mix64(key ^ std::bit_cast<std::uint64_t>(v));
  }
  return key;
}

void RecentRows::record(std::uint64_t key) {
  if (held_ == capacity_) {
    const std::uint64_t oldest = ring_[next_];
    auto it = counts_.find(oldest);
    if (--it->second == 0) counts_.erase(it);
    ring_[next_] = key;
  } else {
    ring_.push_back(key);
    ++held_;
  }
  next_ = (next_ + 1) % capacity_;
  ++counts_[key];
}

}  // namespace tpeopt::tpe
