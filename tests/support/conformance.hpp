#pragma once
// The conformance harness's cases (tests/strategies/test_conformance.cpp, tests/gpu/
// test_conformance_gpu.cpp): every registered strategy, over each of its registry samples
// (StrategyEntry::samples) on the repository's bundled real data, as a study config whose
// parameters range over the strategy's typical ranges. No test is written per strategy: a
// strategy added to the registry is covered as soon as it is built.
#include <cstddef>
#include <string>
#include <vector>

#include "engine/messages.hpp"
#include "config/study_config.hpp"
#include "strategies/registry.hpp"

namespace tpeopt::testing {

/// data/backtesting-py/EURUSD.csv, and a folder of three symbols cut from it with different spans
/// (bars 0-2499, 1000-3999 and 2500-4999): made once per test process.
const strategies::SampleData& conformance_data();

struct ConformanceCase {
  const strategies::StrategyEntry* entry = nullptr;
  std::string label;  ///< "<strategy>: <sample>"
  io::Json config;    ///< a whole study config (random sampler, 64 trials in batches of 16)
};

/// Every registered strategy's samples (but a strategy scored by its caller's: it has none).
std::vector<ConformanceCase> conformance_cases();

/// The case's study config, with `patch` merged into it (JSON merge patch: e.g. a hold-out).
io::StudyConfig conformance_study(const ConformanceCase& c, const io::Json& patch = io::Json::object());

/// n trials of the study's space drawn by its sampler (seeded: the same every time).
engine::BatchRequest random_batch(const io::StudyConfig& config, std::size_t n, std::uint64_t seed);

}  // namespace tpeopt::testing
