#include <cuda_runtime_api.h>

#include "common/error.hpp"
#include "strategies/device/cuda_check.cuh"

namespace tpeopt::gpu {

void throw_cuda_error(cudaError_t err, const char* what, const char* file, int line) {
  if (err == cudaErrorMemoryAllocation)
    throw make_error("CUDA out of device memory in {} ({}:{}): {}", what, file, line, cudaGetErrorString(err));
  throw make_error("CUDA error in {} ({}:{}): {} ({})", what, file, line, cudaGetErrorString(err),
                   cudaGetErrorName(err));
}

}  // namespace tpeopt::gpu
