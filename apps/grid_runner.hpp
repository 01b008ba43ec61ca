#pragma once
// What `grid` and `resume` share for exact grids (strategies/exact_grid.hpp): run the
// segments of a GridRun on the chosen executor, print the top K, say how to resume.
#include <cstddef>
#include <string>

#include "storage/grid_run.hpp"

namespace tpeopt::app {

/// Bytes for the searcher's tables: `memory_mb` when given, else 1 GiB on the CPU and 0 (a
/// quarter of the free device memory) on the GPU.
std::size_t grid_memory_budget(const std::string& executor, std::size_t memory_mb);

/// Runs (or continues) `run` on `executor` ("cpu" or "cuda"). Returns 0 when the grid
/// is complete, 130 when interrupted (resumable). Errors say how to resume.
int run_grid_recorded(engine::GridRun& run, const strategies::Strategy& strategy, const std::string& executor,
                      bool quiet);

}  // namespace tpeopt::app
