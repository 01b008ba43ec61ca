#pragma once
// The `exhaustion` strategy over a data set of several symbols (issue [multi-asset]): each
// symbol is backtested exactly as a one-symbol data set (ExhaustionStrategy, unchanged), and
// the trial's score and metrics aggregate the symbols' (strategies/symbol_aggregate.hpp).
#include <memory>
#include <string>
#include <vector>

#include "common/candles.hpp"
#include "strategies/exhaustion/exhaustion_strategy.hpp"
#include "strategies/symbol_strategy.hpp"

namespace tpeopt::strategies {

class ExhaustionSymbolsStrategy final : public SymbolStrategy {
 public:
  /// `options.min_trades` applies to the trades of all symbols together.
  ExhaustionSymbolsStrategy(const CandleSet& set, ExhaustionOptions options, symbols::Aggregate aggregate,
                            bool maximize);

  std::string name() const override { return "exhaustion"; }
  const std::vector<std::string>& param_names() const override { return symbols_[0]->param_names(); }
  std::vector<double> param_defaults() const override { return symbols_[0]->param_defaults(); }
  const std::vector<std::string>& metric_names() const override { return symbols_[0]->metric_names(); }
  void check_param_range(std::size_t slot, double low, double high) const override {
    symbols_[0]->check_param_range(slot, low, high);
  }
  std::vector<std::string> data_checksums() const override { return {checksum_}; }

  const std::vector<std::string>& symbol_names() const override { return names_; }
  void evaluate_symbols(const double* params, double* objective, double* equity, double* metrics) const override;
  const symbols::AggregateSpec& aggregate_spec() const override { return spec_; }

  /// Symbol s alone (min_trades 0): its per-symbol results are this strategy's.
  const ExhaustionStrategy& symbol(std::size_t s) const { return *symbols_[s]; }
  const ExhaustionOptions& options() const { return options_; }

 private:
  std::vector<std::unique_ptr<ExhaustionStrategy>> symbols_;
  std::vector<std::string> names_;
  ExhaustionOptions options_;
  symbols::AggregateSpec spec_{};
  std::string checksum_;
};

/// The metric kinds of the exhaustion metrics (for aggregation).
symbols::AggregateSpec exhaustion_aggregate_spec(symbols::Aggregate aggregate, bool maximize, int min_trades);

/// A digest of a candle set's names and bars ("candles=<hex>"); one symbol gives the same
/// string as ExhaustionStrategy's checksum of its candles.
std::string candle_set_checksum(const CandleSet& set);

}  // namespace tpeopt::strategies
