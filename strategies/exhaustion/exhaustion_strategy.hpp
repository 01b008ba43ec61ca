#pragma once
#include <string>
#include <vector>

#include "common/candles.hpp"
#include "strategies/exhaustion/exhaustion.hpp"
#include "strategies/strategy.hpp"

namespace tpeopt::strategies {

/// Parses total_return | mean_r | sharpe | profit_factor; throws Error naming objective.name.
exhaustion::Objective parse_exhaustion_objective(const std::string& name);

struct ExhaustionOptions {
  exhaustion::Objective objective = exhaustion::Objective::TotalReturn;
  int min_trades = 10;  ///< trials with fewer trades are infeasible: violation = min_trades - trades
};

/// The `exhaustion` strategy bound to one candle series (docs/strategies.md, "exhaustion").
/// The trial-independent series (close location, true range, prefix sums of TR, volume
/// and their squares) are computed once here, on the host, in double, in bar order; the
/// CPU reference (evaluate) and the CUDA twin (gpu/exhaustion_kernel.cu) both read them.
class ExhaustionStrategy final : public Strategy {
 public:
  ExhaustionStrategy(Candles candles, ExhaustionOptions options);

  std::string name() const override { return "exhaustion"; }
  const std::vector<std::string>& param_names() const override;
  std::vector<double> param_defaults() const override;
  const std::vector<std::string>& metric_names() const override;
  void check_param_range(std::size_t slot, double low, double high) const override;
  TrialScore evaluate(const double* params, double* metrics) const override;
  std::vector<std::string> data_checksums() const override;

  /// The summary of one trial's trades (CPU reference; evaluate() = finish(summarize())).
  exhaustion::Summary summarize(const double* params) const;

  /// The trades of one trial in order (CPU reference), and its summary.
  std::vector<exhaustion::Trade> trades(const double* params, exhaustion::Summary* summary = nullptr) const;

  const Candles& candles() const { return candles_; }
  const ExhaustionOptions& options() const { return options_; }
  int n_bars() const { return static_cast<int>(candles_.size()); }
  /// Trial-independent series (n bars; prefix sums n + 1).
  const std::vector<double>& cloc() const { return cloc_; }
  const std::vector<double>& true_range() const { return tr_; }
  const std::vector<double>& s_tr() const { return s_tr_; }
  const std::vector<double>& q_tr() const { return q_tr_; }
  const std::vector<double>& s_vol() const { return s_vol_; }
  const std::vector<double>& q_vol() const { return q_vol_; }
  /// Bars over host memory.
  exhaustion::Bars host_bars() const;

  /// The series one trial reads, computed with the same TPEOPT_HD functions as the GPU:
  /// EMA of `span` over close, z-scores of volume or TR over `w` bars.
  void ema(int span, double* out) const;
  void volume_z(int w, double* out) const;
  void tr_z(int w, double* out) const;

 private:
  template <typename OnTrade>
  void walk(const double* params, OnTrade&& on_trade) const;

  Candles candles_;
  ExhaustionOptions options_;
  std::vector<double> cloc_, tr_, s_tr_, q_tr_, s_vol_, q_vol_;
  std::string checksum_;
};

/// "gap", "stop", "target", "time".
const char* exit_reason_name(int reason);

}  // namespace tpeopt::strategies
