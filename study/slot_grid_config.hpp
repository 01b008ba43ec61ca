#pragma once
// The grid of a study config over a strategy's parameter slots, for an exact grid search
// (strategies/exact_grid.hpp): every slot's values in the order of tpe/grid_sampler.hpp (the
// config's axes, last one fastest; values lists, categorical choices or stepped ranges),
// fixed numbers and defaults as one-value slots.
#include "config/study_config.hpp"
#include "strategies/exact_grid.hpp"
#include "strategies/strategy.hpp"

namespace tpeopt::engine {

/// Throws Error naming params.<name> when a parameter is unknown, missing, out of range
/// or not a list of values / stepped range.
strategies::SlotGrid make_slot_grid(const io::StudyConfig& config, const strategies::Strategy& strategy);

}  // namespace tpeopt::engine
