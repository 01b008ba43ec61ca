#include "strategies/exhaustion/exhaustion_export.hpp"

#include <fmt/format.h>

#include "strategies/exhaustion/exhaustion_strategy.hpp"
#include "strategies/exhaustion/exhaustion_symbols_strategy.hpp"

namespace tpeopt::strategies {

const std::vector<std::string>& exhaustion_trade_columns() {
  static const std::vector<std::string> columns = {"signal_bar", "entry_bar", "exit_bar", "entry_price",
                                                   "exit_price", "reason",    "return",   "r_multiple"};
  return columns;
}

ExportedTrade export_exhaustion_trade(const exhaustion::Trade& t, const std::vector<std::int64_t>& time_ms) {
  ExportedTrade out;
  out.entry_time_ms = time_ms.at(static_cast<std::size_t>(t.entry_bar));
  out.exit_time_ms = time_ms.at(static_cast<std::size_t>(t.exit_bar));
  out.fields = {fmt::format("{}", t.signal_bar),  fmt::format("{}", t.entry_bar),  fmt::format("{}", t.exit_bar),
                fmt::format("{}", t.entry_price), fmt::format("{}", t.exit_price), exit_reason_name(t.reason),
                fmt::format("{}", t.ret),         fmt::format("{}", t.r_multiple)};
  return out;
}

ExportedTrades exhaustion_trades_cpu(const Strategy& strategy, const double* params) {
  auto one = [&](const ExhaustionStrategy& s) {
    std::vector<ExportedTrade> out;
    for (const auto& t : s.trades(params)) out.push_back(export_exhaustion_trade(t, s.candles().time_ms));
    return out;
  };
  ExportedTrades all;
  if (const auto* s = dynamic_cast<const ExhaustionStrategy*>(&strategy)) {
    all.push_back(one(*s));
  } else {
    const auto& symbols = dynamic_cast<const ExhaustionSymbolsStrategy&>(strategy);
    for (std::size_t k = 0; k < symbols.n_symbols(); ++k) all.push_back(one(symbols.symbol(k)));
  }
  return all;
}

}  // namespace tpeopt::strategies
