#include "strategies/symbol_strategy.hpp"

#include "common/error.hpp"
#include "strategies/trade_stats.hpp"

namespace tpeopt::strategies {

symbols::Aggregate parse_aggregate(const std::string& name) {
  if (name == "sum") return symbols::Aggregate::Sum;
  if (name == "mean") return symbols::Aggregate::Mean;
  if (name == "worst") return symbols::Aggregate::Worst;
  if (name == "portfolio") return symbols::Aggregate::Portfolio;
  throw make_error("objective.aggregate: \"{}\" is not an aggregate (expected sum, mean, worst or portfolio)", name);
}

const char* aggregate_name(symbols::Aggregate a) {
  switch (a) {
    case symbols::Aggregate::Mean:
      return "mean";
    case symbols::Aggregate::Worst:
      return "worst";
    case symbols::Aggregate::Portfolio:
      return "portfolio";
    case symbols::Aggregate::Sum:
      break;
  }
  return "sum";
}

symbols::AggregateSpec trade_metrics_aggregate_spec(symbols::Aggregate aggregate, bool maximize, int min_trades) {
  symbols::AggregateSpec spec{};
  spec.aggregate = aggregate;
  spec.maximize = maximize ? 1 : 0;
  spec.n_metrics = kNumTradeMetrics;
  spec.count_metric = kTradeMetricTrades;
  spec.min_trades = min_trades;
  spec.kinds[kTradeMetricTrades] = symbols::kCount;
  spec.kinds[kTradeMetricWins] = symbols::kCount;
  spec.kinds[kTradeMetricTotalReturn] = symbols::kAdditive;
  spec.kinds[kTradeMetricOwn] = symbols::kHigherBetter;
  spec.kinds[kTradeMetricSharpe] = symbols::kHigherBetter;
  spec.kinds[kTradeMetricProfitFactor] = symbols::kHigherBetter;
  spec.kinds[kTradeMetricMaxDrawdown] = symbols::kLowerBetter;
  return spec;
}

TrialScore SymbolStrategy::evaluate(const double* params, double* metrics) const {
  const std::size_t S = n_symbols(), M = metric_names().size();
  thread_local std::vector<double> objective, equity, rows;
  objective.resize(S);
  equity.resize(S);
  rows.resize(S * M);
  evaluate_symbols(params, objective.data(), equity.data(), rows.data());
  const symbols::SymbolRows r{objective.data(), equity.data(), rows.data(), 1, 1, static_cast<long long>(M)};
  TrialScore t;
  const int K = static_cast<int>(folds().n_folds());
  t.score = K > 0 ? symbols::aggregate_symbols_folded(r, static_cast<int>(S), aggregate_spec(), K, fold_rule(), metrics,
                                                      &t.violation)
                  : symbols::aggregate_symbols(r, static_cast<int>(S), aggregate_spec(), metrics, &t.violation);
  return t;
}

}  // namespace tpeopt::strategies
