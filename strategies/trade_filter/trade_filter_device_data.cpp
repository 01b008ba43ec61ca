#include "strategies/trade_filter/trade_filter_device_data.hpp"

#include <algorithm>
#include <vector>

namespace tpeopt::gpu {

namespace {
template <typename T>
T* upload(DeviceBuffer<T>& d, const std::vector<T>& h) {
  d.resize(std::max<std::size_t>(1, h.size()));
  if (!h.empty()) CUDA_CHECK(cudaMemcpy(d.data(), h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d.data();
}
}  // namespace

TradeFilterDeviceData::TradeFilterDeviceData(const strategies::TradeFilterStrategy& strategy)
    : host_(strategy.shared_data()) {
  const auto& d = *host_;
  arrays_.n = d.n_trades();
  const std::vector<float>* metrics[] = {&d.volatility, &d.ratio, &d.adx28, &d.adx14, &d.adx7};
  for (int s = 0; s < strategies::trade_filter::kFilterSlots; ++s) arrays_.metric[s] = upload(metric_[s], *metrics[s]);
  arrays_.logged_q = upload(logged_q_, d.logged_q);
  arrays_.up_offset = upload(up_offset_, d.up_offset);
  arrays_.up_value = upload(up_value_, d.up_value);
  arrays_.up_pos = upload(up_pos_, d.up_pos);
  arrays_.down_offset = upload(down_offset_, d.down_offset);
  arrays_.down_value = upload(down_value_, d.down_value);
  arrays_.down_pos = upload(down_pos_, d.down_pos);
  if (!strategy.fold_run_folds().empty()) {
    arrays_.n_fold_runs = strategy.fold_run_folds().size();
    arrays_.fold_run_start = upload(fold_run_start_, strategy.fold_run_starts());
    arrays_.fold_run_fold = upload(fold_run_fold_, strategy.fold_run_folds());
  }
}

}  // namespace tpeopt::gpu
