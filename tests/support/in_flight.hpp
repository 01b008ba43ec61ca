#pragma once
// An executor kept `depth` batches ahead: batch k + depth is submitted before batch k
// completes, as the pipeline does with search.depth batches in flight (the overlap tests of
// the CUDA twins).
#include <cstddef>
#include <vector>

#include "engine/executor.hpp"
#include "engine/messages.hpp"

namespace tpeopt::testing {

inline std::vector<engine::BatchResult> run_in_flight(engine::Executor& executor,
                                                      const std::vector<engine::BatchRequest>& batches,
                                                      std::size_t depth) {
  std::vector<engine::BatchResult> got;
  std::size_t next = 0;
  depth = depth == 0 ? 1 : depth;  // one at least: complete() needs a batch submitted
  while (next < depth && next < batches.size()) executor.submit(batches[next++]);
  while (got.size() < batches.size()) {
    got.push_back(executor.complete());
    if (next < batches.size()) executor.submit(batches[next++]);
  }
  return got;
}

}  // namespace tpeopt::testing
