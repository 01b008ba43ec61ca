#pragma once
// The trade_filter data on the device (uploaded once): the trade arrays and the record
// arrays the fast exact methods need (not the paths or the prices), and the runs of the
// trades' folds when the strategy scores folds.
#include <memory>

#include "strategies/device/device_buffers.hpp"
#include "strategies/trade_filter/trade_filter.hpp"
#include "strategies/trade_filter/trade_filter_strategy.hpp"

namespace tpeopt::gpu {

class TradeFilterDeviceData {
 public:
  /// Uploads synchronously; keeps a reference to the host data alive.
  explicit TradeFilterDeviceData(const strategies::TradeFilterStrategy& strategy);
  /// Device pointers (valid while this object lives).
  const strategies::trade_filter::TradeArrays& arrays() const { return arrays_; }
  std::uint64_t n_trades() const { return arrays_.n; }

 private:
  std::shared_ptr<const strategies::TradeFilterData> host_;
  DeviceBuffer<float> metric_[strategies::trade_filter::kFilterSlots];
  DeviceBuffer<std::int64_t> logged_q_;
  DeviceBuffer<std::uint64_t> up_offset_, down_offset_;
  DeviceBuffer<float> up_value_, down_value_;
  DeviceBuffer<std::uint32_t> up_pos_, down_pos_;
  DeviceBuffer<std::uint64_t> fold_run_start_;
  DeviceBuffer<std::int8_t> fold_run_fold_;
  strategies::trade_filter::TradeArrays arrays_;
};

}  // namespace tpeopt::gpu
