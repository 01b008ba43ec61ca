#pragma once
// A binary cache of parsed candles, so that a CSV is parsed once (docs/design.md, "Data and
// run-directory formats").
//
// File layout (little-endian, as written by this machine):
//   magic "TPEOCNDL" (8 bytes), format version (u32), reserved (u32),
//   source CSV checksum (u64, common/digest.hpp over its bytes and the parse options that
//   differ from the defaults), source size (u64),
//   bar count n (u64), then the arrays time_ms[n] (i64), open, high, low, close, volume [n] (f64),
//   then the common/digest.hpp checksum of everything before it (u64).
// Written atomically: to "<file>.tmp.<pid>" then renamed.
//
// Where: a cache directory (default: $TPEOPT_CACHE_DIR, else $XDG_CACHE_HOME/tpeopt, else
// ~/.cache/tpeopt), one file per CSV content: "candles-<checksum hex>-<size>.bin". The CSV's
// own folder is never written (the shared data folder is read-only).
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "common/candles.hpp"
#include "io/candles_format.hpp"

namespace tpeopt::io {

/// What a cache file says about the CSV it came from.
struct CandlesSourceId {
  std::uint64_t checksum = 0;  ///< common/digest.hpp checksum of the CSV's bytes
  std::uint64_t size = 0;      ///< the CSV's size in bytes
};

/// The common/digest.hpp checksum and size of `bytes`; options that change how they parse
/// (CandlesCsvOptions::cache_key) are part of the checksum.
CandlesSourceId candles_source_id(std::string_view bytes, const CandlesCsvOptions& options = {});

/// Writes `candles` to `path` atomically (tmp + rename). Throws Error when it cannot.
void write_candles_cache(const std::filesystem::path& path, const Candles& candles, const CandlesSourceId& id);

/// Reads a cache file. Throws Error naming the file when it is not a candles cache (magic),
/// has another format version, is truncated or corrupt, or was made from another CSV
/// than `expected` (checksum or size differ). The result's `source` is `source_name`.
Candles read_candles_cache(const std::filesystem::path& path, const CandlesSourceId& expected,
                           const std::string& source_name);

/// $TPEOPT_CACHE_DIR, else $XDG_CACHE_HOME/tpeopt, else $HOME/.cache/tpeopt; empty if none is set.
std::filesystem::path default_candles_cache_dir();

/// The cache file of a CSV with identity `id` inside `cache_dir`.
std::filesystem::path candles_cache_path(const std::filesystem::path& cache_dir, const CandlesSourceId& id);

/// Loads a CSV through the cache: reads the CSV's bytes (its layout checked first, and
/// the memory of the load: io/candles_csv.hpp read_candles_file), and when `cache_dir`
/// (default: default_candles_cache_dir()) holds a valid cache for exactly these bytes and
/// options, loads it; else parses the CSV (errors name file:line:column) and writes the
/// cache. A cache directory that cannot be created or written is skipped silently; a stale
/// or corrupt cache file is replaced. An empty `cache_dir` path disables caching.
Candles load_candles(const std::filesystem::path& csv, const std::optional<std::filesystem::path>& cache_dir = {},
                     const CandlesCsvOptions& options = {});

/// load_candles of a CSV whose bytes the caller has already read; `source` names it.
Candles load_candles_bytes(const std::string& bytes, const std::string& source,
                           const std::optional<std::filesystem::path>& cache_dir = {},
                           const CandlesCsvOptions& options = {});

}  // namespace tpeopt::io
