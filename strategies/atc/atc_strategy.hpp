#pragma once
#include <string>
#include <vector>

#include "common/candles.hpp"
#include "strategies/atc/atc.hpp"
#include "strategies/symbol_strategy.hpp"

namespace tpeopt::strategies {

/// Parses total_return | sharpe; throws Error naming objective.name.
atc::Objective parse_atc_objective(const std::string& name);

struct AtcOptions {
  atc::Objective objective = atc::Objective::TotalReturn;
  int min_trades = 1;  ///< trials with fewer trades over all symbols are infeasible
  symbols::Aggregate aggregate = symbols::Aggregate::Sum;
  bool maximize = true;
};

/// The `atc` strategy over a candle data set of one or more symbols (docs/strategies.md,
/// "atc"). The trial-independent series (closes and returns of every symbol, contiguous)
/// are computed once here, on the host, in double; the CPU reference (evaluate_symbols) and
/// the CUDA twin (gpu/atc_kernel.cu) both read them and run the same TPEOPT_HD code.
class AtcStrategy final : public SymbolStrategy {
 public:
  AtcStrategy(const CandleSet& set, AtcOptions options);

  std::string name() const override { return "atc"; }
  const std::vector<std::string>& param_names() const override;
  std::vector<double> param_defaults() const override;
  const std::vector<std::string>& metric_names() const override;
  void check_param_range(std::size_t slot, double low, double high) const override;
  std::vector<std::string> data_checksums() const override { return {checksum_}; }

  const std::vector<std::string>& symbol_names() const override { return names_; }
  void evaluate_symbols(const double* params, double* objective, double* equity, double* metrics) const override;
  const symbols::AggregateSpec& aggregate_spec() const override { return spec_; }

  const AtcOptions& options() const { return options_; }
  /// Closes and returns of all symbols, contiguous (symbol s from offset(s), length(s) bars;
  /// returns()[offset(s)] = 0).
  const std::vector<double>& closes() const { return close_; }
  const std::vector<double>& returns() const { return ret_; }
  const std::vector<std::int64_t>& offsets() const { return offset_; }
  const std::vector<std::int64_t>& lengths() const { return length_; }
  /// Signal words of symbol s: from word_offsets()[s], atc::signal_words(length(s)) of them.
  const std::vector<std::int64_t>& word_offsets() const { return word_offset_; }
  std::int64_t total_words() const { return total_words_; }
  std::int64_t total_bars() const { return static_cast<std::int64_t>(close_.size()); }

  /// The CPU reference of one symbol: its final TradeState for one trial.
  atc::TradeState run_symbol(const double* params, std::size_t s) const;

 private:
  std::vector<std::string> names_;
  AtcOptions options_;
  symbols::AggregateSpec spec_{};
  std::vector<double> close_, ret_;
  std::vector<std::int64_t> offset_, length_, word_offset_;
  std::int64_t total_words_ = 0;
  std::string checksum_;
};

/// The metric kinds of the atc metrics (for aggregation).
symbols::AggregateSpec atc_aggregate_spec(symbols::Aggregate aggregate, bool maximize, int min_trades);

}  // namespace tpeopt::strategies
