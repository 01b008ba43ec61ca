#pragma once
#include <memory>
#include <string>
#include <vector>

#include "common/candles.hpp"
#include "strategies/atc/atc.hpp"
#include "strategies/candle_atoms.hpp"
#include "strategies/symbol_strategy.hpp"

namespace tpeopt::strategies {

/// The parameter slots, in the order of atc::Slot (docs/strategies.md, "atc").
const ParamList& atc_params();

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
/// the CUDA twin (atc_device.cu) both read them and run the same TPEOPT_HD code.
class AtcStrategy final : public SymbolStrategy {
 public:
  AtcStrategy(const CandleSet& set, AtcOptions options);

  std::string name() const override { return "atc"; }
  const ParamList& params() const override { return atc_params(); }
  const std::vector<std::string>& metric_names() const override;
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

  /// The CPU reference of one symbol: its final TradeState for one trial (with folds, each
  /// return also in its fold of `fold_stats`, reset here).
  atc::TradeState run_symbol(const double* params, std::size_t s,
                             FoldView<atc::FoldStats> fold_stats = atc::no_fold_stats()) const;
  /// The same walk of symbol s, calling observe(t, state) after each return bar t.
  template <typename Observer>
  atc::TradeState walk_symbol(const atc::Params& p, std::size_t s, Observer observe) const {
    std::vector<atc::SignalWord> buf;
    const atc::SignalWord* ptr[atc::kStreams];
    signal_words(p, s, buf, ptr);
    return atc::run_symbol(p, ret_.data() + offset_[s], static_cast<int>(length_[s]), ptr, observe);
  }
  /// Bar times of all symbols (Unix ms), contiguous like closes().
  const std::vector<std::int64_t>& times_ms() const { return time_ms_; }

  // ---- data subsets (docs/strategies.md, "Data subsets"): atoms are the symbols' distinct bar times --------
  std::size_t n_atoms() const override { return atoms_ ? atoms_->size() : 0; }
  std::int64_t atom_time_s(std::size_t k) const override { return atoms_->time_s(k); }
  /// The symbols with bars in `ranges`, each backtested over its blocks of those bars
  /// (atc::run_symbol_blocks), with `min_trades` over all of them.
  std::unique_ptr<Strategy> subset(const std::vector<AtomRange>& ranges, std::int64_t min_trades) const override;
  std::int64_t min_trades() const override { return options_.min_trades; }
  /// Per symbol, its blocks of bars (empty: unblocked, the whole series as run_symbol).
  const std::vector<std::vector<BarBlock>>& blocks() const { return blocks_; }

  // ---- folds (Strategy::with_folds; docs/strategies.md, "Folds") ----------------------------------
  /// Atoms are the symbols' distinct bar times; each symbol scores the folds in its own bars
  /// (CandleAtoms::first_bar), a bar's return in the fold of that bar, and evaluate aggregates
  /// the rows (symbols::aggregate_symbols_folded).
  std::unique_ptr<Strategy> with_folds(const FoldSpec& folds, const AcrossFolds& rule) const override;
  const FoldSpec& folds() const override { return folds_; }
  FoldRule fold_rule() const override { return strategies::fold_rule(rule_, options_.maximize); }
  /// Symbol s's folds in its own bars (n = 0 without folds), for the walk and the CUDA twin.
  FoldBars fold_bars(std::size_t s) const;

 private:
  /// The signal words of symbol s for one trial's 54 streams, into buf.
  void signal_words(const atc::Params& p, std::size_t s, std::vector<atc::SignalWord>& buf,
                    const atc::SignalWord** ptr) const;

  std::vector<std::string> names_;
  std::vector<std::string> sources_;  ///< each symbol's file
  AtcOptions options_;
  symbols::AggregateSpec spec_{};
  std::vector<double> close_, ret_;
  std::vector<std::int64_t> time_ms_;
  std::vector<std::int64_t> offset_, length_, word_offset_;
  std::int64_t total_words_ = 0;
  std::string checksum_;
  std::shared_ptr<const CandleAtoms> atoms_;      ///< of the whole data set (null in a subset)
  std::shared_ptr<const CandleAtoms> all_atoms_;  ///< of the whole data set, kept by the subsets (folds' atoms)
  std::vector<std::size_t> data_symbol_;          ///< per symbol: its index in the whole data set
  std::size_t n_data_symbols_ = 0;                ///< symbols of the whole data set
  std::vector<std::vector<BarBlock>> blocks_;     ///< per symbol (empty: unblocked)
  FoldSpec folds_;                                ///< none: no folds
  AcrossFolds rule_;
  std::vector<int> fold_edge_, fold_embargo_end_;  ///< per data set symbol: K + 1 edges, K embargo ends in its bars
  std::vector<std::string> fold_names_;
};

/// The metric kinds of the atc metrics (for aggregation).
symbols::AggregateSpec atc_aggregate_spec(symbols::Aggregate aggregate, bool maximize, int min_trades);

}  // namespace tpeopt::strategies
