#include "strategies/signal_strategy.hpp"

#include "common/error.hpp"

namespace tpeopt::strategies {

long_short::Objective parse_signal_objective(const std::string& name, const std::string& strategy) {
  if (name == "total_return") return long_short::Objective::TotalReturn;
  if (name == "compound_return") return long_short::Objective::CompoundReturn;
  if (name == "sharpe") return long_short::Objective::Sharpe;
  if (name == "profit_factor") return long_short::Objective::ProfitFactor;
  throw make_error(
      "objective.name: \"{}\" is not an objective of strategy {} (expected total_return, compound_return, sharpe or "
      "profit_factor)",
      name, strategy);
}

const std::vector<std::string>& signal_metric_names() {
  static const std::vector<std::string> names = {"trades", "wins",          "total_return", "compound_return",
                                                 "sharpe", "profit_factor", "max_drawdown"};
  return names;
}

}  // namespace tpeopt::strategies
