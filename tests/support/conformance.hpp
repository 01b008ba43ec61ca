#pragma once
// The conformance harness's cases (tests/strategies/test_conformance.cpp, tests/gpu/
// test_conformance_gpu.cpp): every registered strategy, over each of its registry samples
// (StrategyEntry::samples) on the repository's bundled real data, as a study config whose
// parameters range over the strategy's typical ranges. No test is written per strategy: a
// strategy added to the registry is covered as soon as it is built.
#include <cstddef>
#include <string>
#include <vector>

#include "config/study_config.hpp"
#include "engine/messages.hpp"
#include "strategies/folds.hpp"
#include "strategies/registry.hpp"
#include "strategies/strategy.hpp"

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

/// K equal folds of atoms [begin, end), with `embargo` atoms after each boundary.
strategies::FoldSpec equal_folds(std::size_t begin, std::size_t end, std::size_t K, std::size_t embargo = 0);

/// `strategy` scoring `K` equal folds of its atoms with `embargo` and `rule`
/// (Strategy::with_folds), or null when the strategy cannot be split into folds (its
/// with_folds refuses with the documented "cannot be split into folds" error; any other
/// error is rethrown).
std::unique_ptr<strategies::Strategy> folded_or_null(const strategies::Strategy& strategy, std::size_t K,
                                                     std::size_t embargo, const strategies::AcrossFolds& rule);

}  // namespace tpeopt::testing
