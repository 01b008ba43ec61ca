// gpu_atc_evaluate in a build without CUDA: says so clearly.
#include "common/error.hpp"
#include "gpu/atc_kernel.hpp"

namespace tpeopt::gpu {

AtcGpuResults gpu_atc_evaluate(const strategies::AtcStrategy&, const double*, std::size_t, const AtcDeviceOptions&,
                               int) {
  throw make_error("executor cuda: this tpeopt was built without CUDA; use --executor cpu");
}

}  // namespace tpeopt::gpu
