// The CUDA twin of strategies::FunctionsStrategy: one thread per trial, the same
// TPEOPT_HD function as the CPU reference.
#include "strategies/device/cuda_check.cuh"
#include "strategies/device/occupancy_probe.cuh"
#include "strategies/functions/functions.hpp"
#include "strategies/functions/functions_device.hpp"

namespace tpeopt::gpu {

namespace {

__global__ void functions_kernel(strategies::TestFunction f, int dim, DeviceBatch batch) {
  BlockOccupancy occupancy(batch.probe);
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= batch.n) return;
  batch.scores[i] = strategies::evaluate_test_function(f, batch.params + i * dim, dim);
  batch.violations[i] = 0.0;
}

class FunctionsDevice final : public DeviceStrategy {
 public:
  explicit FunctionsDevice(const strategies::FunctionsStrategy& s) : function_(s.function()), dim_(s.dimension()) {}
  void launch(const DeviceBatch& batch, cudaStream_t stream, int block_size) override {
    const unsigned blocks = static_cast<unsigned>((batch.n + block_size - 1) / block_size);
    functions_kernel<<<blocks, block_size, 0, stream>>>(function_, dim_, batch);
    CUDA_CHECK_LAUNCH("functions_kernel");
  }
  /// Stateless launches: batches may run at once.
  bool concurrent_launches() const override { return true; }

 private:
  strategies::TestFunction function_;
  int dim_;
};

}  // namespace

std::unique_ptr<DeviceStrategy> make_functions_device(const strategies::FunctionsStrategy& strategy, cudaStream_t) {
  return std::make_unique<FunctionsDevice>(strategy);
}

std::unique_ptr<DeviceStrategy> make_functions_twin(const strategies::Strategy& strategy, cudaStream_t stream) {
  return make_functions_device(dynamic_cast<const strategies::FunctionsStrategy&>(strategy), stream);
}

}  // namespace tpeopt::gpu
