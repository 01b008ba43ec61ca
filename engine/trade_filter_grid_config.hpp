#pragma once
// The grid of a trade_filter config for `tpeopt grid`: every slot's values in the
// order of tpe/grid_sampler.hpp (the config's axes, last one fastest; values lists,
// categorical choices or stepped ranges), fixed numbers and defaults as one-value slots.
#include "io/study_config.hpp"
#include "strategies/strategy.hpp"
#include "strategies/trade_filter/trade_filter_grid.hpp"

namespace tpeopt::engine {

/// Throws Error naming params.<name> when a parameter is unknown, missing, out of range
/// or not a list of values / stepped range.
strategies::trade_filter::TradeFilterGrid make_trade_filter_grid(const io::StudyConfig& config,
                                                                 const strategies::Strategy& strategy);

}  // namespace tpeopt::engine
