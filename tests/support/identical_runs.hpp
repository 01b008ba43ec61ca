#pragma once
// The project's determinism promise checked on two runs' kept trials (RunOptions::keep_trials):
// the same trials, batches, parameters, scores, violations, metrics and halving rungs, bit for
// bit, and the same digest. Shared by the pipeline and data-subset determinism tests.
#include <catch2/catch.hpp>

#include <cstddef>

#include "engine/study_result.hpp"
#include "support/bits.hpp"

namespace tpeopt::testing {

inline void require_identical(const engine::StudyResult& a, const engine::StudyResult& b) {
  // Both runs must have kept every trial: otherwise only the digests would be compared.
  REQUIRE(!a.trials().empty());
  REQUIRE(a.trials().size() == a.n_trials());
  REQUIRE(a.trials().size() == b.trials().size());
  for (std::size_t i = 0; i < a.trials().size(); ++i) {
    const auto& x = a.trials()[i];
    const auto& y = b.trials()[i];
    CAPTURE(i);
    REQUIRE(x.trial == y.trial);
    REQUIRE(x.batch == y.batch);
    REQUIRE(same_bits(x.params, y.params));
    REQUIRE(same_bits(x.score, y.score));
    REQUIRE(same_bits(x.violation, y.violation));
    REQUIRE(same_bits(x.metrics, y.metrics));
    REQUIRE(x.rung == y.rung);
    REQUIRE(x.pruned == y.pruned);
  }
  REQUIRE(a.digest_hex() == b.digest_hex());
}

}  // namespace tpeopt::testing
