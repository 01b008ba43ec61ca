#pragma once
// The `exhaustion` strategy over a data set of several symbols (docs/strategies.md, "Candle data sets of many
// symbols"): each symbol is backtested exactly as a one-symbol data set (ExhaustionStrategy, unchanged), and
// the trial's score and metrics aggregate the symbols' (strategies/symbol_aggregate.hpp).
#include <memory>
#include <string>
#include <vector>

#include "common/candles.hpp"
#include "strategies/candle_atoms.hpp"
#include "strategies/exhaustion/exhaustion_strategy.hpp"
#include "strategies/symbol_strategy.hpp"

namespace tpeopt::strategies {

class ExhaustionSymbolsStrategy final : public SymbolStrategy {
 public:
  /// `options.min_trades` applies to the trades of all symbols together.
  ExhaustionSymbolsStrategy(const CandleSet& set, ExhaustionOptions options, symbols::Aggregate aggregate,
                            bool maximize);

  std::string name() const override { return "exhaustion"; }
  const ParamList& params() const override { return exhaustion_params(); }
  const std::vector<std::string>& metric_names() const override { return symbols_[0]->metric_names(); }
  std::vector<std::string> data_checksums() const override { return {checksum_}; }

  const std::vector<std::string>& symbol_names() const override { return names_; }
  void evaluate_symbols(const double* params, double* objective, double* equity, double* metrics) const override;
  const symbols::AggregateSpec& aggregate_spec() const override { return spec_; }

  /// Symbol s alone (min_trades 0): its per-symbol results are this strategy's.
  const ExhaustionStrategy& symbol(std::size_t s) const { return *symbols_[s]; }
  const ExhaustionOptions& options() const { return options_; }

  // ---- data subsets (docs/strategies.md, "Data subsets"): atoms are the symbols' distinct bar times --------
  std::size_t n_atoms() const override { return atoms_ ? atoms_->size() : 0; }
  std::int64_t atom_time_s(std::size_t k) const override { return atoms_->time_s(k); }
  /// The symbols with bars in `ranges`, each over its blocks of those bars (symbols without
  /// any are left out), with `min_trades` over all of them.
  std::unique_ptr<Strategy> subset(const std::vector<AtomRange>& ranges, std::int64_t min_trades) const override;
  std::int64_t min_trades() const override { return options_.min_trades; }

  // ---- folds (Strategy::with_folds; docs/strategies.md, "Folds") ----------------------------------
  /// Each symbol folded in its own bars (atoms are the symbols' bar times; CandleAtoms::first_bar)
  /// with rule All (its objective stays the whole span's); evaluate aggregates the rows
  /// (symbols::aggregate_symbols_folded). A symbol's fold score is its objective over the fold's
  /// trades, or under the portfolio aggregate their compound return (ExhaustionStrategy::
  /// with_fold_bars), as its part of the whole-span score is.
  std::unique_ptr<Strategy> with_folds(const FoldSpec& folds, const AcrossFolds& rule) const override;
  const FoldSpec& folds() const override { return folds_; }
  /// The direction the aggregate's "worst" follows (the constructor's `maximize`), for the rule too.
  FoldRule fold_rule() const override { return strategies::fold_rule(rule_, spec_.maximize != 0); }

 private:
  ExhaustionSymbolsStrategy() = default;

  std::vector<std::shared_ptr<const ExhaustionStrategy>> symbols_;
  std::vector<std::string> names_;
  ExhaustionOptions options_;
  symbols::AggregateSpec spec_{};
  std::string checksum_;
  std::shared_ptr<const CandleAtoms> atoms_;      ///< of the whole data set (null in a subset)
  std::shared_ptr<const CandleAtoms> all_atoms_;  ///< of the whole data set, kept by the subsets (folds' atoms)
  std::vector<std::size_t> data_symbol_;          ///< the data set's symbol of each of symbols_
  std::vector<std::shared_ptr<const ExhaustionStrategy>> unfolded_;  ///< symbols_ without folds (with_folds' base)
  FoldSpec folds_;                                                   ///< none: no folds
  AcrossFolds rule_;
};

}  // namespace tpeopt::strategies
