#include "strategies/long_short_export.hpp"

#include <fmt/format.h>

namespace tpeopt::strategies {

const std::vector<std::string>& long_short_trade_columns() {
  static const std::vector<std::string> columns = {"signal_bar",  "entry_bar",  "exit_bar", "side",
                                                   "entry_price", "exit_price", "reason",   "return"};
  return columns;
}

namespace {

const char* reason_name(int reason) {
  switch (reason) {
    case long_short::kSignal:
      return "signal";
    case long_short::kStop:
      return "stop";
    case long_short::kEnd:
      return "end";
    default:
      return "none";
  }
}

}  // namespace

ExportedTrade export_long_short_trade(const long_short::Trade& t, const std::int64_t* time_ms) {
  ExportedTrade out;
  out.entry_time_ms = time_ms[t.entry_bar];
  out.exit_time_ms = time_ms[t.exit_bar];
  out.fields = {fmt::format("{}", t.signal_bar), fmt::format("{}", t.entry_bar),   fmt::format("{}", t.exit_bar),
                t.side > 0 ? "long" : "short",   fmt::format("{}", t.entry_price), fmt::format("{}", t.exit_price),
                reason_name(t.reason),           fmt::format("{}", t.ret)};
  return out;
}

}  // namespace tpeopt::strategies
