#pragma once
// Internal to TpeSampler (docs/tpe.md, "Fast acquisition", item 2): g's kernels of one
// continuous axis kept as running sums from tell() to tell(), so that an ask pays O(grid)
// for g instead of O(observations). Exposed in a header for the tests.
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "tpe/fast_acquisition.hpp"
#include "tpe/parzen_estimator.hpp"
#include "tpe/sorted_runs.hpp"

namespace tpeopt::tpe::detail {

/// g's weights in fast mode: Optuna's ramp (default_weights) laid over all n observations in
/// trial order instead of over the above group's ranks, so that an observation's weight does
/// not move when others enter or leave the below group. Observation i weighs ramp(i) =
/// 1/n + i (1 - 1/n) / (n - 26) for i < n - 25 and 1 after; the below group's weigh 0.
struct TrialOrderWeights {
  std::size_t n = 0;
  double alpha = 1.0, beta = 0.0;  // ramp(i) = alpha + beta i
  explicit TrialOrderWeights(std::size_t n_observations);
  double ramp(std::size_t i) const { return alpha + beta * static_cast<double>(i); }
  /// The weight of an observation of the above group.
  double of(std::size_t i) const { return i + 25 >= n ? 1.0 : ramp(i); }
};

/// g's kernels over every observation of a continuous or discrete axis (a discrete axis' g is
/// the same mixture density on its widened range, integrated over each point's cell later), each with the bandwidth it has
/// among all observations (and the prior's centre; computed from the sorted runs when needed,
/// not stored): sum_i c_i K_i(x) and sum_i i c_i K_i(x),
/// c_i = 1 / (sigma_i sqrt(2 pi) mass_i), as Hermite moments (kernels of the smallest
/// bandwidth, range / 100 under magic clip) and node sums (the wider ones). tell() adds the
/// new observations and replaces the kernels of their neighbours whose bandwidth changed; an
/// ask combines the two sums with the ramp's coefficients and corrects the few kernels that
/// differ from them: the below group (removed), the newest 25 (weight 1) and the below
/// group's neighbours (their bandwidth within the above group).
class ObservedKernels {
 public:
  /// Used from this many observations on (the above group then has >= 231 members, so magic
  /// clip's smallest bandwidth is range / 100 from then on).
  static constexpr std::size_t kFromObservations = 256;
  /// The batch size the Hermite bins are planned for (HermiteBins::plan).
  static constexpr std::size_t kPlanBatch = 4096;

  /// Whether the sums are built (from kFromObservations on, on an axis they can hold).
  bool ready() const { return ready_; }
  /// Whether the sums can hold g of an axis: with magic clip, a continuous axis or a discrete
  /// one of at most kMaxFastGrid points (discrete_table_cells), of more than one value.
  static bool can_hold(const AxisModel& model, const ParzenParameters& params);
  /// The cells log_density tabulates g on: kGridCells over a continuous axis' range, or
  /// discrete_table_cells over a discrete axis' widened range.
  std::size_t cells() const { return cells_; }
  /// Builds the sums over every observation of `runs` (the prior's centre is model's).
  void rebuild(const SortedRuns& runs, const AxisModel& model, const ParzenParameters& params);
  /// At a tell, between SortedRuns::stage and commit: `before` holds the observations
  /// already in the sums, `staged` the new ones (`fresh`, sorted by (value, index), their
  /// indices above every old one). Adds the new kernels and replaces those of their
  /// neighbours whose bandwidth changed: O(b) kernels, found by one ascending walk of the runs.
  void update(const SortedRuns& before, const SortedRun& fresh, const StagedBatch& staged);
  /// log g on the grid (cells() cells) for the split given by is_below / below (indices of
  /// the below group; `column` holds each observation's value by index), with the weights `w`, the group's total weight `total` (the above
  /// group's weights plus the prior's) and the prior's weight.
  bool log_density(const SortedRuns& runs, const double* column, const char* is_below,
                   std::span<const std::size_t> below, const TrialOrderWeights& w, double total, double prior_weight,
                   GridTable& out, GridScratch& scratch) const;

  /// 1 / (sigma sqrt(2 pi) mass) of a kernel centred at mu (mass on [low, high]).
  double scale(double mu, double sigma) const;

 private:
  // The bandwidth of a kernel at x whose neighbours in its group are `left` and `right`
  // (null: none, the range's end instead).
  double bandwidth(double x, const OrderEntry* left, const OrderEntry* right) const;
  // The nearest elements of the above group (the prior's centre is one) on each side of the
  // element just after the gap of `at`, the below group's skipped (is_below by index): null
  // where there is none, else `left` / `right`.
  static std::pair<const OrderEntry*, const OrderEntry*> above_neighbours(const RunCursor& at, const char* is_below,
                                                                          OrderEntry& left, OrderEntry& right);
  // Adds c0 K and c1 K (centre mu, bandwidth sigma) to the two sums: binned kernels are
  // collected, in order, for one accumulate_pair; wider ones go straight to the node sums.
  void add_kernel(double mu, double sigma, double c0, double c1);

  bool ready_ = false;
  bool consider_endpoints_ = false;
  double low_ = 0.0, high_ = 0.0, range_ = 0.0, sigma_min_ = 0.0, inv_norm_min_ = 0.0, prior_mu_ = 0.0;
  HermiteBins bins_;
  std::size_t cells_ = 0;
  std::size_t n_ = 0;                                      // observations in the sums
  std::vector<double> moment0_, moment1_;                  // [b * p + m]
  std::vector<double> direct0_, direct1_;                  // node sums of the wider kernels
  std::vector<double> binned_mu_, binned_c0_, binned_c1_;  // update()'s binned kernels
  std::vector<std::uint32_t> positions_;                   // update()'s walk through the runs (RunCursor::plan)
};

}  // namespace tpeopt::tpe::detail
