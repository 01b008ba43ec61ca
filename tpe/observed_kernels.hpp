#pragma once
// Internal to TpeSampler (docs/tpe.md, "Fast acquisition", item 2): g's kernels of one
// continuous axis kept as running sums from tell() to tell(), so that an ask pays O(grid)
// for g instead of O(observations). Exposed in a header for the tests.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "tpe/fast_acquisition.hpp"
#include "tpe/parzen_estimator.hpp"

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

/// One axis' observations in (value, index) order with the prior's centre inserted after its
/// equals (ParzenEstimator's stable order), as positions q = 0 .. n.
struct SortedView {
  const std::uint32_t* order = nullptr;  // observation indices sorted by (value, index)
  const double* value = nullptr;         // their values, in that order
  std::size_t n = 0;
  double prior_mu = 0.0;
  std::size_t prior_at = 0;  // the prior's position

  SortedView(const std::uint32_t* order, const double* sorted_value, std::size_t n, double prior_mu);
  bool is_prior(std::size_t q) const { return q == prior_at; }
  /// The position in `order` of the observation at position q (not the prior's).
  std::size_t slot(std::size_t q) const { return q < prior_at ? q : q - 1; }
  std::uint32_t index(std::size_t q) const { return order[slot(q)]; }
  double x(std::size_t q) const { return q == prior_at ? prior_mu : value[slot(q)]; }
  /// The position of the observation at `o` in `order`.
  std::size_t position_of(std::size_t o) const { return o < prior_at ? o : o + 1; }
  /// The position of observation i, whose value is v (a binary search by (value, index)).
  std::size_t position_of_index(std::uint32_t i, double v) const;
};

/// g's kernels over every observation of a continuous or discrete axis (a discrete axis' g is
/// the same mixture density on its widened range, integrated over each point's cell later), each with the bandwidth it has
/// among all observations (and the prior's centre; computed from the sorted view when needed,
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
  /// Builds the sums over every observation of `view`.
  void rebuild(const SortedView& view, const AxisModel& model, const ParzenParameters& params);
  /// After tell() merged new observations into the order: `before` and `after` are the views
  /// before and after, `fresh` the new observations' positions in after's `order` (ascending).
  void update(const SortedView& before, const SortedView& after, std::span<const std::size_t> fresh);
  /// log g on the grid (cells() cells) for the split given by is_below / below (indices of
  /// the below group; `column` holds each observation's value by index), with the weights `w`, the group's total weight `total` (the above
  /// group's weights plus the prior's) and the prior's weight.
  bool log_density(const SortedView& view, const double* column, const char* is_below,
                   std::span<const std::size_t> below,
                   const TrialOrderWeights& w, double total, double prior_weight, GridTable& out,
                   GridScratch& scratch) const;

  /// The bandwidth of the kernel at position q among all observations (is_below null) or
  /// among the above group (is_below[i] != 0 marks the below group's; q must not be one).
  double bandwidth(const SortedView& view, std::size_t q, const char* is_below) const;
  /// 1 / (sigma sqrt(2 pi) mass) of a kernel centred at mu (mass on [low, high]).
  double scale(double mu, double sigma) const;

 private:
  // Adds c0 K and c1 K (centre mu, bandwidth sigma) to the two sums: binned kernels are
  // collected, in order, for one accumulate_pair; wider ones go straight to the node sums.
  void add_kernel(double mu, double sigma, double c0, double c1);

  bool ready_ = false;
  bool consider_endpoints_ = false;
  double low_ = 0.0, high_ = 0.0, range_ = 0.0, sigma_min_ = 0.0, inv_norm_min_ = 0.0;
  HermiteBins bins_;
  std::size_t cells_ = 0;
  std::size_t n_ = 0;  // observations in the sums
  std::vector<double> moment0_, moment1_;  // [b * p + m]
  std::vector<double> direct0_, direct1_;  // node sums of the wider kernels
  std::vector<double> binned_mu_, binned_c0_, binned_c1_;  // update()'s binned kernels
};

}  // namespace tpeopt::tpe::detail
