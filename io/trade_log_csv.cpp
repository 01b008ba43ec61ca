#include "io/trade_log_csv.hpp"

#include <algorithm>

#include "common/error.hpp"
#include "io/csv_rows.hpp"

namespace tpeopt::io {

std::vector<TradeLogRow> parse_trade_log_csv(std::string_view text, const std::string& source,
                                             const std::map<std::string, std::uint32_t, std::less<>>& keep,
                                             std::uint64_t& dropped) {
  static const char* const kNames[] = {"Date",
                                       "Trade Id",
                                       "Ticker",
                                       "Entry Price",
                                       "Exit Price",
                                       "Entry Time",
                                       "Exit Time",
                                       "Worst Exit Percent",
                                       "Entry Volatility Percent",
                                       "Entry Volatility Ratio",
                                       "Entry Adx28",
                                       "Entry Adx14",
                                       "Entry Adx7",
                                       "Trade Best Exit Percent",
                                       "Trade Percent Change"};
  enum {
    kDate,
    kId,
    kTicker,
    kEntryPrice,
    kExitPrice,
    kEntryTime,
    kExitTime,
    kWorst,
    kVol,
    kRatio,
    kAdx28,
    kAdx14,
    kAdx7,
    kBest,
    kChange
  };
  CsvRows rows(text, source);
  if (!rows.next()) throw make_error("{}:1:1: empty file (expected a header)", source);
  const auto col =
      rows.find_columns({kNames[0], kNames[1], kNames[2], kNames[3], kNames[4], kNames[5], kNames[6], kNames[7],
                         kNames[8], kNames[9], kNames[10], kNames[11], kNames[12], kNames[13], kNames[14]});
  const std::size_t need = *std::max_element(col.begin(), col.end()) + 1;
  auto number = [&](int c) {
    double v = 0;
    if (!parse_csv_double(rows.field(col[c]), v))
      rows.fail(col[c], fmt::format("{}: \"{}\" is not a number", kNames[c], rows.field(col[c])));
    return v;
  };
  auto time_of_day = [&](int c) {
    std::int64_t s = 0;
    if (!parse_hms(rows.field(col[c]), s))
      rows.fail(col[c], fmt::format("{}: \"{}\" is not a time HH:MM:SS", kNames[c], rows.field(col[c])));
    return s;
  };
  std::vector<TradeLogRow> out;
  dropped = 0;
  while (rows.next()) {
    if (rows.size() < need)
      rows.fail(rows.size(), fmt::format("the row has {} fields, the header names at least {}", rows.size(), need));
    const auto it = keep.find(rows.field(col[kTicker]));
    if (it == keep.end()) {
      ++dropped;
      continue;
    }
    TradeLogRow t;
    t.ticker = it->second;
    t.line = rows.line();
    std::int64_t day = 0;
    if (!parse_date(rows.field(col[kDate]), day))
      rows.fail(col[kDate], fmt::format("Date: \"{}\" is not a date MM/DD/YYYY or YYYY-MM-DD", rows.field(col[kDate])));
    t.entry_price = number(kEntryPrice);
    if (!(t.entry_price > 0))
      rows.fail(col[kEntryPrice], fmt::format("Entry Price: {} is not positive", t.entry_price));
    const double exit_price = number(kExitPrice);
    if (!(exit_price > 0)) rows.fail(col[kExitPrice], fmt::format("Exit Price: {} is not positive", exit_price));
    t.entry_time = day * 86400 + time_of_day(kEntryTime);
    t.exit_time = day * 86400 + time_of_day(kExitTime);
    if (t.exit_time < t.entry_time)
      rows.fail(col[kExitTime], fmt::format("Exit Time {} is before Entry Time {}", rows.field(col[kExitTime]),
                                            rows.field(col[kEntryTime])));
    number(kWorst);
    number(kBest);
    const int metric_cols[5] = {kVol, kRatio, kAdx28, kAdx14, kAdx7};
    for (int m = 0; m < 5; ++m) t.metrics[m] = static_cast<float>(number(metric_cols[m]));
    t.logged_pct = number(kChange);
    out.push_back(t);
  }
  return out;
}

}  // namespace tpeopt::io
