#pragma once
// The device side of strategies/device/occupancy.hpp: a guard that records its block's SM, start and end
// into a batch's probe. A kernel constructs it first thing, in every thread (its constructor
// has a block barrier, so no thread may return before it), and the block's last thread to
// leave records the end, whatever return it leaves by. A null probe costs a barrier at the
// start and a shared-memory load at the end. CUDA translation units only.
#include "strategies/device/occupancy.hpp"

namespace tpeopt::gpu {

struct ProbeAtomics {
  __device__ __forceinline__ unsigned long long add(unsigned long long* p, unsigned long long v) {
    return atomicAdd(p, v);
  }
  __device__ __forceinline__ void min(unsigned long long* p, unsigned long long v) { atomicMin(p, v); }
  __device__ __forceinline__ void max(unsigned long long* p, unsigned long long v) { atomicMax(p, v); }
};

__device__ __forceinline__ unsigned long long probe_clock_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__device__ __forceinline__ int probe_sm_id() {
  unsigned sm;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
  return static_cast<int>(sm);
}

/// The block's probe, its SM and its threads still running, in shared memory: the guard
/// itself holds nothing, so that it costs the kernels no registers across their bodies.
struct BlockProbeState {
  unsigned long long* words;
  unsigned long long* device_words;
  int ids;
  unsigned sm, remaining;
};

__device__ __forceinline__ BlockProbeState& block_probe_state() {
  __shared__ BlockProbeState state;  // one per block, whichever function asks
  return state;
}

class BlockOccupancy {
 public:
  __device__ explicit BlockOccupancy(const OccupancyProbe& probe) {
    if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) {
      BlockProbeState& st = block_probe_state();
      st.words = probe.words;
      st.device_words = probe.device_words;
      st.ids = probe.ids;
      st.remaining = blockDim.x * blockDim.y * blockDim.z;
      if (probe.words != nullptr) {
        st.sm = static_cast<unsigned>(probe_sm_id() % probe.ids);  // ProbeLayout: ids beyond its room fold
        ProbeAtomics ops;
        probe_block_start(ops, probe.words, probe.ids, static_cast<int>(st.sm), probe_clock_ns(), probe.device_words);
      }
    }
    __syncthreads();
  }
  __device__ ~BlockOccupancy() {
    BlockProbeState& st = block_probe_state();
    if (st.words == nullptr) return;
    if (atomicSub(&st.remaining, 1u) == 1u) {
      ProbeAtomics ops;
      probe_block_end(ops, st.words, st.ids, static_cast<int>(st.sm), probe_clock_ns(), st.device_words);
    }
  }
  BlockOccupancy(const BlockOccupancy&) = delete;
  BlockOccupancy& operator=(const BlockOccupancy&) = delete;
};

}  // namespace tpeopt::gpu
