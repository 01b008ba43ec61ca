#include "strategies/exhaustion/exhaustion_symbols_strategy.hpp"

#include "strategies/candle_checksum.hpp"

#include "common/error.hpp"

namespace tpeopt::strategies {

namespace ex = exhaustion;

ExhaustionSymbolsStrategy::ExhaustionSymbolsStrategy(const CandleSet& set, ExhaustionOptions options,
                                                     symbols::Aggregate aggregate, bool maximize)
    : names_(set.symbols), options_(options) {
  if (set.n_symbols() == 0) throw make_error("data: the candle data set has no symbols");
  if (options_.min_trades < 0) throw make_error("objective.min_trades: must be >= 0");
  ExhaustionOptions one = options;
  one.min_trades = 0;
  for (std::size_t s = 0; s < set.n_symbols(); ++s) {
    try {
      symbols_.push_back(std::make_shared<const ExhaustionStrategy>(set.symbol(s), one));
    } catch (const Error& e) {
      throw make_error("symbol {}: {}", set.symbols[s], e.what());
    }
  }
  spec_ = trade_metrics_aggregate_spec(aggregate, maximize, options_.min_trades);
  checksum_ = candle_set_checksum(set);
  atoms_ = std::make_shared<const CandleAtoms>(set);
  all_atoms_ = atoms_;
  for (std::size_t s = 0; s < set.n_symbols(); ++s) data_symbol_.push_back(s);
  unfolded_ = symbols_;
}

std::unique_ptr<Strategy> ExhaustionSymbolsStrategy::subset(const std::vector<AtomRange>& ranges,
                                                            std::int64_t min_trades) const {
  std::unique_ptr<ExhaustionSymbolsStrategy> out(new ExhaustionSymbolsStrategy());
  out->options_ = options_;
  out->options_.min_trades = static_cast<int>(std::min<std::int64_t>(min_trades, 1 << 30));
  for (std::size_t s = 0; s < symbols_.size(); ++s) {
    std::vector<BarBlock> blocks = atoms_->blocks(s, ranges);
    if (blocks.empty()) continue;
    out->symbols_.push_back(symbols_[s]->with_blocks(blocks, 0));
    out->unfolded_.push_back(unfolded_[s]->with_blocks(std::move(blocks), 0));
    out->names_.push_back(names_[s]);
    out->data_symbol_.push_back(data_symbol_[s]);
  }
  if (out->symbols_.empty()) throw make_error("exhaustion: an empty subset of the data has nothing to backtest");
  out->spec_ = spec_;
  out->spec_.min_trades = out->options_.min_trades;
  out->checksum_ = checksum_;
  out->all_atoms_ = all_atoms_;
  out->folds_ = folds_;
  out->rule_ = rule_;
  return out;
}

std::unique_ptr<Strategy> ExhaustionSymbolsStrategy::with_folds(const FoldSpec& folds, const AcrossFolds& rule) const {
  std::unique_ptr<ExhaustionSymbolsStrategy> out(new ExhaustionSymbolsStrategy(*this));
  out->folds_ = folds;
  out->rule_ = rule;
  out->symbols_ = unfolded_;
  if (folds.n_folds() == 0) return out;
  check_fold_spec(folds, all_atoms_->size());
  for (std::size_t k = 0; k < unfolded_.size(); ++k) {
    std::vector<int> edge, embargo_end;
    const std::size_t s = data_symbol_[k];
    fold_bars_of(
        folds, [&](std::size_t atom) { return all_atoms_->first_bar(s, atom); }, edge, embargo_end);
    // Under the portfolio aggregate a symbol's fold score is its fold's compound return, as
    // its whole-span part of the score is its compound return.
    out->symbols_[k] = unfolded_[k]->with_fold_bars(folds, AcrossFolds{}, std::move(edge), std::move(embargo_end),
                                                    spec_.aggregate == symbols::Aggregate::Portfolio);
  }
  return out;
}

void ExhaustionSymbolsStrategy::evaluate_symbols(const double* params, double* objective, double* equity,
                                                 double* metrics) const {
  const std::size_t M = metric_names().size();  // with folds: the fold columns after the base metrics
  for (std::size_t s = 0; s < symbols_.size(); ++s)
    objective[s] = symbols_[s]->evaluate(params, metrics + s * M, &equity[s]).score;
}

}  // namespace tpeopt::strategies
