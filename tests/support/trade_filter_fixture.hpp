#pragma once
// Generated trade_filter data for tests: generated once per (days, trades, seed) into
// a temp folder (removed when the test process exits), prepared into a cache, and a
// config built around it.
#include <filesystem>
#include <string>

#include "config/study_config.hpp"

namespace tpeopt::testing {

/// Path of a prepared cache of generated data (made on first use in this process).
std::filesystem::path trade_filter_cache(int days, std::uint64_t trades, std::uint64_t seed);

/// A trade_filter study config over that cache; `params` is the JSON "params" object.
/// The params JSON of a continuous search over all seven parameters (filters over the
/// generator's metric ranges; target in [target_low, target_high], stop in [-target_high, -target_low]).
std::string trade_filter_continuous_params(double target_low, double target_high);

io::StudyConfig trade_filter_config(const std::filesystem::path& cache, const std::string& params_json,
                                    const std::string& search_json, std::int64_t min_trades = 1);

}  // namespace tpeopt::testing
