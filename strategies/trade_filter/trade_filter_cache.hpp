#pragma once
// The binary cache of prepared trade_filter data: written once, loaded in milliseconds.
//
// Layout (little-endian, native types):
//   "TPFCACHE" (8 bytes) | u32 version (1) | u32 0x01020304 (byte-order check)
//   u64 counts[9]: tickers, prices, trades, path, up records, down records, sources,
//                  dropped trades, empty windows
//   sections, each "u64 byte size | bytes" in this order:
//     tickers (text, one per line) | sources (text, "name\tsize\tchecksum" per line)
//     prices f32[prices] | ticker_offset u64[tickers + 1]
//     ticker u32[n] | entry_time i64[n] | exit_time i64[n]
//     volatility, ratio, adx28, adx14, adx7: f32[n] each
//     entry_price f64[n] | logged_pct f64[n] | logged_q i64[n]
//     window_start u64[n] | window_len u32[n]
//     path_offset u64[n + 1] | path f32[path]
//     up_offset u64[n + 1] | up_value f32[up] | up_pos u32[up]
//     down_offset u64[n + 1] | down_value f32[down] | down_pos u32[down]
//   u64 checksum (io/file_checksum.hpp FastChecksum of every section's bytes) | "TPFC_END"
// Loading checks the magic, version, byte order, every section's size, the checksum and
// the arrays' consistency, so a truncated or corrupt file is an error, never bad data.
#include <filesystem>

#include "strategies/trade_filter/trade_filter_data.hpp"

namespace tpeopt::io {

constexpr std::uint32_t kTradeFilterCacheVersion = 1;

/// Writes atomically (a temporary file in the same folder, then rename).
void write_trade_filter_cache(const strategies::TradeFilterData& data, const std::filesystem::path& path);

/// Reads and validates; throws Error naming the path and what is wrong.
strategies::TradeFilterData read_trade_filter_cache(const std::filesystem::path& path);

}  // namespace tpeopt::io
