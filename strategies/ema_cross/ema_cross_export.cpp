#include "strategies/ema_cross/ema_cross_export.hpp"

#include <fmt/format.h>

#include "strategies/ema_cross/ema_cross_strategy.hpp"

namespace tpeopt::strategies {

const std::vector<std::string>& ema_cross_trade_columns() {
  static const std::vector<std::string> columns = {"signal_bar", "entry_bar", "exit_bar", "entry_price",
                                                   "exit_price", "reason",    "return"};
  return columns;
}

ExportedTrade export_ema_cross_trade(const ema_cross::Trade& t, const std::vector<std::int64_t>& time_ms) {
  ExportedTrade out;
  out.entry_time_ms = time_ms.at(static_cast<std::size_t>(t.entry_bar));
  out.exit_time_ms = time_ms.at(static_cast<std::size_t>(t.exit_bar));
  out.fields = {fmt::format("{}", t.signal_bar),  fmt::format("{}", t.entry_bar),  fmt::format("{}", t.exit_bar),
                fmt::format("{}", t.entry_price), fmt::format("{}", t.exit_price), ema_cross_exit_reason_name(t.reason),
                fmt::format("{}", t.ret)};
  return out;
}

ExportedTrades ema_cross_trades_cpu(const Strategy& strategy, const double* params) {
  const auto& s = dynamic_cast<const EmaCrossStrategy&>(strategy);
  std::vector<ExportedTrade> out;
  for (const auto& t : s.trades(params)) out.push_back(export_ema_cross_trade(t, s.candles().time_ms));
  return {out};
}

}  // namespace tpeopt::strategies
