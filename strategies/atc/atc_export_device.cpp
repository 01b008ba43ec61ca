// The atc strategy's per-symbol results computed on the GPU, as the registry exports them
// (`tpeopt backtest --executor cuda`; builds with CUDA).
#include "strategies/atc/atc_device.hpp"
#include "strategies/registry.hpp"

namespace tpeopt::gpu {

strategies::SymbolResults atc_symbols_device(const strategies::Strategy& strategy, const double* params,
                                             int block_size) {
  const auto r = gpu_atc_evaluate(dynamic_cast<const strategies::AtcStrategy&>(strategy), params, 1, {}, block_size);
  return {r.objective, r.equity, r.symbol_metrics};
}

}  // namespace tpeopt::gpu
