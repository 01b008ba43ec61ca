#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "strategies/strategy.hpp"
#include "strategies/trade_filter/trade_filter.hpp"
#include "strategies/trade_filter/trade_filter_data.hpp"

namespace tpeopt::strategies {

/// The parameter slots, in the order of trade_filter::Slot: the five minimums default to
/// -infinity (no filter); target_pct (> 0 and still > 0 as float32) and stop_pct (< 0
/// likewise) are required.
const ParamList& trade_filter_params();

/// The `trade_filter` strategy (a trade-log filter; semantics in docs/strategies.md): the
/// parameters filter a trade log by entry metrics and replace each kept trade's exit by
/// a take profit and a stop loss replayed against its price path. Score: the exact
/// (fixed-point) total percent return of the kept trades. Metrics: kept, wins, losses (with
/// folds, the fold columns after them).
/// Immutable and thread-safe; shares its data with the CUDA twin and the grid search.
class TradeFilterStrategy final : public Strategy {
 public:
  /// min_trades: trials keeping fewer trades are infeasible (violation = the shortfall).
  /// maximize: objective.direction, read by the folds' rules only (rule "min": the worst fold).
  TradeFilterStrategy(std::shared_ptr<const TradeFilterData> data, std::int64_t min_trades = 1, bool maximize = true);

  std::string name() const override { return "trade_filter"; }
  const ParamList& params() const override { return trade_filter_params(); }
  const std::vector<std::string>& metric_names() const override;
  /// The CPU reference: a plain linear walk over every kept trade's path.
  TrialScore evaluate(const double* params, double* metrics) const override;
  std::vector<std::string> data_checksums() const override;

  // ---- data subsets (docs/strategies.md, "Data subsets"): atoms are trading days ------------------------
  std::size_t n_atoms() const override { return days_.size(); }
  std::int64_t atom_time_s(std::size_t k) const override { return days_.at(k) * 86400; }
  bool atoms_are_slices() const override { return true; }
  /// The trades of the days in `ranges` only (subset_trade_filter_days); keeps the folds.
  std::unique_ptr<Strategy> subset(const std::vector<AtomRange>& ranges, std::int64_t min_trades) const override;
  /// The trading days (trade_filter_days), increasing: atom k is day days()[k].
  const std::vector<std::int64_t>& days() const { return days_; }

  // ---- folds (Strategy::with_folds; docs/strategies.md, "Folds"): atoms are trading days -----------
  /// Each kept trade also joins the fold of its entry day (trade_filter_folds.hpp); edges are
  /// days of the whole data, also for a subset (whole_days()). The rules read `maximize`
  /// (rule "min": the worst fold). The CUDA twin scores the folds with the same TPEOPT_HD code.
  std::unique_ptr<Strategy> with_folds(const FoldSpec& folds, const AcrossFolds& rule) const override;
  const FoldSpec& folds() const override { return folds_; }
  /// The trading days of the data this strategy was cut from (its own days when not a subset).
  const std::vector<std::int64_t>& whole_days() const { return *whole_days_; }
  /// Trade i's fold (-1: none), one per trade; empty without folds.
  const std::vector<std::int8_t>& trade_folds() const { return trade_fold_; }
  /// trade_folds() as runs of consecutive trades of one fold (TradeArrays' fold runs): run r
  /// is trades [fold_run_starts()[r], fold_run_starts()[r + 1]) of fold fold_run_folds()[r];
  /// both empty without folds.
  const std::vector<std::uint64_t>& fold_run_starts() const { return fold_run_start_; }
  const std::vector<std::int8_t>& fold_run_folds() const { return fold_run_fold_; }
  FoldRule fold_rule() const { return strategies::fold_rule(rule_, maximize_); }

  const TradeFilterData& data() const { return *data_; }
  std::shared_ptr<const TradeFilterData> shared_data() const { return data_; }
  std::int64_t min_trades() const override { return min_trades_; }
  /// Host pointers for the fast (record bisection) methods; the fold runs are set with folds.
  trade_filter::TradeArrays arrays() const;

 private:
  /// Sets the folds (none: edges empty) and each trade's fold.
  void set_folds(const FoldSpec& folds, const AcrossFolds& rule);

  std::shared_ptr<const TradeFilterData> data_;
  std::int64_t min_trades_;
  std::vector<std::int64_t> days_;
  std::shared_ptr<const std::vector<std::int64_t>> whole_days_;  ///< fold edges index these days
  bool maximize_;
  FoldSpec folds_;  ///< none: no folds
  AcrossFolds rule_;
  std::vector<std::int8_t> trade_fold_;
  std::vector<std::uint64_t> fold_run_start_;
  std::vector<std::int8_t> fold_run_fold_;
  std::vector<std::string> fold_names_;
};

}  // namespace tpeopt::strategies
