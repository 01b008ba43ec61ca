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
}

std::unique_ptr<Strategy> ExhaustionSymbolsStrategy::subset(const std::vector<AtomRange>& ranges,
                                                            std::int64_t min_trades) const {
  std::unique_ptr<ExhaustionSymbolsStrategy> out(new ExhaustionSymbolsStrategy());
  out->options_ = options_;
  out->options_.min_trades = static_cast<int>(std::min<std::int64_t>(min_trades, 1 << 30));
  for (std::size_t s = 0; s < symbols_.size(); ++s) {
    std::vector<BarBlock> blocks = atoms_->blocks(s, ranges);
    if (blocks.empty()) continue;
    out->symbols_.push_back(symbols_[s]->with_blocks(std::move(blocks), 0));
    out->names_.push_back(names_[s]);
  }
  if (out->symbols_.empty()) throw make_error("exhaustion: an empty subset of the data has nothing to backtest");
  out->spec_ = spec_;
  out->spec_.min_trades = out->options_.min_trades;
  out->checksum_ = checksum_;
  return out;
}

void ExhaustionSymbolsStrategy::evaluate_symbols(const double* params, double* objective, double* equity,
                                                 double* metrics) const {
  for (std::size_t s = 0; s < symbols_.size(); ++s)
    objective[s] = symbols_[s]->evaluate(params, metrics + s * ex::kNumMetrics, &equity[s]).score;
}

}  // namespace tpeopt::strategies
