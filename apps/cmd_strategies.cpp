// `tpeopt strategies`: the strategies of this build (strategies/registry.hpp), each with its
// parameters (default, domain, typical range) and what it can do beyond a score.
#include <algorithm>
#include <cmath>
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "apps/commands.hpp"
#include "strategies/registry.hpp"

namespace tpeopt::app {

namespace {

std::string capabilities(const strategies::StrategyEntry& e) {
  if (!e.scored_by_caller.empty()) return "scored by its caller";
  std::string out = e.make_device ? "cuda" : "cpu only";
  if (e.symbols) out += ", several symbols";
  if (e.subsets) out += ", data subsets";
  if (e.trades.available()) out += e.make_device && !e.trades.device ? ", trades (from the CPU)" : ", trades";
  if (e.exact_grid.available()) out += ", exact grid";
  return out;
}

int list_strategies(bool verbose) {
  std::size_t width = 14;  // the names' column: as wide as the longest name
  for (const auto& e : strategies::registry().entries()) width = std::max(width, e.name.size());
  const std::string indent(width + 1, ' ');
  for (const auto& e : strategies::registry().entries()) {
    std::cout << fmt::format("{:<{}} {} ({})\n", e.name, width, e.summary, capabilities(e));
    if (!verbose) continue;
    if (e.params_from_config) std::cout << indent << "params: the config's, each any finite number\n";
    for (const auto& p : e.params.specs())
      std::cout << indent
                << fmt::format("{:<16} {:<12} {}; typical [{}, {}]\n", p.name,
                               std::isnan(p.fallback) ? "required" : fmt::format("default {}", p.fallback),
                               p.domain.rule, p.typical_low, p.typical_high);
  }
  return 0;
}

}  // namespace

void add_strategies_command(CLI::App& app, int& exit_code) {
  auto verbose = std::make_shared<bool>(false);
  CLI::App* sub = app.add_subcommand("strategies",
                                     "List the strategies of this build (docs/strategies.md; adding one: "
                                     "docs/writing-a-strategy.md)");
  sub->add_flag("-v,--verbose", *verbose, "Each strategy's parameters: default, domain and typical range");
  sub->callback([verbose, &exit_code] { exit_code = list_strategies(*verbose); });
}

}  // namespace tpeopt::app
