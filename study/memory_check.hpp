#pragma once
// Memory is checked before it is spent (docs/user-guide.md, "Memory"): before a run starts (and
// before its directory exists), the host memory its batches and its sampler will take is
// estimated and compared with what the host has available, and, where a CUDA executor
// runs, the device memory its data takes with what the device has free. A study that
// cannot fit is refused with the numbers and the largest batch that fits.
#include <cstdint>
#include <optional>
#include <string>

#include "config/study_config.hpp"
#include "strategies/strategy.hpp"
#include "study/study.hpp"

namespace tpeopt::engine {

/// What a study's run needs, in bytes (estimates: docs/user-guide.md, "Memory").
struct MemoryEstimate {
  std::uint64_t batch_trials = 0;     ///< trials of one batch: min(search.batch, the study's trials)
  std::uint64_t total_trials = 0;     ///< the study's trials
  std::uint64_t per_batch_trial = 0;  ///< host bytes per trial of a batch, all batches in flight together
  std::uint64_t per_told_trial = 0;   ///< host bytes the sampler (and kept results) hold per trial told
  std::uint64_t host_bytes() const { return per_batch_trial * batch_trials + per_told_trial * total_trials; }
  /// The largest batch whose estimate fits in `available` bytes (0 when even the sampler's
  /// record of every trial does not fit).
  std::uint64_t largest_batch(std::uint64_t available) const;
};

/// The estimate for `config` run over `strategy` with `options` (executor already resolved).
MemoryEstimate estimate_memory(const io::StudyConfig& config, const strategies::Strategy& strategy,
                               const RunOptions& options);

/// Refuses (Error naming the config and the key) a study whose estimate exceeds the host's
/// available memory (common/host_memory.hpp), saying the numbers and the largest batch
/// that fits; with a CUDA executor, also one whose data (`data_bytes` on the host, as
/// io/data_log.hpp recorded it) cannot fit in a device's free memory. `available_host`:
/// the host's available bytes (nullopt: not known, nothing is checked on the host).
void check_memory(const io::StudyConfig& config, const strategies::Strategy& strategy, const RunOptions& options,
                  std::uint64_t data_bytes, std::optional<std::uint64_t> available_host);

}  // namespace tpeopt::engine
