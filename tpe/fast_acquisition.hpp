#pragma once
// Internal to TpeSampler (docs/tpe.md, "Fast acquisition"): log l(x) and log g(x) of a
// continuous axis tabulated once per ask on a uniform grid of nodes in the internal space,
// and read back by cubic interpolation. Exposed in a header for the tests.
#include <cstddef>
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
///
/// Kernels sharing the smallest bandwidth (magic clip makes them most of a large group)
/// are binned: the offset s of a centre from its bin is expanded as exp(t s) =
/// sum_m t^m s^m / m! with enough terms for a relative error under 1e-15, then each bin's
/// moments are spread over the nodes within the window by fixed filters. Other kernels are
/// evaluated directly at the nodes of their window. Deterministic (fixed order of sums).
bool log_density_grid(const ParzenEstimator& est, std::size_t a, const AxisModel& model, std::size_t cells,
                      GridTable& out);

}  // namespace tpeopt::tpe::detail
