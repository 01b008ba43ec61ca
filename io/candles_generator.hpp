#pragma once
// Synthetic candle data sets of many symbols (docs/strategies.md, "Candle data sets of many symbols"), for tests,
// benchmarks and trying the whole path (`tpeopt data generate-candles`): per symbol a seeded geometric random
// walk whose drift switches between up, down and flat regimes and whose volatility switches
// between a calm and a wild regime, with consistent OHLC bars and log-normal volume. Symbols
// have different lengths and start dates: symbol s has a length drawn in [min_bars, bars]
// and starts at a random bar of a common calendar of `bars` intervals, so it may start late
// and end early. Deterministic for a given seed, and on every machine (Boost.Random and
// common/hd_math.hpp's exp); symbol s does not depend on how many symbols are generated.
#include <cstdint>
#include <string>

#include "common/candles.hpp"

namespace tpeopt::io {

/// What the closes of a generated series follow (docs/will-it-hold-up.md, "The null check").
enum class GeneratedEdge {
  Regimes,   ///< drift and volatility regimes, as described above (the default)
  None,      ///< a driftless random walk of constant volatility: no strategy has an edge on it
  Momentum,  ///< log returns with lag-1 autocorrelation kMomentumPhi: trends persist, a trend follower has an edge
};
/// The lag-1 autocorrelation of GeneratedEdge::Momentum's log returns.
inline constexpr double kMomentumPhi = 0.15;

struct CandleSetGeneratorOptions {
  int symbols = 100;  ///< number of symbols (names prefix + zero-padded index)
  int bars = 1500;    ///< calendar length and the longest symbol
  int min_bars = 0;   ///< shortest symbol; 0 = every symbol has `bars` bars
  std::uint64_t seed = 1;
  std::int64_t interval_ms = 86'400'000;           ///< bar interval (default: daily)
  std::int64_t first_time_ms = 1'577'836'800'000;  ///< the calendar's first bar: 2020-01-01 00:00 UTC
  std::string prefix = "SYM";
  GeneratedEdge edge = GeneratedEdge::Regimes;
};

/// "regimes", "none" or "momentum" (`--edge`); throws Error naming the flag otherwise.
GeneratedEdge parse_generated_edge(const std::string& name);

/// The set, symbols in name order (= index order). Throws Error on invalid options.
CandleSet generate_candle_set(const CandleSetGeneratorOptions& options);

}  // namespace tpeopt::io
