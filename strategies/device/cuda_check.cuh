#pragma once
// One check for CUDA API calls and one for kernel launches. Errors become
// tpeopt::Error with the call, the place and CUDA's own words; running out of device
// memory is named as such (never reported as a wrong result). Free of fmt, so .cu
// files may include it.
#include <cuda_runtime_api.h>

#include "common/error_base.hpp"

namespace tpeopt::gpu {

[[noreturn]] void throw_cuda_error(cudaError_t err, const char* what, const char* file, int line);

}  // namespace tpeopt::gpu

#define CUDA_CHECK(expr)                                                                                     \
  do {                                                                                                       \
    const cudaError_t tpeopt_err_ = (expr);                                                                  \
    if (tpeopt_err_ != cudaSuccess) ::tpeopt::gpu::throw_cuda_error(tpeopt_err_, #expr, __FILE__, __LINE__); \
  } while (0)

/// After every kernel launch: launch errors at once; in debug builds also execution errors.
#ifdef NDEBUG
#define CUDA_CHECK_LAUNCH(name) CUDA_CHECK(cudaGetLastError())
#else
#define CUDA_CHECK_LAUNCH(name)          \
  do {                                   \
    CUDA_CHECK(cudaGetLastError());      \
    CUDA_CHECK(cudaDeviceSynchronize()); \
  } while (0)
#endif
