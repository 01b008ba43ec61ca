#pragma once
// Batch TPE's l(x): the good set (the best trials so far) as Parzen estimators of three
// shapes, one per proposal operator (docs/tpe.md, "Batch TPE"). Built once per ask from the
// pool, then read by every trial of the batch (from any thread: it is not changed after
// construction). Every draw comes from the trial's own engine.
#include <array>
#include <cstddef>
#include <vector>

#include "tpe/fast_acquisition.hpp"  // for AliasTable
#include "tpe/good_pool.hpp"
#include "tpe/proposal_operator.hpp"
#include "tpe/search_distribution.hpp"
#include "tpe/trial_rng.hpp"
#include "tpe/unit_space.hpp"

namespace tpeopt::tpe {

class GoodSetModel {
 public:
  /// The good set is the pool's best `size` trials (size <= pool.size(), >= 1); the joint
  /// kernel's bandwidth is Scott's factor times joint_step.
  /// `evolve`: the frame Evolve proposals draw from (required for them, else unused).
  GoodSetModel(const UnitSpace& space, const GoodPool& pool, std::size_t size, double joint_step = 1.0,
               const SearchDistribution::Frame* evolve = nullptr);

  std::size_t size() const { return size_; }
  std::size_t n_codes() const { return space_->n_codes(); }
  /// The good trials' rank weights, w_r proportional to ln(size + 1/2) - ln(r), r = 1 .. size.
  double weight(std::size_t rank) const { return weights_[rank]; }
  double effective_size() const { return effective_size_; }
  const double* codes(std::size_t rank) const { return pool_->best_codes(rank); }

  /// One candidate of `op` into codes[0 .. n_codes), numeric codes in [0, 1] and snapped to
  /// their grid, categorical codes a choice index.
  void propose(ProposalOperator op, TrialEngine& engine, double* codes) const;

  /// Bandwidth of the marginal (and screening) kernels on numeric code c: the good set's
  /// weighted standard deviation times Scott's factor effective_size^(-1/5).
  double scott_bandwidth(std::size_t c) const { return scott_[c]; }
  /// l's probability of choice k of categorical code c (with the uniform prior's share).
  double choice_probability(std::size_t c, std::size_t k) const { return choice_p_[c][k]; }
  /// The joint kernel's C over the numeric codes (their order in the code vector): the good
  /// set's weighted covariance, its diagonal floored at (half a grid step)^2, plus the ridge
  /// that made it positive definite (0 unless it was singular); and Scott's factor h.
  std::size_t n_numeric() const { return numeric_.size(); }
  double covariance(std::size_t i, std::size_t j) const { return cov_[i * numeric_.size() + j]; }
  double joint_bandwidth() const { return joint_h_; }  // Scott's factor times joint_step
  /// The uniform prior's weight in l's mixture: 1 / (size + 1).
  double prior_weight() const { return 1.0 / (static_cast<double>(size_) + 1.0); }

 private:
  std::size_t pick(TrialEngine& engine) const;  // a good trial's rank, by weight
  void joint(TrialEngine& engine, double* codes) const;
  void marginal(TrialEngine& engine, double* codes) const;
  void recombine(TrialEngine& engine, double* codes) const;
  void evolve(TrialEngine& engine, double* codes) const;

  const UnitSpace* space_;
  const GoodPool* pool_;
  std::size_t size_;
  const SearchDistribution::Frame* evolve_;
  std::vector<double> weights_;
  detail::AliasTable picker_;  // draws a rank by weight in O(1)
  double effective_size_ = 1.0;
  std::vector<std::size_t> numeric_;                               // numeric codes
  std::vector<double> cov_;                                        // C over numeric_, row-major
  std::vector<double> chol_;                                       // its lower Cholesky factor
  double joint_h_ = 1.0;                                           // Scott's factor for the joint kernel
  std::vector<double> marginal_sigma_;                             // [rank * n_codes + c]: neighbour-gap bandwidths
  std::vector<double> scott_;                                      // per code
  std::vector<std::vector<double>> choice_p_, choice_cumulative_;  // per categorical code
};

}  // namespace tpeopt::tpe
