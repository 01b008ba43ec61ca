#pragma once
// The launches of a twin still on the device, for twins whose launches overlap on different
// streams (DeviceStrategy::concurrent_launches) while sharing a series cache
// (strategies/device/series_slots.hpp). Each launch records an event after its work, with the
// cache parts it placed: a later launch that evicts a series waits only for the launches that
// may still read it (wait_for_readers), and one that grows the cache's pool waits for all of
// them (synchronize). Launches are planned one at a time on the host; the ordering they need
// on the device is made by these events, never by serializing the streams.
#include <cstdint>
#include <deque>
#include <vector>

#include <cuda_runtime_api.h>

#include "strategies/device/cuda_check.cuh"

namespace tpeopt::gpu {

class LaunchesInFlight {
 public:
  LaunchesInFlight() = default;
  LaunchesInFlight(const LaunchesInFlight&) = delete;
  LaunchesInFlight& operator=(const LaunchesInFlight&) = delete;
  ~LaunchesInFlight() {
    wait_quietly();
    for (const Launch& f : launches_) cudaEventDestroy(f.done);
    for (cudaEvent_t e : spare_) cudaEventDestroy(e);
  }

  /// Forgets the launches that have finished (their events are kept for later launches).
  void retire() {
    for (auto it = launches_.begin(); it != launches_.end();) {
      const cudaError_t err = cudaEventQuery(it->done);
      if (err == cudaErrorNotReady) {
        ++it;
        continue;
      }
      CUDA_CHECK(err);
      spare_.push_back(it->done);
      it = launches_.erase(it);
    }
  }

  /// A launch's work, all on `stream` so far, which placed the cache parts first_part ..
  /// last_part (SeriesSlots::part() before and after it).
  void record(std::uint64_t first_part, std::uint64_t last_part, cudaStream_t stream) {
    cudaEvent_t done = take_event();
    CUDA_CHECK(cudaEventRecord(done, stream));
    launches_.push_back({first_part, last_part, done});
  }

  /// Makes `stream` wait for the launches in flight that may have read series of parts up to
  /// `part` (the latest part that used a series about to be evicted: SeriesSlots::place).
  void wait_for_readers(std::uint64_t part, cudaStream_t stream) const {
    for (const Launch& f : launches_)
      if (f.first_part <= part) CUDA_CHECK(cudaStreamWaitEvent(stream, f.done, 0));
  }

  /// Waits on the host for every launch in flight (before the pool they read is freed).
  void synchronize() const {
    for (const Launch& f : launches_) CUDA_CHECK(cudaEventSynchronize(f.done));
  }

  /// synchronize() for a destructor: a device error shows at the next checked call instead.
  void wait_quietly() const noexcept {
    for (const Launch& f : launches_) cudaEventSynchronize(f.done);
  }

 private:
  struct Launch {
    std::uint64_t first_part, last_part;
    cudaEvent_t done;
  };

  cudaEvent_t take_event() {
    if (!spare_.empty()) {
      cudaEvent_t e = spare_.back();
      spare_.pop_back();
      return e;
    }
    cudaEvent_t e{};
    CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    return e;
  }

  std::deque<Launch> launches_;  ///< not known to be done, in launch order
  std::vector<cudaEvent_t> spare_;
};

}  // namespace tpeopt::gpu
