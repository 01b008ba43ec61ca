#pragma once
// The `search.ga` object of a study config (docs/samplers.md): read with key-naming errors,
// and written back with every default filled in.
#include "io/json_fields.hpp"
#include "tpe/ga_sampler.hpp"
#include "tpe/search_space.hpp"

namespace tpeopt::io {

/// Reads `search.ga`; keys left out keep GaConfig's defaults.
tpe::GaConfig parse_ga_config(const Json& object);

/// The settings as resolved for `space` (the default mutation rate written as its number).
Json ga_config_json(const tpe::GaConfig& config, const tpe::SearchSpace& space);

}  // namespace tpeopt::io
