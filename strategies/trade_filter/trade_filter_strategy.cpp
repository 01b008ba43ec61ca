#include "strategies/trade_filter/trade_filter_strategy.hpp"

#include <cmath>

#include "common/error.hpp"

namespace tpeopt::strategies {

using namespace trade_filter;

TradeFilterStrategy::TradeFilterStrategy(std::shared_ptr<const TradeFilterData> data, std::int64_t min_trades)
    : data_(std::move(data)), min_trades_(min_trades) {
  TPEOPT_ASSERT(data_ != nullptr, "trade_filter needs data");
  if (min_trades_ < 0) throw make_error("objective.min_trades: expected >= 0, got {}", min_trades_);
  days_ = trade_filter_days(*data_);
}

std::unique_ptr<Strategy> TradeFilterStrategy::subset(const std::vector<AtomRange>& ranges,
                                                      std::int64_t min_trades) const {
  std::vector<std::int64_t> days;
  for (const auto& r : ranges) {
    TPEOPT_ASSERT(r.begin <= r.end && r.end <= days_.size(), "trade_filter: subset range outside the days");
    for (std::size_t k = r.begin; k < r.end; ++k) days.push_back(days_[k]);
  }
  return std::make_unique<TradeFilterStrategy>(
      std::make_shared<const TradeFilterData>(subset_trade_filter_days(*data_, days)), min_trades);
}

const std::vector<std::string>& TradeFilterStrategy::param_names() const {
  static const std::vector<std::string> names{"min_volatility", "min_ratio", "min_adx28", "min_adx14",
                                              "min_adx7",       "target_pct", "stop_pct"};
  return names;
}

std::vector<double> TradeFilterStrategy::param_defaults() const {
  return {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL, -HUGE_VAL, -HUGE_VAL, NAN, NAN};
}

const std::vector<std::string>& TradeFilterStrategy::metric_names() const {
  static const std::vector<std::string> names{"kept", "wins", "losses"};
  return names;
}

void TradeFilterStrategy::check_param_range(std::size_t slot, double low, double high) const {
  const std::string& name = param_names().at(slot);
  if (!std::isfinite(low) || !std::isfinite(high))
    throw make_error("params.{}: expected finite values, got [{}, {}]", name, low, high);
  if ((slot == kTargetPct || slot == kStopPct) && (std::abs(low) > kMaxExitPct || std::abs(high) > kMaxExitPct))
    throw make_error("params.{}: expected values within [-{}, {}] percent, got [{}, {}]", name, kMaxExitPct,
                     kMaxExitPct, low, high);
  if (slot == kTargetPct && !(static_cast<float>(low) > 0.0f))
    throw make_error("params.{}: the take profit must be > 0 percent (as float32), got {}", name, low);
  if (slot == kStopPct && !(static_cast<float>(high) < 0.0f))
    throw make_error("params.{}: the stop loss must be < 0 percent (as float32), got {}", name, high);
}

TrialScore TradeFilterStrategy::evaluate(const double* slots, double* metrics) const {
  const Params p = params_from_slots(slots);
  const TradeFilterData& d = *data_;
  Tally t;
  for (std::size_t i = 0; i < d.n_trades(); ++i) {
    if (!keeps(p, d.volatility[i], d.ratio[i], d.adx28[i], d.adx14[i], d.adx7[i])) continue;
    const std::uint64_t begin = d.path_offset[i];
    const int exit = first_exit_linear(d.path.data() + begin, d.path_offset[i + 1] - begin, p.target, p.stop);
    tally_add(t, outcome_q(exit, p.target, p.stop, d.logged_q[i]));
  }
  metrics[0] = static_cast<double>(t.kept);
  metrics[1] = static_cast<double>(t.wins);
  metrics[2] = static_cast<double>(t.losses);
  return {from_fixed_point(t.sum_q), violation_of(t.kept, min_trades_)};
}

std::vector<std::string> TradeFilterStrategy::data_checksums() const {
  std::vector<std::string> out;
  for (const auto& s : data_->sources) out.push_back(s.name + "=" + s.checksum);
  return out;
}

TradeArrays TradeFilterStrategy::arrays() const {
  const TradeFilterData& d = *data_;
  TradeArrays a;
  a.n = d.n_trades();
  a.metric[0] = d.volatility.data();
  a.metric[1] = d.ratio.data();
  a.metric[2] = d.adx28.data();
  a.metric[3] = d.adx14.data();
  a.metric[4] = d.adx7.data();
  a.logged_q = d.logged_q.data();
  a.up_offset = d.up_offset.data();
  a.up_value = d.up_value.data();
  a.up_pos = d.up_pos.data();
  a.down_offset = d.down_offset.data();
  a.down_value = d.down_value.data();
  a.down_pos = d.down_pos.data();
  return a;
}

}  // namespace tpeopt::strategies
