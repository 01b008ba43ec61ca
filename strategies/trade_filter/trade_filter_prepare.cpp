#include "strategies/trade_filter/trade_filter_prepare.hpp"

#include <algorithm>
#include <map>
#include <numeric>

#include "common/error.hpp"
#include "io/file_checksum.hpp"
#include "io/market_data_csv.hpp"
#include "io/trade_log_csv.hpp"
#include "strategies/trade_filter/trade_filter.hpp"

namespace tpeopt::io {

using strategies::TradeFilterData;
namespace fs = std::filesystem;

void compute_trade_filter_paths(TradeFilterData& d, const std::vector<std::int64_t>& times) {
  const std::size_t n = d.n_trades();
  d.logged_q.resize(n);
  d.window_start.assign(n, 0);
  d.window_len.assign(n, 0);
  d.path_offset.assign(n + 1, 0);
  d.path.clear();
  d.empty_windows = 0;
  // |sum| <= sum over trades of max(|logged q|, q(kMaxExitPct)): must fit the rank keys
  const double bound_per_exit = strategies::trade_filter::kMaxExitPct * 1e9;
  double bound = 0;
  for (std::size_t i = 0; i < n; ++i) {
    d.logged_q[i] = strategies::trade_filter::fixed_point(d.logged_pct[i]);
    bound += std::max(std::abs(static_cast<double>(d.logged_q[i])), bound_per_exit);
    const std::uint32_t t = d.ticker[i];
    const auto first = times.begin() + static_cast<std::ptrdiff_t>(d.ticker_offset[t]);
    const auto last = times.begin() + static_cast<std::ptrdiff_t>(d.ticker_offset[t + 1]);
    const auto b = std::lower_bound(first, last, d.entry_time[i]);
    const auto e = std::upper_bound(b, last, d.exit_time[i]);
    const std::uint64_t start = static_cast<std::uint64_t>(b - times.begin());
    const std::uint64_t len = static_cast<std::uint64_t>(e - b);
    d.window_start[i] = start;
    d.window_len[i] = static_cast<std::uint32_t>(len);
    if (len == 0) ++d.empty_windows;
    for (std::uint64_t k = start; k < start + len; ++k)
      d.path.push_back(static_cast<float>((static_cast<double>(d.prices[k]) / d.entry_price[i] - 1.0) * 100.0));
    d.path_offset[i + 1] = d.path.size();
  }
  if (bound >= static_cast<double>(strategies::trade_filter::kMaxAbsSum))
    throw make_error("trade log: {} trades with these outcomes could overflow the exact int64 score; split the log", n);
  strategies::build_trade_filter_records(d);
}

TradeFilterData prepare_trade_filter_data(const TradeFilterInputs& in) {
  TradeFilterData d;
  d.tickers = in.tickers;
  std::sort(d.tickers.begin(), d.tickers.end());
  d.tickers.erase(std::unique(d.tickers.begin(), d.tickers.end()), d.tickers.end());
  if (d.tickers.empty()) throw make_error("data.tickers: expected at least one ticker");
  std::map<std::string, std::uint32_t, std::less<>> keep;
  for (std::uint32_t t = 0; t < d.tickers.size(); ++t) keep[d.tickers[t]] = t;

  // trade log
  const std::string log_text = read_input_file(in.trades);
  {
    FastChecksum c;
    c.add(log_text.data(), log_text.size());
    d.sources.push_back({in.trades.filename().string(), log_text.size(), c.hex()});
  }
  const auto trades = parse_trade_log_csv(log_text, in.trades.string(), keep, d.dropped_trades);

  // market data
  MarketRows rows;
  for (const fs::path& file : list_market_files(in.market_dir)) {
    std::int64_t day = 0;
    market_file_day(file.filename().string(), day);
    const std::string text = read_input_file(file);
    FastChecksum c;
    c.add(text.data(), text.size());
    d.sources.push_back({file.filename().string(), text.size(), c.hex()});
    parse_market_csv(text, file.string(), day, keep, rows);
  }
  std::vector<std::size_t> order(rows.price.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return rows.ticker[a] != rows.ticker[b] ? rows.ticker[a] < rows.ticker[b] : rows.time[a] < rows.time[b];
  });
  std::vector<std::int64_t> times(order.size());
  d.prices.resize(order.size());
  d.ticker_offset.assign(d.tickers.size() + 1, 0);
  for (std::size_t j = 0; j < order.size(); ++j) {
    d.prices[j] = rows.price[order[j]];
    times[j] = rows.time[order[j]];
    d.ticker_offset[rows.ticker[order[j]] + 1] = j + 1;
  }
  for (std::size_t t = 1; t < d.ticker_offset.size(); ++t)
    d.ticker_offset[t] = std::max(d.ticker_offset[t], d.ticker_offset[t - 1]);

  // trades
  const std::size_t n = trades.size();
  d.ticker.resize(n);
  d.entry_time.resize(n);
  d.exit_time.resize(n);
  for (auto* v : {&d.volatility, &d.ratio, &d.adx28, &d.adx14, &d.adx7}) v->resize(n);
  d.entry_price.resize(n);
  d.logged_pct.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const TradeLogRow& t = trades[i];
    d.ticker[i] = t.ticker;
    d.entry_time[i] = t.entry_time;
    d.exit_time[i] = t.exit_time;
    d.volatility[i] = t.metrics[0];
    d.ratio[i] = t.metrics[1];
    d.adx28[i] = t.metrics[2];
    d.adx14[i] = t.metrics[3];
    d.adx7[i] = t.metrics[4];
    d.entry_price[i] = t.entry_price;
    d.logged_pct[i] = t.logged_pct;
  }
  try {
    compute_trade_filter_paths(d, times);
  } catch (const Error& e) {
    throw Error(in.trades.string() + ": " + e.what());
  }
  return d;
}

}  // namespace tpeopt::io
