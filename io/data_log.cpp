#include "io/data_log.hpp"

#include <mutex>

#include <fmt/format.h>

#include "io/candle_set.hpp"

namespace tpeopt::io {

namespace {

std::mutex g_mutex;
std::vector<DataLoad> g_loads;

}  // namespace

void record_data_load(DataLoad load) {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_loads.push_back(std::move(load));
}

namespace {

/// Bars [b, b + n) of `time_ms`, read from `source`.
void record_bars(const std::string& source, const std::vector<std::int64_t>& time_ms, std::size_t b, std::size_t n) {
  DataLoad d;
  d.source = source;
  d.rows = n;
  d.unit = "bars";
  d.first_ms = n > 0 ? time_ms[b] : 0;
  d.last_ms = n > 0 ? time_ms[b + n - 1] : 0;
  d.bytes = n * 48;  // time and five prices
  record_data_load(std::move(d));
}

}  // namespace

void record_candle_loads(const CandleSet& set) {
  for (std::size_t s = 0; s < set.n_symbols(); ++s)
    record_bars(set.sources[s], set.bars.time_ms, static_cast<std::size_t>(set.offset[s]),
                static_cast<std::size_t>(set.length[s]));
}

void record_candles_load(const Candles& c) { record_bars(c.source, c.time_ms, 0, c.size()); }

std::vector<DataLoad> take_data_loads() {
  std::lock_guard<std::mutex> lock(g_mutex);
  std::vector<DataLoad> out;
  out.swap(g_loads);
  return out;
}

std::string describe_data_load(const DataLoad& d) {
  return fmt::format("loaded {}: {} {}, {} .. {}{}", d.source, d.rows, d.unit, format_time_ms(d.first_ms),
                     format_time_ms(d.last_ms), d.detail.empty() ? std::string() : " (" + d.detail + ")");
}

}  // namespace tpeopt::io
