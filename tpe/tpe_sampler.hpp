#pragma once
// Tree-structured Parzen Estimator with Optuna's TPESampler semantics and defaults.
// docs/tpe.md states every rule and where it follows or departs from Optuna.
#include <cstdint>
#include <memory>
#include <vector>

#include "tpe/batch_tpe_config.hpp"
#include "tpe/sampler.hpp"
#include "tpe/search_space.hpp"

namespace tpeopt {
class WorkerPool;
}

namespace tpeopt::tpe {

/// How candidates are scored (docs/tpe.md, "Acquisition" and "Fast acquisition").
///  - Exact: log l(x) - log g(x) summed over every kernel for each candidate (Optuna's).
///  - Fast: per ask and axis, l's distribution and log l - log g are tabulated; a candidate is
///    one random word turned into a draw by table lookup (quantile table of continuous axes,
///    alias table of grid axes) and scored by lookup. A different (documented) sampler: given
///    the same candidates it picks Exact's argmax in >= 99% of draws.
enum class Acquisition { Exact, Fast };

/// Which Parzen model an ask uses (TpeConfig::multivariate).
enum class Multivariate { Off, On, Auto };

/// Which TPE a study runs (TpeConfig::preset; docs/tpe.md).
///  - Batch: the batch TPE sampler (tpe/batch_tpe_sampler.hpp), built for batches of hundreds
///    to thousands of trials and budgets of 10^4 to 10^6; the default.
///  - Optuna: Optuna's TPESampler (TpeSampler below), with every rule and setting of Optuna's.
enum class Preset { Batch, Optuna };

/// Auto's default budget, in kernel terms per trial (docs/tpe.md, "Multivariate TPE").
inline constexpr std::uint64_t kDefaultMultivariateBudget = 120000;

/// TPE settings. `preset` picks the sampler; the fields after it are the Optuna preset's
/// (defaults are Optuna's, except acquisition, which Optuna does not have), `batch` holds the
/// batch preset's.
struct TpeConfig {
  Preset preset = Preset::Batch;
  BatchTpeConfig batch;
  /// Trials sampled uniformly at random before TPE starts (counted in told,
  /// non-failed trials at the time of ask).
  int n_startup_trials = 10;
  /// Candidates drawn from l(x) per trial (per axis when univariate); the best by
  /// log l(x) - log g(x) is proposed.
  int n_ei_candidates = 24;
  /// Joint (multivariate) Parzen estimator over all axes instead of one per axis, with
  /// Optuna 4.9+'s bandwidths (Optuna 5's default; docs/tpe.md, "Multivariate"). Its asks
  /// cost candidates x observations x axes per trial. Off: one estimator per axis; On: the
  /// joint one always; Auto: the joint one while a trial's scoring costs at most
  /// multivariate_budget, one per axis after. Off by default (the preset keeps Optuna's
  /// semantics as before Optuna 5: univariate by default; docs/tpe.md, "Departures from Optuna").
  Multivariate multivariate = Multivariate::Off;
  /// Auto's limit on a trial's joint scoring: n_ei_candidates x observations x modelled
  /// axes, a stepped axis (int, stepped float, log int) counting 20 (its term costs 20 times
  /// a continuous one's).
  std::uint64_t multivariate_budget = kDefaultMultivariateBudget;
  /// Weight of the prior component (mu = (low+high)/2, sigma = high-low).
  double prior_weight = 1.0;
  /// Optuna's "magic clip" of bandwidths to [(high-low)/min(100, n+2), high-low].
  bool consider_magic_clip = true;
  /// Optuna's consider_endpoints (bandwidth of the extreme kernels).
  bool consider_endpoints = false;
  /// Candidate sampling and scoring; Fast is exact on categorical axes, on int and stepped
  /// axes of more than 4096 points and in multivariate mode.
  Acquisition acquisition = Acquisition::Fast;
  /// Worker threads for ask() (1 = the sampler thread alone). Results do not depend on it.
  unsigned threads = 1;
  /// Whether `search.tpe.threads` was given: a study that leaves it out runs batch TPE's and
  /// this preset's ask() on more workers beside a GPU (engine::make_sampler).
  bool threads_listed = false;
};

class TpeSampler final : public Sampler {
 public:
  TpeSampler(SearchSpace space, Direction direction, std::uint64_t seed, TpeConfig config = {});
  ~TpeSampler() override;

  std::string name() const override { return "tpe"; }
  void ask(std::uint64_t first_trial, std::size_t n, double* out) override;
  void tell(std::uint64_t first_trial, std::span<const TrialOutcome> outcomes) override;
  void adopt(std::uint64_t first_trial, std::size_t n, const double* values) override;

  /// Number of told trials the estimators are built from (failed ones excluded).
  std::size_t n_observations() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace tpeopt::tpe
