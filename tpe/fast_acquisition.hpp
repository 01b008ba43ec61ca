#pragma once
// Internal to TpeSampler (docs/tpe.md, "Fast acquisition"): the per-ask tables of the fast
// acquisition. log l(x) and log g(x) of a continuous axis on a uniform grid of nodes in the
// internal space (read back as cubics per cell), l's tabulated quantile function for the
// candidate draws, alias tables over the points of grid axes and their masses. Exposed in
// a header for the tests.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "tpe/parzen_estimator.hpp"
#include "tpe/search_space.hpp"
#include "tpe/trial_rng.hpp"

namespace tpeopt::tpe::detail {

/// Cells of the grid of a continuous axis (cells + 1 nodes on [low, high] of the internal
/// range). With magic clip every bandwidth is >= (high - low) / 100 once a group has 98
/// observations, so a kernel spans >= 10 cells.
inline constexpr std::size_t kGridCells = 1024;
/// Kernels are summed over +-kWindowSigmas of their centre (the rest weighs < exp(-32) = 1.3e-14
/// of their peak).
inline constexpr double kWindowSigmas = 8.0;
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

/// GridTable's 4-point interpolant stored per cell as a cubic in the offset t in [0, 1) from
/// the cell's left node (the same polynomial, rounded differently), read by Horner's rule.
struct CubicTable {
  double low = 0.0, inv_h = 0.0;
  std::size_t cells = 0;
  std::vector<double> c;  // [4 i .. 4 i + 3]: coefficients of t^0 .. t^3 in cell i
  /// False (empty) when a node is not finite.
  bool build(const GridTable& t);
  /// The value at x in [low, high].
  double at(double x) const {
    const double u = (x - low) * inv_h;
    const std::size_t i = std::min(static_cast<std::size_t>(u), cells - 1);
    const double f = u - static_cast<double>(i);
    const double* p = c.data() + 4 * i;
    return p[0] + f * (p[1] + f * (p[2] + f * p[3]));
  }
};

/// Tabulates log of the mixture density of continuous axis `a` of `est` (internal range
/// [model.low, model.high]) on `cells` cells. Returns false, leaving `out` empty, when the
/// grid does not resolve the estimator (a bandwidth under kMinSigmaCells cells).
bool log_density_grid(const ParzenEstimator& est, std::size_t a, const AxisModel& model, std::size_t cells,
                      GridTable& out);

/// std::round(x) without the library call (it is one per kernel): for 0 <= x < 2^52 the
/// integer part t is exact and so is x - t, so the half-away-from-zero rule is a compare.
inline double round_half_away(double x) {
  if (!(x >= 0.0 && x < 0x1p52)) return std::round(x);
  const double t = static_cast<double>(static_cast<std::int64_t>(x));
  return x - t >= 0.5 ? t + 1.0 : t;
}

/// Kernels of one bandwidth sg binned on a grid of `cells` cells (log_density_grid below):
/// each bin keeps the moments sum_k coef_k s_k^m / m! of its kernels (s_k: the centre's
/// offset from the bin's centre node, in bandwidths) and spreads them over its window with
/// the filters exp(-t^2 / 2) He_m(t). The plan (bin width r cells, p terms) is the one of
/// least work for a given number of kernels.
struct HermiteBins {
  static constexpr std::size_t kMaxTerms = 96;
  double low = 0.0, h = 0.0, sg = 0.0, inv_sg = 0.0, H = 0.0;  // H: bin width
  std::size_t cells = 0, r = 1, p = 0, n_bins = 0, Wn = 0, width = 0;
  std::vector<double> filter;  // [m * width + d + Wn], d in [-Wn, Wn] nodes
  double inv_next[kMaxTerms] = {};

