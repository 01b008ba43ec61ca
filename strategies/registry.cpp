#include "strategies/registry.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/ranges.h>

#include "common/error.hpp"

namespace tpeopt::strategies {

void Registry::add(StrategyEntry entry) {
  if (entry.name.empty() || find(entry.name))
    throw std::logic_error("strategy registry: the name \"" + entry.name + "\" is empty or taken");
  if (!entry.parse || !entry.make)
    throw std::logic_error("strategy registry: " + entry.name + " registers no config parser or no host factory");
  const bool capabilities = entry.make_device || entry.symbols || entry.subsets || entry.trades.available() ||
                            entry.symbol_results.device || entry.exact_grid.available() || entry.add_data_commands;
  if (!entry.scored_by_caller.empty() && (capabilities || entry.samples))
    throw std::logic_error("strategy registry: " + entry.name +
                           " is scored by its caller: it has no device twin, capabilities or samples");
  entries_.push_back(std::move(entry));
}

const StrategyEntry* Registry::find(std::string_view name) const {
  const auto it =
      std::find_if(entries_.begin(), entries_.end(), [&](const StrategyEntry& e) { return e.name == name; });
  return it == entries_.end() ? nullptr : &*it;
}

const StrategyEntry& Registry::at(std::string_view name) const {
  if (const StrategyEntry* e = find(name)) return *e;
  throw make_error("strategy: \"{}\" is not one of: {}", name, fmt::join(names(), ", "));
}

std::vector<std::string> Registry::names() const {
  std::vector<std::string> out;
  for (const auto& e : entries_) out.push_back(e.name);
  return out;
}

const Registry& registry() {
  static const Registry all = [] {
    Registry r;
    register_strategies(r);
    return r;
  }();
  return all;
}

int min_trades_or(const ObjectiveInput& objective, int fallback) {
  if (!objective.min_trades_set) return fallback;
  return static_cast<int>(std::min<std::int64_t>(objective.min_trades, std::int64_t{1} << 30));
}

}  // namespace tpeopt::strategies
