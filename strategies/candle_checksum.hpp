#pragma once
// The checksum of a candle data set that a strategy reports as its data (Strategy::
// data_checksums: resume refuses a run whose data changed).
#include <string>

#include "common/candles.hpp"

namespace tpeopt::strategies {

/// A digest of a candle set's names and bars ("candles=<hex>"); one symbol gives the same
/// string as a one-series strategy's checksum of its candles.
std::string candle_set_checksum(const CandleSet& set);

}  // namespace tpeopt::strategies
