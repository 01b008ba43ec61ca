#pragma once
// The parameter rows batch TPE asked most recently, to tell whether a proposal repeats one
// (docs/tpe.md, "Distinct trials"). A row is kept as its row_key; a
// window of the last `capacity` rows, in the order they were recorded, bounds the memory
// (about 40 bytes a row) whatever the budget.
#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace tpeopt::tpe {

/// The key of a parameter row of d values: their bits mixed (+0 and -0 are one value). Two
/// rows of equal values have equal keys; two different rows share one with a probability of
/// about 2^-64 (over N rows, N^2 / 2^65: 1e-9 at 200,000).
std::uint64_t row_key(const double* row, std::size_t d);

class RecentRows {
 public:
  explicit RecentRows(std::size_t capacity);

  bool contains(std::uint64_t key) const { return counts_.count(key) != 0; }
  /// Records a row as the newest; the oldest leaves once `capacity` are held.
  void record(std::uint64_t key);
  std::size_t size() const { return held_; }

 private:
  std::size_t capacity_;
  std::vector<std::uint64_t> ring_;  // the recorded keys, oldest at next_ once full
  std::size_t next_ = 0, held_ = 0;
  std::unordered_map<std::uint64_t, std::uint32_t> counts_;  // key -> rows held with it
};

}  // namespace tpeopt::tpe
