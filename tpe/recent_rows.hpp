#pragma once
// The parameter rows batch TPE asked most recently, to tell whether a proposal repeats one
// (docs/tpe.md, "Distinct trials"). A row is kept as its row_key; a window of the last
// `capacity` rows, in the order they were recorded, bounds the memory whatever the budget: 8
// bytes a row in the ring and a table of 16-byte slots at most half full (40 MiB for 2^20
// rows; 56 MiB while the table doubles). The table is open-addressing (linear probing,
// backward-shift deletion): an ask looks up and records thousands of rows, and a node-based
// map's allocations cost more than the rest of the check.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace tpeopt::tpe {

/// The key of a parameter row of d values: their bits mixed (+0 and -0 are one value). Two
/// rows of equal values have equal keys; two different rows share one with a probability of
/// about 2^-64 (over N rows, N^2 / 2^65: 1e-9 at 200,000).
std::uint64_t row_key(const double* row, std::size_t d);

class RecentRows {
 public:
  explicit RecentRows(std::size_t capacity);

  bool contains(std::uint64_t key) const;
  /// Records a row as the newest; the oldest leaves once `capacity` are held.
  void record(std::uint64_t key);
  std::size_t size() const { return held_; }

 private:
  struct Slot {
    std::uint64_t key = 0;
    std::uint32_t count = 0;  // rows held with this key; 0: the slot is empty
  };
  std::size_t find(std::uint64_t key) const;  // the key's slot, or the empty slot where it would go
  void grow();
  void erase_one(std::uint64_t key);

  std::size_t capacity_;
  std::vector<std::uint64_t> ring_;  // the recorded keys, oldest at next_ once full
  std::size_t next_ = 0, held_ = 0;
  std::vector<Slot> slots_;  // a power of two, at most half full
  std::size_t distinct_ = 0;
};

}  // namespace tpeopt::tpe
