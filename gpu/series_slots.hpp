#pragma once
// The host side of a device series cache: which per-parameter series (by key) sits in which
// slot of a pool of equal device buffers, least recently used out first. Series depend only
// on their key and the data, so keeping them across batches saves their computation and
// never changes a result. Host-only, no CUDA: tests/gpu-free unit tests cover it.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <unordered_map>
#include <utility>
#include <vector>

namespace tpeopt::gpu {

template <typename Key, typename Hash = std::hash<Key>>
class SeriesSlots {
 public:
  /// At most `max_slots` series at once.
  explicit SeriesSlots(std::size_t max_slots) : max_slots_(max_slots) {}

  std::size_t max_slots() const { return max_slots_; }
  std::size_t slots() const { return key_.size(); }

  /// Makes room for `needed` slots (at most max_slots()): grows to min(max_slots, max(needed,
  /// 2 * slots())). True when it grew: the caller reallocates the pool, and every series is
  /// gone.
  bool reserve(std::size_t needed) {
    if (needed <= slots()) return false;
    const std::size_t grown = std::min(max_slots_, std::max(needed, 2 * slots()));
    key_.assign(grown, Key{});
    used_.assign(grown, 0);
    filled_.assign(grown, false);
    resident_.clear();
    return true;
  }

  /// The slot holding `key`, or -1.
  int slot(const Key& key) const {
    const auto it = resident_.find(key);
    return it == resident_.end() ? -1 : it->second;
  }

  /// Places one part's distinct keys (at most slots() of them): the resident ones stay where
  /// they are, and each missing one, in order, takes the least recently used slot outside
  /// the part (ties: the lowest slot), evicting what it held. Returns the (key, slot) pairs
  /// whose series must be computed now.
  std::vector<std::pair<Key, int>> place(const std::vector<Key>& keys) {
    ++part_;
    for (const Key& k : keys)
      if (const int s = slot(k); s >= 0) used_[static_cast<std::size_t>(s)] = part_;
    std::vector<std::size_t> free_slots;
    for (std::size_t s = 0; s < slots(); ++s)
      if (used_[s] != part_) free_slots.push_back(s);
    std::stable_sort(free_slots.begin(), free_slots.end(),
                     [&](std::size_t a, std::size_t b) { return used_[a] < used_[b]; });
    std::vector<std::pair<Key, int>> missing;
    std::size_t next = 0;
    for (const Key& k : keys) {
      if (slot(k) >= 0) continue;
      if (next >= free_slots.size()) throw std::logic_error("series slots: a part holds more series than the pool");
      const std::size_t s = free_slots[next++];
      if (filled_[s]) resident_.erase(key_[s]);
      key_[s] = k;
      filled_[s] = true;
      used_[s] = part_;
      resident_[k] = static_cast<int>(s);
      missing.emplace_back(k, static_cast<int>(s));
    }
    return missing;
  }

 private:
  std::size_t max_slots_;
  std::vector<Key> key_;             ///< what each slot holds (when filled_)
  std::vector<std::uint64_t> used_;  ///< the part that last used each slot
  std::vector<bool> filled_;
  std::unordered_map<Key, int, Hash> resident_;  ///< key -> slot
  std::uint64_t part_ = 0;
};

}  // namespace tpeopt::gpu
