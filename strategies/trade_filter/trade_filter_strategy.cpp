#include "strategies/trade_filter/trade_filter_strategy.hpp"

#include <algorithm>
#include <cmath>

#include "common/error.hpp"
#include "strategies/trade_filter/trade_filter_folds.hpp"

namespace tpeopt::strategies {

using namespace trade_filter;

TradeFilterStrategy::TradeFilterStrategy(std::shared_ptr<const TradeFilterData> data, std::int64_t min_trades,
                                         bool maximize)
    : data_(std::move(data)), min_trades_(min_trades), maximize_(maximize) {
  TPEOPT_ASSERT(data_ != nullptr, "trade_filter needs data");
  if (min_trades_ < 0) throw make_error("objective.min_trades: expected >= 0, got {}", min_trades_);
  days_ = trade_filter_days(*data_);
  whole_days_ = std::make_shared<const std::vector<std::int64_t>>(days_);
}

std::unique_ptr<Strategy> TradeFilterStrategy::subset(const std::vector<AtomRange>& ranges,
                                                      std::int64_t min_trades) const {
  std::vector<std::int64_t> days;
  for (const auto& r : ranges) {
    TPEOPT_ASSERT(r.begin <= r.end && r.end <= days_.size(), "trade_filter: subset range outside the days");
    for (std::size_t k = r.begin; k < r.end; ++k) days.push_back(days_[k]);
  }
  auto out = std::make_unique<TradeFilterStrategy>(std::make_shared<const TradeFilterData>(
                                                       subset_trade_filter_days(*data_, days)),
                                                   min_trades, maximize_);
  out->whole_days_ = whole_days_;  // the folds keep their days: atoms of the whole data
  out->set_folds(folds_, rule_);
  return out;
}

std::unique_ptr<Strategy> TradeFilterStrategy::with_folds(const FoldSpec& folds, const AcrossFolds& rule) const {
  auto out = std::make_unique<TradeFilterStrategy>(*this);
  if (folds.n_folds() > 0) check_fold_spec(folds, whole_days_->size());
  out->set_folds(folds, rule);
  return out;
}

void TradeFilterStrategy::set_folds(const FoldSpec& folds, const AcrossFolds& rule) {
  folds_ = FoldSpec{};
  rule_ = rule;
  trade_fold_.clear();
  fold_run_start_.clear();
  fold_run_fold_.clear();
  fold_names_.clear();
  if (folds.n_folds() == 0) return;
  // Fold edges in days: the folds' FoldBars over atoms (an atom is its own "bar").
  std::vector<int> edge, embargo_end;
  fold_bars_of(
      folds, [](std::size_t atom) { return atom; }, edge, embargo_end);
  const FoldBars bars{static_cast<int>(folds.n_folds()), edge.data(), embargo_end.data()};
  const std::vector<std::int64_t>& whole = *whole_days_;
  const TradeFilterData& d = *data_;
  trade_fold_.resize(d.n_trades());
  for (std::size_t i = 0; i < d.n_trades(); ++i) {
    const std::int64_t day = trade_filter_day(d.entry_time[i]);
    const auto it = std::lower_bound(whole.begin(), whole.end(), day);
    TPEOPT_ASSERT(it != whole.end() && *it == day, "trade_filter: a trade's day is not a day of the whole data");
    trade_fold_[i] = static_cast<std::int8_t>(fold_of(bars, static_cast<int>(it - whole.begin())));
  }
  for (std::size_t i = 0; i < trade_fold_.size(); ++i) {
    if (i > 0 && trade_fold_[i] == trade_fold_[i - 1]) continue;
    fold_run_start_.push_back(i);
    fold_run_fold_.push_back(trade_fold_[i]);
  }
  fold_run_start_.push_back(trade_fold_.size());
  fold_names_ = fold_metric_names(metric_names(), folds.n_folds());  // the base names: no folds yet
  folds_ = folds;
}

namespace {

// Every parameter is rounded to float32 before use: the exits must keep their sign there.
bool positive_as_float(double lo, double) { return static_cast<float>(lo) > 0.0f; }
bool negative_as_float(double, double hi) { return static_cast<float>(hi) < 0.0f; }

}  // namespace

const ParamList& trade_filter_params() {
  const char* minimum = "must be a finite number (no filter: leave it out)";
  Domain target = open_closed(0.0, kMaxExitPct, "the take profit must be > 0 percent as float32 (and at most 1000)");
  target.extra = positive_as_float;
  Domain stop = closed_open(-kMaxExitPct, 0.0, "the stop loss must be < 0 percent as float32 (and at least -1000)");
  stop.extra = negative_as_float;
  static const ParamList list({
      {"min_volatility", -HUGE_VAL, Domain{-HUGE_VAL, HUGE_VAL, false, false, nullptr, minimum}, false, 0.0, 1.0},
      {"min_ratio", -HUGE_VAL, Domain{-HUGE_VAL, HUGE_VAL, false, false, nullptr, minimum}, false, 0.0, 1.2},
      {"min_adx28", -HUGE_VAL, Domain{-HUGE_VAL, HUGE_VAL, false, false, nullptr, minimum}, false, 0.0, 40.0},
      {"min_adx14", -HUGE_VAL, Domain{-HUGE_VAL, HUGE_VAL, false, false, nullptr, minimum}, false, 0.0, 40.0},
      {"min_adx7", -HUGE_VAL, Domain{-HUGE_VAL, HUGE_VAL, false, false, nullptr, minimum}, false, 0.0, 40.0},
      {"target_pct", NAN, target, false, 0.1, 2.0},
      {"stop_pct", NAN, stop, false, -2.0, -0.1},
  });
  return list;
}

const std::vector<std::string>& TradeFilterStrategy::metric_names() const {
  if (folds_.n_folds() > 0) return fold_names_;
  static const std::vector<std::string> names{"kept", "wins", "losses"};
  return names;
}

TrialScore TradeFilterStrategy::evaluate(const double* slots, double* metrics) const {
  const Params p = params_from_slots(slots);
  const TradeFilterData& d = *data_;
  const int K = static_cast<int>(folds_.n_folds());
  FoldTally folds[kMaxFolds];
  Tally t;
  for (std::size_t i = 0; i < d.n_trades(); ++i) {
    if (!keeps(p, d.volatility[i], d.ratio[i], d.adx28[i], d.adx14[i], d.adx7[i])) continue;
    const std::uint64_t begin = d.path_offset[i];
    const int exit = first_exit_linear(d.path.data() + begin, d.path_offset[i + 1] - begin, p.target, p.stop);
    const std::int64_t q = outcome_q(exit, p.target, p.stop, d.logged_q[i]);
    tally_add(t, q);
    if (K > 0 && trade_fold_[i] >= 0) fold_tally_add(folds[trade_fold_[i]], q);
  }
  metrics[0] = static_cast<double>(t.kept);
  metrics[1] = static_cast<double>(t.wins);
  metrics[2] = static_cast<double>(t.losses);
  TrialScore r{from_fixed_point(t.sum_q), violation_of(t.kept, min_trades_)};
  if (K > 0) r.score = finish_fold_tallies(folds, K, fold_rule(), r.score, metrics + 3);
  return r;
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
  if (!fold_run_fold_.empty()) {
    a.n_fold_runs = fold_run_fold_.size();
    a.fold_run_start = fold_run_start_.data();
    a.fold_run_fold = fold_run_fold_.data();
  }
  return a;
}

}  // namespace tpeopt::strategies
