#pragma once
// The block size a kernel can launch with: the user's --block-size (or a strategy's
// default) capped at what the kernel's registers allow on this device, in whole warps.
// Without the cap a register-heavy kernel fails to launch ("too many resources requested")
// at block sizes a light one takes. Capping changes speed only: a thread-per-trial kernel's
// trial is its thread, a warp-per-trial kernel's its warp, whatever the block.
#include <algorithm>

#include <cuda_runtime_api.h>

#include "strategies/device/cuda_check.cuh"

namespace tpeopt::gpu {

template <class Kernel>
int launchable_block_size(Kernel kernel, int requested) {
  cudaFuncAttributes attributes{};
  CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel));
  const int cap = std::min(1024, attributes.maxThreadsPerBlock);
  return std::max(32, std::min(requested, cap) / 32 * 32);
}

/// Blocks of `threads` threads that cover `total_threads` threads.
inline unsigned blocks_covering(long long total_threads, int threads) {
  return static_cast<unsigned>((total_threads + threads - 1) / threads);
}

}  // namespace tpeopt::gpu
