#pragma once
// Two executors' results for the same batch, compared bit for bit (support/bits.hpp): the
// number of trials whose score, violation or any metric differs.
#include <cstddef>

#include <catch2/catch.hpp>

#include "engine/messages.hpp"
#include "support/bits.hpp"

namespace tpeopt::testing {

inline std::size_t differing_trials(const engine::BatchResult& a, const engine::BatchResult& b) {
  REQUIRE(a.n_trials == b.n_trials);
  REQUIRE(a.n_metrics == b.n_metrics);
  std::size_t d = 0;
  for (std::size_t i = 0; i < a.n_trials; ++i) {
    bool same = same_bits(a.scores[i], b.scores[i]) && same_bits(a.violations[i], b.violations[i]);
    for (std::size_t m = 0; m < a.n_metrics; ++m)
      same = same && same_bits(a.metrics[i * a.n_metrics + m], b.metrics[i * b.n_metrics + m]);
    d += same ? 0 : 1;
  }
  return d;
}

}  // namespace tpeopt::testing
