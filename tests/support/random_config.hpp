#pragma once
// Random small study configs for the property test of `tpeopt run` (tests/apps/
// test_random_configs.cpp): a registered strategy over one of its registry samples (the
// conformance harness's cases on the repository's bundled data), a sampler, a parameter
// space of random shapes (float, int, stepped, log, a values list, a fixed number, low ==
// high, a single choice: degenerate spaces included), a batch size (1 and awkward sizes), a
// depth of 1 to 3 and a small trial count. The same seed gives the same config.
#include <cstdint>
#include <string>

#include "io/json_fields.hpp"

namespace tpeopt::testing {

struct RandomConfig {
  std::string label;  ///< "<strategy>: <sample> | <sampler>"
  io::Json config;    ///< the whole study config, paths absolute
};

/// The config of `seed`. Grids are kept small (a few axes of a few points), since a grid
/// runs every point whatever search.trials says.
RandomConfig random_study_config(std::uint64_t seed);

}  // namespace tpeopt::testing
