#pragma once
// Helpers shared by tests: small study configs built in code.
#include <cstdint>
#include <string>

#include "config/study_config.hpp"

namespace tpeopt::testing {

/// A `functions` study over `dim` float axes x0..x{dim-1} in [low, high].
io::StudyConfig functions_config(const std::string& function, int dim, double low, double high, std::uint64_t trials,
                                 std::uint64_t batch, std::uint64_t depth, std::uint64_t seed,
                                 const std::string& sampler = "tpe");

/// The same with a mixed space: a float, a log float, a stepped float, an int and a
/// categorical, scored by the sphere function (categorical values are numbers).
io::StudyConfig mixed_space_config(std::uint64_t trials, std::uint64_t batch, std::uint64_t depth, std::uint64_t seed);

}  // namespace tpeopt::testing
