#include "strategies/symbol_strategy.hpp"

#include "common/error.hpp"

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
    case symbols::Aggregate::Mean: return "mean";
    case symbols::Aggregate::Worst: return "worst";
    case symbols::Aggregate::Portfolio: return "portfolio";
    case symbols::Aggregate::Sum: break;
  }
  return "sum";
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
  t.score = symbols::aggregate_symbols(r, static_cast<int>(S), aggregate_spec(), metrics, &t.violation);
  return t;
}

}  // namespace tpeopt::strategies