  void plan(double low, double high, std::size_t cells, double sg, std::size_t n_kernels);
  /// The bin (as a double) whose centre node is nearest to mu (rounded half away from 0).
  double bin_of(double mu) const {
    return std::clamp(round_half_away((mu - low) / H), 0.0, static_cast<double>(n_bins - 1));
  }
  /// Adds each kernel's coef s^m / m! to moment[b * p + m] (b its bin), kernels in order;
  /// with `sigma` given, kernels whose bandwidth is not sg are skipped.
  void accumulate(const double* mu, const double* sigma, const double* coef, std::size_t K, double* moment) const;
  /// The same for two coefficient sets of the same kernels (every kernel binned).
  void accumulate_pair(const double* mu, const double* coef0, const double* coef1, std::size_t K, double* moment0,
                       double* moment1) const;
  /// Adds the binned kernels' values at the nodes (moments x filters) to sum[0 .. cells].
  void spread(const double* moment, double* sum) const;
};

/// c exp(-((x - mu) / sg)^2 / 2) added to sum[i] at the nodes x = low + i h within
/// kWindowSigmas of mu (a recurrence over the nodes, exp re-anchored every 32 of them).
void add_kernel_direct(double* sum, double c, double mu, double sg, double low, double h, std::size_t cells);

/// out = log of the node sums (-inf where a sum is 0) on [low, high] with `cells` cells.
void log_of_sums(const std::vector<double>& sum, double low, double high, std::size_t cells, GridTable& out);

inline constexpr double kSqrt2Pi = 2.5066282746310002;  // sqrt(2 pi)

/// 1 / (sigma sqrt(2 pi) mass) of a kernel centred at mu in [low, high], its mass on [low, high]
/// exact up to rounding except that a tail beyond 9 sigmas counts as 0 (< 1.2e-19);
/// inv_norm_min = 1 / (sigma_min sqrt(2 pi)), reused for the (many) kernels of that bandwidth.
double kernel_scale(double mu, double sigma, double low, double high, double sigma_min, double inv_norm_min);

/// Reusable buffers of the table builders (one per worker).
struct GridScratch {
  std::vector<double> mu, sigma, coef, sum, moment;
  HermiteBins bins;
};

/// The coefficient of each kernel of axis `a` of an estimator: exp(log weight + log norm),
/// i.e. weight / (sigma sqrt(2 pi) mass), the factor of exp(-((x - mu) / sigma)^2 / 2).
void kernel_coefficients(const ParzenEstimator& est, std::size_t a, std::vector<double>& out);

/// The same for a mixture given by its kernels: centre mu[k], bandwidth sigma[k] and
/// coefficient coef[k] = weight / (sigma sqrt(2 pi) mass) (the density is
/// sum_k coef[k] exp(-((x - mu[k]) / sigma[k])^2 / 2) on [low, high]).
///
/// Kernels sharing the smallest bandwidth (magic clip makes them most of a large group)
/// are binned: with s the offset of a centre from its bin centre and t the offset of a node
/// (both in bandwidths), exp(-(t - s)^2 / 2) = exp(-t^2 / 2) sum_m He_m(t) s^m / m!
/// (probabilists' Hermite polynomials), truncated where Cramer's bound
/// |He_m(t)| exp(-t^2 / 4) <= 1.0865 sqrt(m!) puts the remainder under 1e-12 of the kernel's
/// peak (kBinnedError). Each bin keeps the moments sum coef s^m / m! and spreads them over its window with
/// the fixed filters exp(-t^2 / 2) He_m(t). Other kernels are evaluated at the nodes of their
/// window by a recurrence (exp re-anchored every 32 nodes). Deterministic (fixed order).
bool log_density_grid(const double* mu, const double* sigma, const double* coef, std::size_t K, double low, double high,
                      std::size_t cells, GridTable& out, GridScratch& scratch);

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

/// Candidate draws of the fast acquisition on a continuous axis (docs/tpe.md, "Fast
/// acquisition"): l(x) is replaced by the piecewise-linear density through its tabulated
/// node values (normalized), whose CDF is exact at the nodes and quadratic within a cell; its
/// quantile function is tabulated at u = j / kQuantileCells and read by linear interpolation.
/// A draw is one 64-bit random word: its top kQuantileBits bits pick the u cell, the low 52
/// bits the position in it.
inline constexpr unsigned kQuantileBits = 12;
inline constexpr std::size_t kQuantileCells = std::size_t{1} << kQuantileBits;

struct CandidateTable {
  double low = 0.0, high = 0.0, h = 0.0;
  std::size_t cells = 0;
  std::vector<double> dens;  // normalized piecewise-linear density at the nodes (cells + 1)
  std::vector<double> cdf;   // its CDF at the nodes: cdf[0] = 0, cdf[cells] = 1
  std::vector<double> q;     // [2 j] = Q(j / M), [2 j + 1] = Q((j + 1) / M) - Q(j / M), j < M

  /// From the log density table of l (every node finite). False if it is not usable.
  bool build(const GridTable& log_l);
  /// The internal value drawn by the random word `bits` (in [low, high]).
  double draw(std::uint64_t bits) const { return along_u(q, bits); }
  /// Scores along u: [2 j] = score(Q(j / M)), [2 j + 1] = the difference to the next node;
  /// a candidate's score is their linear interpolation at its u (set_scores).
  std::vector<double> t;
  void set_scores(const CubicTable& score);
  double score(std::uint64_t bits) const { return along_u(t, bits); }
  /// CDF of the piecewise-linear density at x (the exact CDF of draw() up to the quantile
  /// table's linear interpolation within u cells of width 1 / kQuantileCells).
  double cdf_at(double x) const;

