#pragma once
// The prepared data of the trade_filter strategy: a trade log whose trades
// carry their entry metrics and the return path of their price window. Built once by
// trade_filter_prepare.hpp, stored by trade_filter_cache.hpp (this folder), shared
// read-only by the CPU reference and the CUDA kernels (the device keeps only the trade
// arrays and the record arrays, not the paths).
//
// Layout, for n trades (structure of arrays, trade order = order of the log):
//   path_offset[n + 1]  trade i's path is path[path_offset[i] .. path_offset[i + 1]):
//                       r_k = (float)((price_k / entry_price - 1.0) * 100.0), k = start..end
//   up_offset[n + 1]    trade i's record highs are up_value/up_pos[up_offset[i] .. up_offset[i + 1]):
//                       the positions k (relative to the path start) where r_k is strictly
//                       above every earlier r, in increasing k (so up_value increases strictly);
//   down_offset[n + 1]  the same for record lows (r_k strictly below every earlier r).
// The first k with r_k >= target is the position of the first record high >= target
// (a value >= target preceded only by values < target is a strict record), so the
// record arrays answer the first-crossing question exactly, by bisection.
#include <cstdint>
#include <string>
#include <vector>

namespace tpeopt::strategies {

/// Where one prepared input came from: its name and a checksum of its bytes.
struct TradeFilterSource {
  std::string name;        ///< file name (relative to the market dir for market files)
  std::uint64_t size = 0;  ///< bytes
  std::string checksum;    ///< 16 hex digits (FNV-1a 64 of the file's bytes)
};

struct TradeFilterData {
  // ---- market data ----------------------------------------------------------
  std::vector<std::string> tickers;  ///< kept tickers, sorted; ticker id = index
  std::vector<float> prices;         ///< all kept rows, sorted by ticker then date-time
  std::vector<std::uint64_t>
      ticker_offset;  ///< tickers.size() + 1: ticker t's rows are [ticker_offset[t], ticker_offset[t + 1])

  // ---- trades (n = entry_price.size()) ---------------------------------------
  std::vector<std::uint32_t> ticker;     ///< ticker id
  std::vector<std::int64_t> entry_time;  ///< seconds since 1970-01-01 (the trade's date + Entry Time)
  std::vector<std::int64_t> exit_time;   ///< seconds since 1970-01-01 (the trade's date + Exit Time)
  std::vector<float> volatility, ratio, adx28, adx14, adx7;  ///< entry metrics, rounded to float32
  std::vector<double> entry_price;                           ///< logged Entry Price
  std::vector<double> logged_pct;                            ///< logged Trade Percent Change
  std::vector<std::int64_t> logged_q;                        ///< fixed_point(logged_pct)
  std::vector<std::uint64_t> window_start;                   ///< first market row of the window (index into prices)
  std::vector<std::uint32_t> window_len;                     ///< rows in the window (0: empty window, logged outcome)

  std::vector<std::uint64_t> path_offset;  ///< n + 1
  std::vector<float> path;                 ///< r_k of every trade, concatenated
  std::vector<std::uint64_t> up_offset;    ///< n + 1
  std::vector<float> up_value;
  std::vector<std::uint32_t> up_pos;
  std::vector<std::uint64_t> down_offset;  ///< n + 1
  std::vector<float> down_value;
  std::vector<std::uint32_t> down_pos;

  // ---- provenance -----------------------------------------------------------
  std::vector<TradeFilterSource> sources;  ///< the trade log first, then the market files by name
  std::uint64_t dropped_trades = 0;        ///< trades of tickers not kept (dropped silently)
  std::uint64_t empty_windows = 0;         ///< kept trades with no market row in their window

  std::size_t n_trades() const { return entry_price.size(); }
};

/// Calls f(member, name) for each per-trade column of TradeFilterData (one value per trade),
/// member a pointer to it, in the order of the cache file: the one list behind copying,
/// checking and caching them, so that a new column cannot be missed by one of them.
template <typename F>
void for_each_trade_column(F&& f) {
  f(&TradeFilterData::ticker, "ticker");
  f(&TradeFilterData::entry_time, "entry_time");
  f(&TradeFilterData::exit_time, "exit_time");
  f(&TradeFilterData::volatility, "volatility");
  f(&TradeFilterData::ratio, "ratio");
  f(&TradeFilterData::adx28, "adx28");
  f(&TradeFilterData::adx14, "adx14");
  f(&TradeFilterData::adx7, "adx7");
  f(&TradeFilterData::entry_price, "entry_price");
  f(&TradeFilterData::logged_pct, "logged_pct");
  f(&TradeFilterData::logged_q, "logged_q");
  f(&TradeFilterData::window_start, "window_start");
  f(&TradeFilterData::window_len, "window_len");
}

/// The trading day of a trade: floor(entry_time / 86400). entry_time is the log's own
/// date plus its Entry Time written as if UTC, so this is the date the log gives the trade.
std::int64_t trade_filter_day(std::int64_t entry_time);

/// The distinct trading days of the trades, increasing.
std::vector<std::int64_t> trade_filter_days(const TradeFilterData& data);

/// The data restricted to the trades whose day is in `days` (any order; duplicates are
/// ignored): those trades in log order with their metrics, paths and record arrays
/// copied, and a copy of the market data (which scoring does not read). A TradeFilterStrategy over it scores exactly
/// those trades, so the scores of disjoint day sets add up to the score of their union
/// (int64 fixed-point sums). Sources are kept (the checksums are of the files read).
TradeFilterData subset_trade_filter_days(const TradeFilterData& data, const std::vector<std::int64_t>& days);

/// Fills up_*/down_* from path/path_offset (the record highs and lows of each path).
void build_trade_filter_records(TradeFilterData& data);

/// Throws tpeopt::Error (prefixed by `source`) when the arrays are inconsistent:
/// sizes, offsets not increasing or past the end, record positions outside their path.
void check_trade_filter_data(const TradeFilterData& data, const std::string& source);

}  // namespace tpeopt::strategies
