#pragma once
// Internal to TpeSampler (docs/tpe.md, "Fast acquisition"): log l(x) and log g(x) of a
// continuous axis tabulated once per ask on a uniform grid of nodes in the internal space,
// and read back by cubic interpolation. Exposed in a header for the tests.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "tpe/parzen_estimator.hpp"

namespace tpeopt::tpe::detail {

/// Cells of the grid of a continuous axis (cells + 1 nodes on [low, high] of the internal
/// range). With magic clip every bandwidth is >= (high - low) / 100 once a group has 98
/// observations, so a kernel spans >= 10 cells.
inline constexpr std::size_t kGridCells = 1024;
/// Kernels are summed over +-kWindowSigmas of their centre (the rest weighs < exp(-50)).
inline constexpr double kWindowSigmas = 10.0;
/// A grid resolves an estimator when its smallest bandwidth spans at least this many cells.
inline constexpr double kMinSigmaCells = 4.0;

/// Values at the nodes low + i (high - low) / cells, i = 0 .. cells, read by 4-point
/// (cubic Lagrange) interpolation.
struct GridTable {
  double low = 0.0, high = 0.0, inv_h = 0.0;
  std::size_t cells = 0;
  std::vector<double> node;  // cells + 1 values

  bool empty() const { return node.empty(); }
  /// The interpolated value at x in [low, high] (callers keep x inside).
  double at(double x) const {
    double u = (x - low) * inv_h;
    const double last = static_cast<double>(cells - 2);
    double i = u < 1.0 ? 1.0 : (u >= last ? last : static_cast<double>(static_cast<long long>(u)));
    const double f = u - i;
    const double* p = node.data() + static_cast<std::size_t>(i) - 1;
    const double fp1 = f + 1.0, fm1 = f - 1.0, fm2 = f - 2.0;
    return -f * fm1 * fm2 * (1.0 / 6.0) * p[0] + fp1 * fm1 * fm2 * 0.5 * p[1] - fp1 * f * fm2 * 0.5 * p[2] +
           fp1 * f * fm1 * (1.0 / 6.0) * p[3];
  }
};

/// Tabulates log of the mixture density of continuous axis `a` of `est` (internal range
/// [model.low, model.high]) on `cells` cells. Returns false, leaving `out` empty, when the
/// grid does not resolve the estimator (a bandwidth under kMinSigmaCells cells).
bool log_density_grid(const ParzenEstimator& est, std::size_t a, const AxisModel& model, std::size_t cells,
                      GridTable& out);

/// Reusable buffers of the table builders (one per worker).
struct GridScratch {
  std::vector<double> mu, sigma, coef, sum, moment, filter;
  std::vector<std::uint32_t> id;
};

/// The same for a mixture given by its kernels: centre mu[k], bandwidth sigma[k] and
/// coefficient coef[k] = weight / (sigma sqrt(2 pi) mass) (the density is
/// sum_k coef[k] exp(-((x - mu[k]) / sigma[k])^2 / 2) on [low, high]).
///
/// Kernels sharing the smallest bandwidth (magic clip makes them most of a large group)
/// are binned: with s the offset of a centre from its bin centre and t the offset of a node
/// (both in bandwidths), exp(-(t - s)^2 / 2) = exp(-t^2 / 2) sum_m He_m(t) s^m / m!
/// (probabilists' Hermite polynomials), truncated where Cramer's bound
/// |He_m(t)| exp(-t^2 / 4) <= 1.0865 sqrt(m!) puts the remainder under 1e-16 of the kernel's
/// peak. Each bin keeps the moments sum coef s^m / m! and spreads them over its window with
/// the fixed filters exp(-t^2 / 2) He_m(t). Other kernels are evaluated at the nodes of their
/// window by a recurrence (exp re-anchored every 32 nodes). Deterministic (fixed order).
bool log_density_grid(const double* mu, const double* sigma, const double* coef, std::size_t K, double low,
                      double high, std::size_t cells, GridTable& out, GridScratch& scratch);

/// Tabulates log g(x) of one continuous axis straight from the axis' observations sorted by
/// (value, index): `sorted_index` lists observation indices in that order, `value[i]` is
/// observation i's internal value, `member_weight[i]` its normalized weight in the group (0
/// for observations outside the group, which `in_group[i] == 0` marks), `prior_weight` the
/// prior's normalized weight and `n_group` the group's size. Bandwidths, clipping and
/// normalizations are ParzenEstimator's (univariate); the table is log_density_grid's.
bool log_density_grid_sorted(const std::uint32_t* sorted_index, std::size_t n_obs, const double* value,
                             const char* in_group, const double* member_weight, std::size_t n_group,
                             double prior_weight, const AxisModel& model, const ParzenParameters& params,
                             std::size_t cells, GridTable& out, GridScratch& scratch);

}  // namespace tpeopt::tpe::detail