 private:
  /// A word's u cell j (top kQuantileBits bits) and position in it (low 52 bits, in [0, 1)):
  /// v[2 j] + frac v[2 j + 1], for a table of (value, difference to the next) pairs.
  static double along_u(const std::vector<double>& v, std::uint64_t bits) {
    const std::size_t j = static_cast<std::size_t>(bits >> (64 - kQuantileBits));
    const double frac = std::bit_cast<double>((bits & ((std::uint64_t{1} << 52) - 1)) | 0x3ff0000000000000ULL) - 1.0;
    return v[2 * j] + frac * v[2 * j + 1];
  }
};

/// Grid axes with at most this many grid points (int, stepped float, log int) draw and score
/// candidates from per-grid-point tables in fast mode.
inline constexpr std::size_t kMaxFastGrid = 4096;

/// A discrete distribution over n grid points, drawn in O(1) by Walker's alias method from
/// one 64-bit word (high 32 bits: the column, low 32 bits: the threshold test).
struct AliasTable {
  std::vector<std::uint64_t> entry;          // (alias << 33) | threshold, threshold in [0, 2^32]
  void build(const std::vector<double>& p);  // p >= 0, not all 0
  std::size_t draw(std::uint64_t bits) const {
    const std::size_t n = entry.size();
    const std::size_t j = static_cast<std::size_t>(((bits >> 32) * static_cast<std::uint64_t>(n)) >> 32);
    const std::uint64_t e = entry[j];
    // Branch-free: whether the column keeps j is a coin toss the predictor cannot learn.
    const auto alias = static_cast<std::size_t>(e >> 33);
    const std::size_t keep = -static_cast<std::size_t>((bits & 0xffffffffULL) < (e & ((std::uint64_t{1} << 33) - 1)));
    return alias ^ ((j ^ alias) & keep);
  }
  /// The probability of point j under draw() (exact: thresholds are multiples of 2^-32).
  std::vector<double> probabilities() const;
};

/// The cells a Discrete axis (int, stepped float) is tabulated on: its widened range
/// [low - step/2, high + step/2] with an even number r of cells per grid point, at least 1024
/// cells in all. 0 when the axis is not Discrete or has fewer than 2 or more than
/// kMaxFastGrid points.
std::size_t discrete_table_cells(const AxisModel& model);

/// The masses of a Discrete axis' grid points from a log density tabulated on
/// discrete_table_cells(model) cells of its widened range: each point's r cells integrated by
/// Simpson's rule. False (out empty) when a mass is not finite.
bool discrete_masses(const GridTable& log_density, const AxisModel& model, std::vector<double>& out,
                     GridScratch& scratch);

/// The masses of the n_grid points of a Discrete axis under the mixture mu/sigma/coef (coef:
/// weight / (sigma sqrt(2 pi) mass on the widened range)), tabulated on
/// discrete_table_cells(model) cells and integrated by discrete_masses. False (out empty)
/// when the grid does not resolve the mixture (log_density_grid).
bool grid_masses(const double* mu, const double* sigma, const double* coef, std::size_t K, const AxisModel& model,
                 std::vector<double>& out, GridScratch& scratch);

/// The same for a Discrete axis `a` of an estimator (its kernels' normalizations).
bool grid_masses(const ParzenEstimator& est, std::size_t a, const AxisModel& model, std::vector<double>& out,
                 GridScratch& scratch);

/// The fast acquisition of one continuous axis: candidates from l's tabulated quantile
/// function, scored by the tabulated log l - log g.
struct ContinuousFastAxis {
  CubicTable score;     // log l - log g, cubic per grid cell
  CandidateTable cand;  // draws, and the scores along u

  /// From l's and g's log density tables (same grid). False when a table is unusable.
  bool build(const GridTable& log_l, const GridTable& log_g);
  /// The random word of the winning candidate among n drawn from `engine` (one word each):
  /// the first with the largest score. Its internal value is cand.draw(word).
  std::uint64_t best(TrialEngine& engine, std::size_t n) const {
    std::uint64_t best_word = engine();
    double best_score = cand.score(best_word);
    for (std::size_t c = 1; c < n; ++c) {
      const std::uint64_t word = engine();
      const double s = cand.score(word);
      if (s > best_score) {
        best_score = s;
        best_word = word;
      }
    }
    return best_word;
  }
};

/// The fast acquisition of one grid axis (int, stepped float, or log int) with at most
/// kMaxFastGrid points: l's mass of each point (alias table) and each point's score.
struct GridFastAxis {
  AliasTable alias;
  std::vector<double> score, external, internal;  // per grid point

  /// Discrete axis (int, stepped float): from l's and g's masses of the grid points.
  bool build_discrete(const Axis& axis, const AxisModel& model, const std::vector<double>& mass_l,
                      const std::vector<double>& mass_g);
  /// Log-int axis: the continuous axis' candidate distribution rounded to the integers (an
  /// integer's mass is the piecewise-linear density's mass of its cell in log space), each
  /// scored at its log (the exact path scores the rounded value, as Optuna does).
  bool build_log_int(const Axis& axis, const AxisModel& model, const ContinuousFastAxis& continuous);
  /// The grid index of the winning candidate among n (one word each; the first best).
  std::size_t best(TrialEngine& engine, std::size_t n) const {
    const double* sc = score.data();
    std::size_t best_index = alias.draw(engine());
    double best_score = sc[best_index];
    for (std::size_t c = 1; c < n; ++c) {
      const std::size_t v = alias.draw(engine());
      if (sc[v] > best_score) {
        best_score = sc[v];
        best_index = v;
      }
    }
    return best_index;
  }
};

/// Grid points of a log-int axis (0 when the axis is not one).
std::size_t log_int_points(const Axis& axis, const AxisModel& model);

}  // namespace tpeopt::tpe::detail
