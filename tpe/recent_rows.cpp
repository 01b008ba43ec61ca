#include "tpe/recent_rows.hpp"

#include <bit>
#include <stdexcept>

#include "tpe/trial_rng.hpp"

namespace tpeopt::tpe {

std::uint64_t row_key(const double* row, std::size_t d) {
  std::uint64_t key = mix64(d);
  for (std::size_t a = 0; a < d; ++a) {
    const double v = row[a] == 0.0 ? 0.0 : row[a];  // -0 is +0
    key = mix64(key ^ std::bit_cast<std::uint64_t>(v));
  }
  return key;
}

RecentRows::RecentRows(std::size_t capacity) : capacity_(capacity), slots_(64) {
  if (capacity == 0) throw std::logic_error("RecentRows: capacity must be >= 1");
}

// Keys are mixed already: their low bits index the table.
std::size_t RecentRows::find(std::uint64_t key) const {
  const std::size_t mask = slots_.size() - 1;
  std::size_t i = static_cast<std::size_t>(key) & mask;
  while (slots_[i].count != 0 && slots_[i].key != key) i = (i + 1) & mask;
  return i;
}

bool RecentRows::contains(std::uint64_t key) const { return slots_[find(key)].count != 0; }

void RecentRows::grow() {
  std::vector<Slot> old(slots_.size() * 2);
  old.swap(slots_);
  for (const Slot& s : old)
    if (s.count != 0) slots_[find(s.key)] = s;
}

// Backward-shift deletion: the entries after the emptied slot that probed past it move back,
// so that every lookup still stops at the first empty slot.
void RecentRows::erase_one(std::uint64_t key) {
  std::size_t i = find(key);
  if (--slots_[i].count != 0) return;
  --distinct_;
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t j = (i + 1) & mask; slots_[j].count != 0; j = (j + 1) & mask) {
    const std::size_t home = static_cast<std::size_t>(slots_[j].key) & mask;
    // j's entry may fill the hole at i when its home does not lie in (i, j] (cyclically).
    if (((j - home) & mask) >= ((j - i) & mask)) {
      slots_[i] = slots_[j];
      i = j;
    }
  }
  slots_[i] = Slot{};
}

void RecentRows::record(std::uint64_t key) {
  if (held_ == capacity_) {
    erase_one(ring_[next_]);
    ring_[next_] = key;
  } else {
    ring_.push_back(key);
    ++held_;
  }
  next_ = (next_ + 1) % capacity_;
  if (2 * (distinct_ + 1) > slots_.size()) grow();
  Slot& s = slots_[find(key)];
  if (s.count == 0) {
    s.key = key;
    ++distinct_;
  }
  ++s.count;
}

}  // namespace tpeopt::tpe
