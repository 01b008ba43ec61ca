#include "strategies/atc/atc_strategy.hpp"

#include <cmath>
#include <limits>

#include "common/error.hpp"
#include "strategies/exhaustion/exhaustion_symbols_strategy.hpp"

namespace tpeopt::strategies {

atc::Objective parse_atc_objective(const std::string& name) {
  if (name == "total_return") return atc::Objective::TotalReturn;
  if (name == "sharpe") return atc::Objective::Sharpe;
  throw make_error("objective.name: \"{}\" is not an objective of strategy atc (expected total_return or sharpe)",
                   name);
}

symbols::AggregateSpec atc_aggregate_spec(symbols::Aggregate aggregate, bool maximize, int min_trades) {
  symbols::AggregateSpec spec{};
  spec.aggregate = aggregate;
  spec.maximize = maximize ? 1 : 0;
  spec.n_metrics = atc::kNumMetrics;
  spec.count_metric = atc::kMTrades;
  spec.min_trades = min_trades;
  spec.kinds[atc::kMTrades] = symbols::kCount;
  spec.kinds[atc::kMTotalReturn] = symbols::kAdditive;
  spec.kinds[atc::kMSharpe] = symbols::kHigherBetter;
  spec.kinds[atc::kMMaxDrawdown] = symbols::kLowerBetter;
  spec.kinds[atc::kMExposure] = symbols::kAverage;
  return spec;
}

AtcStrategy::AtcStrategy(const CandleSet& set, AtcOptions options) : names_(set.symbols), options_(options) {
  if (set.n_symbols() == 0) throw make_error("data: the candle data set has no symbols");
  if (options_.min_trades < 0) throw make_error("objective.min_trades: must be >= 0");
  const std::size_t S = set.n_symbols();
  if (set.n_bars() > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw make_error("data: {} bars in all; the atc strategy takes at most {}", set.n_bars(),
                     std::numeric_limits<int>::max());
  close_ = set.bars.close;
  ret_.resize(close_.size());
  offset_ = set.offset;
  length_ = set.length;
  word_offset_.resize(S);
  for (std::size_t s = 0; s < S; ++s) {
    if (length_[s] < 2)
      throw make_error("data: symbol {} ({}) has {} bar(s); the atc strategy needs at least 2", set.symbols[s],
                       set.sources[s], length_[s]);
    const std::int64_t b = offset_[s];
    ret_[b] = 0.0;
    for (std::int64_t t = 1; t < length_[s]; ++t) ret_[b + t] = close_[b + t] / close_[b + t - 1] - 1.0;
    word_offset_[s] = total_words_;
    total_words_ += atc::signal_words(static_cast<int>(length_[s]));
  }
  spec_ = atc_aggregate_spec(options_.aggregate, options_.maximize, options_.min_trades);
  checksum_ = candle_set_checksum(set);
}

const std::vector<std::string>& AtcStrategy::param_names() const {
  static const std::vector<std::string> names = {"ema_len",        "hma_len",         "wma_len", "dema_len", "lsma_len",
                                                 "kama_len",       "robustness",      "lambda",  "decay",
                                                 "long_threshold", "short_threshold", "cutout",  "fee_bp"};
  return names;
}

std::vector<double> AtcStrategy::param_defaults() const {
  std::vector<double> d(atc::kNumSlots, NAN);
  for (int m = 0; m < atc::kNumTypes; ++m) d[atc::kEmaLen + m] = 28.0;
  d[atc::kRobustness] = 2.0;
  d[atc::kLambda] = 0.02;
  d[atc::kDecay] = 0.03;
  d[atc::kLongThreshold] = 0.1;
  d[atc::kShortThreshold] = -0.1;
  d[atc::kCutout] = 0.0;
  d[atc::kFeeBp] = 0.0;
  return d;
}

const std::vector<std::string>& AtcStrategy::metric_names() const {
  static const std::vector<std::string> names = {"trades", "total_return", "sharpe", "max_drawdown", "exposure"};
  return names;
}

void AtcStrategy::check_param_range(std::size_t slot, double low, double high) const {
  const std::string& name = param_names().at(slot);
  auto need = [&](bool ok, const char* rule) {
    if (!ok) throw make_error("params.{}: values in [{}, {}] are not all valid: {}", name, low, high, rule);
  };
  need(std::isfinite(low) && std::isfinite(high), "must be finite numbers");
  switch (slot) {
    case atc::kEmaLen:
    case atc::kHmaLen:
    case atc::kWmaLen:
    case atc::kDemaLen:
    case atc::kLsmaLen:
    case atc::kKamaLen:
      need(low >= 0.5 && high < atc::kMaxLength + 0.5, "must be an integer in [1, 1000]");
      break;
    case atc::kRobustness:
      need(low >= -0.5 && high < 250.5, "must be an integer in [0, 250]");
      break;
    case atc::kLambda:
      need(low >= 0.0 && high <= 10.0, "must lie in [0, 10] (growth per 1000 bars)");
      break;
    case atc::kDecay:
      need(low >= 0.0 && high < 100.0, "must lie in [0, 100) (percent per bar)");
      break;
    case atc::kLongThreshold:
    case atc::kShortThreshold:
      need(low >= -1.0 && high <= 1.0, "must lie in [-1, 1]");
      break;
    case atc::kCutout:
      need(low >= -0.5 && high < 1e8, "must be an integer >= 0 (and < 1e8)");
      break;
    case atc::kFeeBp:
      need(low >= 0.0 && high < 1e4, "must be >= 0 basis points (and below 10000)");
      break;
    default:
      break;
  }
}

atc::TradeState AtcStrategy::run_symbol(const double* params, std::size_t s) const {
  const atc::Params p = atc::unpack_params(params);
  const int n = static_cast<int>(length_[s]);
  const std::int64_t b = offset_[s];
  const int words = atc::signal_words(n);
  thread_local std::vector<atc::SignalWord> buf;
  buf.resize(static_cast<std::size_t>(atc::kStreams) * static_cast<std::size_t>(words));
  const atc::SignalWord* ptr[atc::kStreams];
  for (int m = 0; m < atc::kNumTypes; ++m)
    for (int k = 0; k < atc::kVariants; ++k) {
      atc::SignalWord* out = buf.data() + static_cast<std::size_t>(m * atc::kVariants + k) * words;
      atc::ma_signal_words(m, close_.data() + b, n, atc::variant_length(p.base[m], p.robustness, k), out);
      ptr[m * atc::kVariants + k] = out;
    }
  return atc::run_symbol(p, ret_.data() + b, n, ptr);
}

void AtcStrategy::evaluate_symbols(const double* params, double* objective, double* equity, double* metrics) const {
  for (std::size_t s = 0; s < names_.size(); ++s) {
    const atc::TradeState t = run_symbol(params, s);
    objective[s] = atc::finish_symbol(t, options_.objective, metrics + s * atc::kNumMetrics, &equity[s]);
  }
}

}  // namespace tpeopt::strategies
