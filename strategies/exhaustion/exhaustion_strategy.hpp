#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/candles.hpp"
#include "strategies/bar_block.hpp"
#include "strategies/exhaustion/exhaustion.hpp"
#include "strategies/strategy.hpp"

namespace tpeopt::strategies {

/// The parameter slots, in the order of exhaustion::Slot (docs/strategies.md, "exhaustion").
const ParamList& exhaustion_params();

/// Parses total_return | mean_r | sharpe | profit_factor; throws Error naming objective.name.
exhaustion::Objective parse_exhaustion_objective(const std::string& name);

struct ExhaustionOptions {
  exhaustion::Objective objective = exhaustion::Objective::TotalReturn;
  int min_trades = 10;   ///< trials with fewer trades are infeasible: violation = min_trades - trades
  bool maximize = true;  ///< objective.direction: which fold is the worst (folds' rules)
};

/// The `exhaustion` strategy bound to one candle series (docs/strategies.md, "exhaustion").
/// The trial-independent series (close location, true range, prefix sums of TR, volume
/// and their squares) are computed once here, on the host, in double, in bar order; the
/// CPU reference (evaluate) and the CUDA twin (exhaustion_device.cu) both read them.
class ExhaustionStrategy final : public Strategy {
 public:
  ExhaustionStrategy(Candles candles, ExhaustionOptions options);

  std::string name() const override { return "exhaustion"; }
  const ParamList& params() const override { return exhaustion_params(); }
  const std::vector<std::string>& metric_names() const override;
  /// Unblocked: finish(summarize()). Blocked: the score is the SUM over blocks (in block
  /// order) of each block's objective value; the violation and the metrics are those of
  /// all blocks' trades taken together in block order (one Summary over the concatenation).
  TrialScore evaluate(const double* params, double* metrics) const override;
  /// The same, and the final compounded equity of all the trades (several symbols' portfolio).
  TrialScore evaluate(const double* params, double* metrics, double* equity) const;
  std::vector<std::string> data_checksums() const override;

  // ---- data subsets (docs/strategies.md, "Data subsets"): atoms are bars -------------------------------
  std::size_t n_atoms() const override { return candles_.size(); }
  std::int64_t atom_time_s(std::size_t k) const override;
  /// The same series with each range as a block of its own (BarBlock), min_trades replaced.
  std::unique_ptr<Strategy> subset(const std::vector<AtomRange>& blocks, std::int64_t min_trades) const override;
  std::int64_t min_trades() const override { return options_.min_trades; }

  /// Strategy::with_folds: each trade also joins the fold of its entry bar (atoms are bars).
  /// The rules read options().maximize (rule "min": the worst fold). The CUDA twin scores the
  /// folds in each of its kernels with the same TPEOPT_HD functions.
  std::unique_ptr<Strategy> with_folds(const FoldSpec& folds, const AcrossFolds& rule) const override;
  const FoldSpec& folds() const override { return folds_; }
  /// with_folds with the folds already in this series' bars (`edge`: K + 1, `embargo_end`: K;
  /// strategies/folds.hpp's FoldBars), for one symbol of a data set of several, whose atoms
  /// are the symbols' bar times (ExhaustionSymbolsStrategy::with_folds checks `folds` against them).
  /// compound: each fold's score is the compound return of its trades (a symbol of the
  /// portfolio aggregate, whose symbols' scores are compound returns), not the objective.
  std::unique_ptr<ExhaustionStrategy> with_fold_bars(const FoldSpec& folds, const AcrossFolds& rule,
                                                     std::vector<int> edge, std::vector<int> embargo_end,
                                                     bool compound = false) const;
  /// Whether a fold's score is its trades' compound return (with_fold_bars), for the CUDA twin.
  bool fold_compound() const { return fold_compound_; }
  /// The folds in bars (strategies/folds.hpp's FoldBars), for the CUDA twin.
  const std::vector<int>& fold_edges() const { return fold_edge_; }
  const std::vector<int>& fold_embargo_ends() const { return fold_embargo_end_; }
  FoldRule fold_rule() const { return strategies::fold_rule(rule_, options_.maximize); }

  /// The same series, backtested as the given blocks (each within [0, n_bars()), non-empty,
  /// in any order; overlapping blocks are allowed and each counts). Empty = the whole series.
  std::unique_ptr<ExhaustionStrategy> with_blocks(std::vector<BarBlock> blocks, int min_trades) const;
  const std::vector<BarBlock>& blocks() const { return blocks_; }
  bool blocked() const { return !blocks_.empty(); }

  /// The summary of one trial's trades (CPU reference; unblocked evaluate() = finish(summarize())).
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
  /// Bars over host memory (the whole series).
  exhaustion::Bars host_bars() const;
  /// Bars of one block: the same series, walked over [block.begin, block.end).
  exhaustion::Bars host_bars(const BarBlock& block) const;

  /// The series one trial reads, computed with the same TPEOPT_HD functions as the GPU:
  /// EMA of `span` over close, z-scores of volume or TR over `w` bars.
  void ema(int span, double* out) const;
  void volume_z(int w, double* out) const;
  void tr_z(int w, double* out) const;

 private:
  /// Calls on_block_begin(k) before block k's trades (k = 0 only when unblocked).
  template <typename OnTrade, typename OnBlock>
  void walk(const double* params, OnTrade&& on_trade, OnBlock&& on_block_begin) const;

  Candles candles_;
  ExhaustionOptions options_;
  std::vector<BarBlock> blocks_;
  std::vector<double> cloc_, tr_, s_tr_, q_tr_, s_vol_, q_vol_;
  std::string checksum_;
  FoldSpec folds_;  ///< none: no folds
  AcrossFolds rule_;
  std::vector<int> fold_edge_, fold_embargo_end_;
  std::vector<std::string> fold_names_;
  bool fold_compound_ = false;  ///< fold scores are compound returns (with_fold_bars)
};

/// "gap", "stop", "target", "time".
const char* exit_reason_name(int reason);

}  // namespace tpeopt::strategies
