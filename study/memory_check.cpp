#include "study/memory_check.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "common/error.hpp"
#include "common/host_memory.hpp"
#include "gpu/cuda_executor.hpp"

namespace tpeopt::engine {

namespace {

constexpr std::uint64_t kDouble = sizeof(double);
/// Characters of one number in trials.csv (shortest round-trip doubles take up to 24).
constexpr std::uint64_t kCsvBytesPerNumber = 24;
/// A kept TrialRecord (tpeopt verify keeps every trial of both runs): the record and the
/// heap blocks of its two vectors.
constexpr std::uint64_t kTrialRecordBytes = sizeof(TrialRecord) + 2 * 32;

/// Host bytes the sampler keeps per trial told (measured: docs/user-guide.md, "Memory").
std::uint64_t sampler_bytes_per_trial(const io::StudyConfig& config) {
  const std::uint64_t axes = config.space.size();
  const std::string& s = config.search.sampler;
  // Optuna's TPE keeps the observations, each axis's sorted order and sums; the batch TPE
  // and the GA the scores they rank (their pools are bounded); random and grid nothing.
  if (s == "tpe" && config.search.tpe.preset == tpe::Preset::Optuna) return axes * 40 + 32;
  if (s == "tpe" || s == "ga") return 16;
  return 0;
}

}  // namespace

std::uint64_t MemoryEstimate::largest_batch(std::uint64_t available) const {
  const std::uint64_t kept = per_told_trial * total_trials;
  if (kept >= available || per_batch_trial == 0) return 0;
  return std::min(total_trials, (available - kept) / per_batch_trial);
}

MemoryEstimate estimate_memory(const io::StudyConfig& config, const strategies::Strategy& strategy,
                               const RunOptions& options) {
  MemoryEstimate e;
  e.total_trials = study_trial_count(config);
  e.batch_trials = std::min<std::uint64_t>(config.search.batch, e.total_trials);
  const std::uint64_t axes = config.space.size(), metrics = strategy.metric_names().size();
  const std::uint64_t slots = strategy.param_names().size();
  const std::uint64_t depth = std::max<std::uint64_t>(1, config.search.depth);
  // Per trial of a batch, with `depth` batches in flight: the parameter values asked and
  // the copy sent to the executor; the results in flight and the one being told, with
  // the outcomes told to the sampler; the journal record; the trials.csv rows.
  std::uint64_t per = 2 * depth * axes * kDouble;
  per += (depth + 1) * (2 + metrics) * kDouble + 2 * kDouble;
  per += (axes + 3 + metrics) * kDouble;
  per += (axes + metrics + 4) * kCsvBytesPerNumber;
  // The CUDA executor stages each in-flight batch in pinned host memory.
  if (options.executor == "cuda") per += depth * gpu::cuda_bytes_per_trial(slots, metrics);
  // Successive halving: each rung's request and result besides the batch's.
  if (config.search.halving.enabled) per += (axes + 2 + metrics) * kDouble * 2;
  e.per_batch_trial = per;
  e.per_told_trial = sampler_bytes_per_trial(config);
  if (options.keep_trials) e.per_told_trial += 2 * (kTrialRecordBytes + (axes + metrics) * kDouble);
  return e;
}

void check_memory(const io::StudyConfig& config, const strategies::Strategy& strategy, const RunOptions& options,
                  std::uint64_t data_bytes, std::optional<std::uint64_t> available_host) {
  const MemoryEstimate e = estimate_memory(config, strategy, options);
  if (available_host && e.host_bytes() > *available_host) {
    const std::uint64_t kept = e.per_told_trial * e.total_trials;
    const std::string sampler =
        e.per_told_trial > 0 ? fmt::format(", and the {} sampler keeps {} bytes per trial told ({} for {} trials)",
                                           config.search.sampler, e.per_told_trial, format_bytes(kept), e.total_trials)
                             : std::string();
    const std::uint64_t fits = e.largest_batch(*available_host);
    throw make_error(
        "{}: search.batch {}: the run needs about {} of host memory ({} bytes per trial of a batch, {} batches in "
        "flight{}), but {} is available ({}); {}",
        config.source, config.search.batch, format_bytes(e.host_bytes()), e.per_batch_trial, config.search.depth,
        sampler, format_bytes(*available_host), available_host_memory_source(),
        fits > 0 ? fmt::format("the largest batch that fits is {} (search.batch or --batch)", fits)
                 : fmt::format("no batch fits: lower search.trials (the sampler's record of {} trials alone needs {})",
                               e.total_trials, format_bytes(kept)));
  }
  if (options.executor != "cuda") return;
  // The device keeps the data (its series and the per-bar values derived from them: about
  // twice the host's arrays) and the buffers of one part of a batch; a batch larger than
  // what is then free runs in parts (gpu/cuda_executor.hpp), so only the data can fail to fit.
  const std::uint64_t min_part = std::min<std::uint64_t>(e.batch_trials, 1024);
  const std::uint64_t need =
      2 * data_bytes + min_part * std::max<std::uint64_t>(1, config.search.depth) *
                           gpu::cuda_bytes_per_trial(strategy.param_names().size(), strategy.metric_names().size());
  const std::vector<int> devices = options.cuda_devices.empty() ? std::vector<int>{0} : options.cuda_devices;
  for (const int d : devices) {
    const auto m = gpu::cuda_device_memory(d);
    if (m && need > m->free)
      throw make_error(
          "{}: the data needs about {} on CUDA device {} (its {} of data on the host, twice, and the "
          "buffers of {} trials), but {} of its {} is free; use --executor cpu, a device with more "
          "memory, or less data",
          config.source, format_bytes(need), d, format_bytes(data_bytes), min_part, format_bytes(m->free),
          format_bytes(m->total));
  }
}

}  // namespace tpeopt::engine
