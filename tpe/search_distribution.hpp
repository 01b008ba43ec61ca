#pragma once
// Batch TPE's evolve operator (docs/tpe.md, "Evolve"): a search distribution that persists
// from batch to batch, N(m, sigma^2 C) over the numeric codes, updated in tell() by the rules
// of CMA-ES (Hansen, "The CMA Evolution Strategy: A Tutorial", 2016): the mean moves to the
// weighted mean of its best trials, C learns from them (rank-mu) and from the path the mean
// travels (rank-one), and sigma grows or shrinks by cumulative step-size adaptation. It
// restarts, from a uniform random mean, when sigma collapses, C degenerates or its best stops
// improving. Unlike the joint kernel, which is re-fitted around the good set each batch, it
// can move its mean and expand or contract its step: what rotated, ill-conditioned problems
// need at batches of thousands.
//
// A block's trials are drawn from the Frame current when the block was asked; the update of
// a told block measures its steps in that frame (with pipelining, the distribution has moved
// since) and carries them into the current frame for C's rank-mu term, the current frame
// being the one frame() returns (compared by address), so the state is a function of the
// seed and the told trials: pipelined == serial, resume == uninterrupted.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "tpe/trial_rng.hpp"

namespace tpeopt::tpe {

class SearchDistribution {
 public:
  /// What one block's trials are drawn from: x = mean + sigma * L z, z ~ N(0, I), L the lower
  /// Cholesky factor of C (row-major).
  struct Frame {
    std::vector<double> mean;
    double sigma = 0.0;
    std::vector<double> chol;
    std::size_t start = 0;  // restarts() when it was made: a block drawn before a restart is not used
  };

  /// n numeric codes, all in [0, 1]; starts at `mean` with C = I and sigma0.
  SearchDistribution(std::size_t n, std::span<const double> mean, double sigma0 = kSigma0);

  static constexpr double kSigma0 = 0.3;

  std::size_t dimension() const { return n_; }
  std::shared_ptr<const Frame> frame() const { return frame_; }

  /// One draw from `frame` into out[0 .. n): the Gaussian draw reflected into [0, 1].
  static void draw(const Frame& frame, TrialEngine& engine, double* out);

  /// Updates from one block's trials drawn from `drawn_from` (ignored when drawn before the
  /// last restart): `selected` are the codes of the trials it selected, best first (any
  /// operator's; each step from the frame's mean is shortened to a Mahalanobis length of at
  /// most sqrt(n) + 2n / (n + 2)), `lambda` the block's number of evolve trials. `improved`
  /// says whether the block's best beat the best since the last (re)start: a run of blocks
  /// without improvement ends in a restart (should_restart()).
  void update(const Frame& drawn_from, std::span<const double* const> selected, std::size_t lambda, bool improved);

  /// Whether the distribution should restart: sigma * sqrt(max C_ii) under 1e-12, a condition
  /// number of C's diagonal over 1e14, a C that could not be factored, or no improvement for
  /// 10 + 30 n / lambda blocks.
  bool should_restart() const;
  /// Starts again at `mean` with C = I, sigma0 and empty paths.
  void restart(std::span<const double> mean, double sigma0 = kSigma0);

  double sigma() const { return frame_->sigma; }
  double covariance(std::size_t i, std::size_t j) const { return cov_[i * n_ + j]; }
  std::size_t generation() const { return generation_; }
  std::size_t restarts() const { return restarts_; }

 private:
  void reset(std::span<const double> mean, double sigma0);
  void refresh_frame(std::vector<double> mean, double sigma);

  std::size_t n_;
  std::shared_ptr<const Frame> frame_;
  std::vector<double> cov_;         // C, row-major
  std::vector<double> path_sigma_;  // p_sigma, in C^(-1/2) coordinates (through L^-1)
  std::vector<double> path_c_;      // p_c
  std::size_t generation_ = 0;      // updates since the last (re)start
  std::size_t restarts_ = 0;
  std::size_t stalled_ = 0;  // updates since the best last improved
  std::size_t last_lambda_ = 1;
  bool degenerate_ = false;  // C was replaced by I (refresh_frame)
};

}  // namespace tpeopt::tpe
