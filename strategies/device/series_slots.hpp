#pragma once
// The host side of a device series cache, shared by the CUDA twins: which per-parameter
// series (by key) sits in which slot of a pool of equal device buffers, least recently used
// out first. Series depend only on their key and the data, so keeping them across batches
// saves their computation and never changes a result. Host-only, no CUDA (unit-tested on
// the CPU: tests/engine/test_series_slots.cpp).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <unordered_map>
#include <utility>
#include <vector>

namespace tpeopt::gpu {

/// Key -> slot, a hash map (SeriesSlots' default table). A twin whose lookups must be faster
/// passes a table of its own with the same four members.
template <typename Key, typename Hash = std::hash<Key>>
class HashSlotTable {
 public:
  int find(const Key& key) const {
    const auto it = map_.find(key);
    return it == map_.end() ? -1 : it->second;
  }
  void assign(const Key& key, int slot) { map_[key] = slot; }
  void erase(const Key& key) { map_.erase(key); }
  void clear() { map_.clear(); }

 private:
  std::unordered_map<Key, int, Hash> map_;
};

/// Key -> slot for keys in [0, size): a flat array (fast lookups for small integer keys).
class DenseSlotTable {
 public:
  explicit DenseSlotTable(std::size_t size = 0) : slot_(size, -1) {}
  int find(int key) const { return slot_[static_cast<std::size_t>(key)]; }
  void assign(int key, int slot) { slot_[static_cast<std::size_t>(key)] = slot; }
  void erase(int key) { slot_[static_cast<std::size_t>(key)] = -1; }
  void clear() { std::fill(slot_.begin(), slot_.end(), -1); }

 private:
  std::vector<int> slot_;
};

template <typename Key, typename Table = HashSlotTable<Key>>
class SeriesSlots {
 public:
  /// At most `max_slots` series at once.
  explicit SeriesSlots(std::size_t max_slots, Table table = Table{})
      : max_slots_(max_slots), table_(std::move(table)) {}

  std::size_t max_slots() const { return max_slots_; }
  /// The number of the last part placed (0 before the first).
  std::uint64_t part() const { return part_; }
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
    table_.clear();
    return true;
  }

  /// The slot holding `key`, or -1.
  int slot(const Key& key) const { return table_.find(key); }

  /// Places one part's distinct keys (at most slots() of them): the resident ones stay where
  /// they are, and each missing one, in order, takes the least recently used slot outside
  /// the part (ties: the lowest slot), evicting what it held. Returns the (key, slot) pairs
  /// whose series must be computed now. Parts are numbered 1, 2, ... (part() after the call);
  /// *last_evicted_use (optional) is the latest part that used a slot whose series this call
  /// evicted, 0 if none: work of that part still reading its series must finish before the
  /// new ones are written (a twin whose launches overlap on the device waits for it).
  std::vector<std::pair<Key, int>> place(const std::vector<Key>& keys, std::uint64_t* last_evicted_use = nullptr) {
    if (last_evicted_use) *last_evicted_use = 0;
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
      if (filled_[s]) {
        table_.erase(key_[s]);
        if (last_evicted_use) *last_evicted_use = std::max(*last_evicted_use, used_[s]);
      }
      key_[s] = k;
      filled_[s] = true;
      used_[s] = part_;
      table_.assign(k, static_cast<int>(s));
      missing.emplace_back(k, static_cast<int>(s));
    }
    return missing;
  }

 private:
  std::size_t max_slots_;
  Table table_;                      ///< key -> slot of the resident series
  std::vector<Key> key_;             ///< what each slot holds (when filled_)
  std::vector<std::uint64_t> used_;  ///< the part that last used each slot
  std::vector<bool> filled_;
  std::uint64_t part_ = 0;
};

}  // namespace tpeopt::gpu
