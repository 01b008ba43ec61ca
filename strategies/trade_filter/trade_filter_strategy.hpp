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
/// (fixed-point) total percent return of the kept trades. Metrics: kept, wins, losses.
/// Immutable and thread-safe; shares its data with the CUDA twin and the grid search.
class TradeFilterStrategy final : public Strategy {
 public:
  /// min_trades: trials keeping fewer trades are infeasible (violation = the shortfall).
  TradeFilterStrategy(std::shared_ptr<const TradeFilterData> data, std::int64_t min_trades = 1);

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
  /// The trades of the days in `ranges` only (subset_trade_filter_days).
  std::unique_ptr<Strategy> subset(const std::vector<AtomRange>& ranges, std::int64_t min_trades) const override;
  /// The trading days (trade_filter_days), increasing: atom k is day days()[k].
  const std::vector<std::int64_t>& days() const { return days_; }

  const TradeFilterData& data() const { return *data_; }
  std::shared_ptr<const TradeFilterData> shared_data() const { return data_; }
  std::int64_t min_trades() const override { return min_trades_; }
  /// Host pointers for the fast (record bisection) methods.
  trade_filter::TradeArrays arrays() const;

 private:
  std::shared_ptr<const TradeFilterData> data_;
  std::int64_t min_trades_;
  std::vector<std::int64_t> days_;
};

}  // namespace tpeopt::strategies
