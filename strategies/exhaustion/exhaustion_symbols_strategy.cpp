#include "strategies/exhaustion/exhaustion_symbols_strategy.hpp"

#include "common/digest.hpp"
#include "common/error.hpp"

namespace tpeopt::strategies {

namespace ex = exhaustion;

symbols::AggregateSpec exhaustion_aggregate_spec(symbols::Aggregate aggregate, bool maximize, int min_trades) {
  symbols::AggregateSpec spec{};
  spec.aggregate = aggregate;
  spec.maximize = maximize ? 1 : 0;
  spec.n_metrics = ex::kNumMetrics;
  spec.count_metric = ex::kMTrades;
  spec.min_trades = min_trades;
  spec.kinds[ex::kMTrades] = symbols::kCount;
  spec.kinds[ex::kMWins] = symbols::kCount;
  spec.kinds[ex::kMTotalReturn] = symbols::kAdditive;
  spec.kinds[ex::kMMeanR] = symbols::kHigherBetter;
  spec.kinds[ex::kMSharpe] = symbols::kHigherBetter;
  spec.kinds[ex::kMProfitFactor] = symbols::kHigherBetter;
  spec.kinds[ex::kMMaxDrawdown] = symbols::kLowerBetter;
  return spec;
}

std::string candle_set_checksum(const CandleSet& set) {
  Digest d;
  if (set.n_symbols() != 1) {
    d.add(std::string_view("symbols"));
    d.add(static_cast<std::uint64_t>(set.n_symbols()));
  }
  for (std::size_t s = 0; s < set.n_symbols(); ++s) {
    if (set.n_symbols() != 1) d.add(std::string_view(set.symbols[s]));
    const auto b = static_cast<std::size_t>(set.offset[s]), n = static_cast<std::size_t>(set.length[s]);
    d.add(static_cast<std::uint64_t>(n));
    const Candles& c = set.bars;
    for (std::size_t i = b; i < b + n; ++i) {
      d.add(static_cast<std::uint64_t>(c.time_ms[i]));
      for (const auto* v : {&c.open, &c.high, &c.low, &c.close, &c.volume}) d.add((*v)[i]);
    }
  }
  return "candles=" + d.hex();
}

ExhaustionSymbolsStrategy::ExhaustionSymbolsStrategy(const CandleSet& set, ExhaustionOptions options,
                                                     symbols::Aggregate aggregate, bool maximize)
    : names_(set.symbols), options_(options) {
  if (set.n_symbols() == 0) throw make_error("data: the candle data set has no symbols");
  if (options_.min_trades < 0) throw make_error("objective.min_trades: must be >= 0");
  ExhaustionOptions one = options;
  one.min_trades = 0;
  for (std::size_t s = 0; s < set.n_symbols(); ++s) {
    try {
      symbols_.push_back(std::make_unique<ExhaustionStrategy>(set.symbol(s), one));
    } catch (const Error& e) {
      throw make_error("symbol {}: {}", set.symbols[s], e.what());
    }
  }
  spec_ = exhaustion_aggregate_spec(aggregate, maximize, options_.min_trades);
  checksum_ = candle_set_checksum(set);
}

void ExhaustionSymbolsStrategy::evaluate_symbols(const double* params, double* objective, double* equity,
                                                 double* metrics) const {
  for (std::size_t s = 0; s < symbols_.size(); ++s) {
    const ex::Summary sum = symbols_[s]->summarize(params);
    double violation = 0.0;
    objective[s] = ex::finish(sum, options_.objective, 0, metrics + s * ex::kNumMetrics, &violation);
    equity[s] = sum.equity;
  }
}

}  // namespace tpeopt::strategies
