#pragma once
// Device twin of strategies::TradeFilterStrategy for TPE/random batches (continuous
// parameters): one thread per (trial, chunk of trades); each thread runs the shared
// TPEOPT_HD record bisection (trade_filter.hpp) over its chunk and adds its exact int64
// totals to the trial's accumulators with integer atomics, so the result does not
// depend on the launch configuration or the order of the atomics. With folds each kept
// trade also joins its fold's exact totals (trade_filter_folds.hpp), added the same way.
#include <cstdint>
#include <memory>

#include "strategies/device/device_strategy.hpp"
#include "strategies/trade_filter/trade_filter.hpp"
#include "strategies/trade_filter/trade_filter_grid.hpp"
#include "strategies/trade_filter/trade_filter_strategy.hpp"

namespace tpeopt::gpu {

std::unique_ptr<DeviceStrategy> make_trade_filter_device(const strategies::TradeFilterStrategy& strategy,
                                                         cudaStream_t stream);

/// The registry's device factory (trade_filter_register.cpp).
std::unique_ptr<DeviceStrategy> make_trade_filter_twin(const strategies::Strategy& strategy, cudaStream_t stream);

/// Adds trades' totals for n trials to acc (n x 4 unsigned long long: sum_q, kept, wins,
/// losses; zeroed by the caller). Trials take their parameters from `slots` (n x 7
/// doubles, on the device), asynchronous on `stream`; `probe`: the batch's occupancy probe.
void launch_tally_batch(const strategies::trade_filter::TradeArrays& arrays, const double* slots, std::size_t n,
                        unsigned long long* acc, cudaStream_t stream, int block_size, OccupancyProbe probe = {});

/// The same for grid combinations first .. first + n - 1 (parameters from their index).
void launch_tally_grid(const strategies::trade_filter::TradeArrays& arrays,
                       const strategies::trade_filter::GridLayout& layout, const float* fvalues, std::uint64_t first,
                       std::size_t n, unsigned long long* acc, cudaStream_t stream, int block_size);

/// Scores, violations and metrics (kept, wins, losses) from the accumulators.
void launch_tally_finalize(const unsigned long long* acc, std::size_t n, std::int64_t min_trades, double* scores,
                           double* violations, double* metrics, cudaStream_t stream);

}  // namespace tpeopt::gpu
