#pragma once
// What batch TPE remembers of the told trials (docs/tpe.md, "Batch TPE"): the best trials so
// far, ranked (the pool its good set is taken from), and the most recent ones (what g is
// built from). Each trial is kept as its codes: one double per searched axis, the unit
// coordinate of a numeric axis or the choice index of a categorical one (unit_space.hpp).
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "tpe/search_space.hpp"

namespace tpeopt::tpe {

/// A told trial as batch TPE ranks it.
struct RankedTrial {
  std::uint64_t trial = 0;
  double score = 0.0;
  double violation = 0.0;
};

/// Total order of told, non-failed trials: feasible ones by score (ascending when
/// minimizing), then infeasible ones by ascending violation; ties go to the older trial.
bool ranks_before(const RankedTrial& x, const RankedTrial& y, Direction direction);

class GoodPool {
 public:
  GoodPool(std::size_t n_codes, Direction direction) : n_codes_(n_codes), direction_(direction) {}

  /// Keeps at least the best `capacity` trials from now on (it only grows).
  void reserve_best(std::size_t capacity);
  /// Keeps the last `count` told trials for recent() from now on (it only grows).
  void reserve_recent(std::size_t count);

  /// Adds told trials (codes: n_codes per trial, in the order of `trials`). Failed trials
  /// (NaN score) must not be passed.
  void add(std::span<const RankedTrial> trials, std::span<const double> codes);

  /// The best trials, best first (at most the reserved capacity), and their codes.
  std::size_t size() const { return best_.size(); }
  const RankedTrial& best(std::size_t rank) const { return best_[rank]; }
  const double* best_codes(std::size_t rank) const { return &best_codes_[rank * n_codes_]; }

  /// The most recent told trials, oldest first, and their codes.
  std::size_t recent_size() const { return recent_.size() - recent_start_; }
  const RankedTrial& recent(std::size_t i) const { return recent_[recent_start_ + i]; }
  const double* recent_codes(std::size_t i) const { return &recent_codes_[(recent_start_ + i) * n_codes_]; }

  std::size_t n_codes() const { return n_codes_; }
  Direction direction() const { return direction_; }

 private:
  std::size_t n_codes_;
  Direction direction_;
  std::size_t best_capacity_ = 0, recent_capacity_ = 0;
  std::vector<RankedTrial> best_;
  std::vector<double> best_codes_;
  // The recent trials are recent_[recent_start_ ..]; the dropped front is erased once it is
  // as long as the kept part, so adding costs amortized O(1) per value.
  std::vector<RankedTrial> recent_;
  std::vector<double> recent_codes_;
  std::size_t recent_start_ = 0;
};

}  // namespace tpeopt::tpe
