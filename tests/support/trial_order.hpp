#pragma once
// The order-independence check (tests/strategies/test_conformance_order.cpp, and the CUDA side
// in tests/gpu/test_conformance_gpu.cpp): a trial's result is a function of its parameters and
// the data alone, so it has the same bits alone, in a batch, and in the batch reversed,
// whatever the executor and its thread count. State kept between trials (a static or
// thread_local variable, a cache that answers wrongly) breaks it.
#include <cstddef>
#include <string>
#include <vector>

#include "engine/messages.hpp"

namespace tpeopt::testing {

/// The batch's trials in reverse order.
engine::BatchRequest reversed(const engine::BatchRequest& batch);

/// Trial i of the batch as a batch of its own.
engine::BatchRequest one_trial(const engine::BatchRequest& batch, std::size_t i);

/// Results of `got` (trial k of it is trial order[k] of `ref`'s batch) against `ref`: "" when
/// every trial's score, violation and metrics have the same bits, else the first trial that
/// differs, described (`what` names the way `got` was evaluated).
std::string order_difference(const engine::BatchResult& ref, const engine::BatchResult& got,
                             const std::vector<std::size_t>& order, const std::string& what);

/// Each trial of the batch evaluated alone (`evaluate` called once per trial), as one result in
/// the batch's order.
template <typename Evaluate>
engine::BatchResult each_alone(const engine::BatchRequest& batch, Evaluate&& evaluate) {
  engine::BatchResult all;
  all.n_trials = batch.n_trials;
  for (std::size_t i = 0; i < batch.n_trials; ++i) {
    const engine::BatchResult r = evaluate(one_trial(batch, i));
    all.n_metrics = r.n_metrics;
    all.scores.push_back(r.scores.at(0));
    all.violations.push_back(r.violations.at(0));
    all.metrics.insert(all.metrics.end(), r.metrics.begin(), r.metrics.end());
  }
  return all;
}

/// 0, 1, ..., n - 1 and n - 1, ..., 0.
std::vector<std::size_t> forward_order(std::size_t n);
std::vector<std::size_t> reverse_order(std::size_t n);

}  // namespace tpeopt::testing
