// The gpu module of a build without CUDA: every entry point says so clearly.
#include "common/error.hpp"
#include "gpu/cuda_executor.hpp"

namespace tpeopt::gpu {

bool cuda_available() { return false; }

int cuda_device_count() { return 0; }

std::string cuda_device_description() { return "none (this tpeopt was built without CUDA)"; }

std::optional<DeviceMemory> cuda_device_memory(int) { return std::nullopt; }

std::unique_ptr<engine::Executor> make_cuda_executor(const strategies::Strategy&, engine::ParamBinding,
                                                     const CudaExecutorOptions&) {
  throw make_error(
      "executor cuda: this tpeopt was built without CUDA (no nvcc at build time); rebuild with the CUDA toolkit "
      "installed or use --executor cpu");
}

}  // namespace tpeopt::gpu
