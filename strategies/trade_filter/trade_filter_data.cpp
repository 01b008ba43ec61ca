#include "strategies/trade_filter/trade_filter_data.hpp"

#include <algorithm>

#include "common/error.hpp"
#include "common/floor_div.hpp"

namespace tpeopt::strategies {

std::int64_t trade_filter_day(std::int64_t entry_time) { return floor_div(entry_time, 86400); }

std::vector<std::int64_t> trade_filter_days(const TradeFilterData& d) {
  std::vector<std::int64_t> days;
  days.reserve(d.n_trades());
  for (std::int64_t t : d.entry_time) days.push_back(trade_filter_day(t));
  std::sort(days.begin(), days.end());
  days.erase(std::unique(days.begin(), days.end()), days.end());
  return days;
}

namespace {

/// Appends trade i's part of a concatenated per-trade array (offsets: n + 1 entries).
template <typename T>
void append_part(std::vector<T>& to, const std::vector<T>& from, const std::vector<std::uint64_t>& offset,
                 std::size_t i) {
  to.insert(to.end(), from.begin() + static_cast<std::ptrdiff_t>(offset[i]),
            from.begin() + static_cast<std::ptrdiff_t>(offset[i + 1]));
}

}  // namespace

TradeFilterData subset_trade_filter_days(const TradeFilterData& d, const std::vector<std::int64_t>& days_in) {
  std::vector<std::int64_t> days = days_in;
  std::sort(days.begin(), days.end());
  TradeFilterData out;
  out.tickers = d.tickers;
  out.prices = d.prices;
  out.ticker_offset = d.ticker_offset;
  out.sources = d.sources;
  out.dropped_trades = d.dropped_trades;
  out.path_offset.push_back(0);
  out.up_offset.push_back(0);
  out.down_offset.push_back(0);
  for (std::size_t i = 0; i < d.n_trades(); ++i) {
    if (!std::binary_search(days.begin(), days.end(), trade_filter_day(d.entry_time[i]))) continue;
    for_each_trade_column([&](auto column, const char*) { (out.*column).push_back((d.*column)[i]); });
    if (d.window_len[i] == 0) out.empty_windows += 1;
    append_part(out.path, d.path, d.path_offset, i);
    out.path_offset.push_back(out.path.size());
    append_part(out.up_value, d.up_value, d.up_offset, i);
    append_part(out.up_pos, d.up_pos, d.up_offset, i);
    out.up_offset.push_back(out.up_value.size());
    append_part(out.down_value, d.down_value, d.down_offset, i);
    append_part(out.down_pos, d.down_pos, d.down_offset, i);
    out.down_offset.push_back(out.down_value.size());
  }
  return out;
}

void build_trade_filter_records(TradeFilterData& d) {
  const std::size_t n = d.n_trades();
  d.up_offset.assign(n + 1, 0);
  d.down_offset.assign(n + 1, 0);
  d.up_value.clear();
  d.up_pos.clear();
  d.down_value.clear();
  d.down_pos.clear();
  for (std::size_t i = 0; i < n; ++i) {
    const float* r = d.path.data() + d.path_offset[i];
    const std::uint64_t len = d.path_offset[i + 1] - d.path_offset[i];
    for (std::uint64_t k = 0; k < len; ++k) {
      if (k == 0 || r[k] > d.up_value.back()) {
        d.up_value.push_back(r[k]);
        d.up_pos.push_back(static_cast<std::uint32_t>(k));
      }
      if (k == 0 || r[k] < d.down_value.back()) {
        d.down_value.push_back(r[k]);
        d.down_pos.push_back(static_cast<std::uint32_t>(k));
      }
    }
    d.up_offset[i + 1] = d.up_value.size();
    d.down_offset[i + 1] = d.down_value.size();
  }
}

namespace {

void check_offsets(const std::vector<std::uint64_t>& off, std::size_t n, std::size_t total, const char* what,
                   const std::string& source) {
  if (off.size() != n + 1) throw make_error("{}: {} offsets: {} entries, expected {}", source, what, off.size(), n + 1);
  if (off[0] != 0 || off[n] != total)
    throw make_error("{}: {} offsets do not span the array ({} .. {} of {})", source, what, off[0], off[n], total);
  for (std::size_t i = 0; i < n; ++i)
    if (off[i + 1] < off[i]) throw make_error("{}: {} offsets decrease at trade {}", source, what, i);
}

}  // namespace

void check_trade_filter_data(const TradeFilterData& d, const std::string& source) {
  const std::size_t n = d.n_trades();
  for_each_trade_column([&](auto column, const char* name) {
    if ((d.*column).size() != n)
      throw make_error("{}: trade arrays of different lengths ({} has {}, entry_price {})", source, name,
                       (d.*column).size(), n);
  });
  if (d.ticker_offset.size() != d.tickers.size() + 1 || d.ticker_offset.back() != d.prices.size())
    throw make_error("{}: ticker offsets do not match the {} prices", source, d.prices.size());
  check_offsets(d.path_offset, n, d.path.size(), "path", source);
  check_offsets(d.up_offset, n, d.up_value.size(), "record-high", source);
  check_offsets(d.down_offset, n, d.down_value.size(), "record-low", source);
  if (d.up_pos.size() != d.up_value.size() || d.down_pos.size() != d.down_value.size())
    throw make_error("{}: record arrays of different lengths", source);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t len = d.path_offset[i + 1] - d.path_offset[i];
    if (d.ticker[i] >= d.tickers.size())
      throw make_error("{}: trade {} has ticker id {} out of range", source, i, d.ticker[i]);
    if (len != d.window_len[i] || (len > 0 && d.window_start[i] + len > d.prices.size()))
      throw make_error("{}: trade {} has a window inconsistent with its path", source, i);
    for (std::uint64_t j = d.up_offset[i]; j < d.up_offset[i + 1]; ++j)
      if (d.up_pos[j] >= len) throw make_error("{}: trade {} has a record position past its path", source, i);
    for (std::uint64_t j = d.down_offset[i]; j < d.down_offset[i + 1]; ++j)
      if (d.down_pos[j] >= len) throw make_error("{}: trade {} has a record position past its path", source, i);
  }
}

}  // namespace tpeopt::strategies
