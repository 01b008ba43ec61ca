#pragma once
// The future-invariance check's data (tests/strategies/test_conformance_future.cpp): a copy of
// a conformance sample's data in which everything after a time t is changed, strongly but
// validly, and nothing before it. Which files to change is read from the sample's `data`
// object, not from the strategy's name: candle data (`candles`, `candles_dir`) and trade logs
// (`trades`). A `data` key naming a source this file does not know is an error, so a strategy
// reading a new kind of data cannot pass the check unchecked.
//
// "After t", exactly:
//  - candles: a bar stamped T opens at T and closes after it, so every bar with T > t changes
//    (a random walk three times as volatile as the data's, its volumes drawn from the data's
//    with a factor of e^-2 .. e^2; the first bar changed closes at e^0.5 or e^-0.5 times its open,
//    a jump that moves whatever reads it, a slowly adapting weight included), and the bar
//    stamped t keeps its open (the price at t) while its high, low, close and volume change;
//  - a trade log: the trades whose entry time is after t take the entry metrics and the
//    logged outcome of other trades after t (drawn at random) and a new entry price (within
//    5%); the market data is kept (each trade reads it through its own times only).
#include <cstdint>
#include <filesystem>

#include "io/json_fields.hpp"

namespace tpeopt::testing {

/// Writes into `dir` a copy of the data `data` (a sample's `data` object; relative paths
/// resolve against `base_dir`) changed after `t_ms` (Unix ms), drawn from `seed`, and returns
/// the `data` object that reads the copy (its caches go to `dir` too: removing `dir` removes
/// everything the check wrote). Throws std::runtime_error naming the key for a
/// `data` key it does not know.
io::Json data_changed_after(const io::Json& data, const std::filesystem::path& base_dir, std::int64_t t_ms,
                            std::uint64_t seed, const std::filesystem::path& dir);

}  // namespace tpeopt::testing
