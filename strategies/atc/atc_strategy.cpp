#include "strategies/atc/atc_strategy.hpp"

#include <cmath>
#include <limits>

#include "common/error.hpp"
#include "strategies/candle_checksum.hpp"

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

AtcStrategy::AtcStrategy(const CandleSet& set, AtcOptions options)
    : names_(set.symbols), sources_(set.sources), options_(options) {
  if (set.n_symbols() == 0) throw make_error("data: the candle data set has no symbols");
  if (options_.min_trades < 0) throw make_error("objective.min_trades: must be >= 0");
  const std::size_t S = set.n_symbols();
  if (set.n_bars() > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw make_error("data: {} bars in all; the atc strategy takes at most {}", set.n_bars(),
                     std::numeric_limits<int>::max());
  close_ = set.bars.close;
  time_ms_ = set.bars.time_ms;
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
  atoms_ = std::make_shared<const CandleAtoms>(set);
  all_atoms_ = atoms_;
  n_data_symbols_ = S;
  for (std::size_t s = 0; s < S; ++s) data_symbol_.push_back(s);
}

std::unique_ptr<Strategy> AtcStrategy::subset(const std::vector<AtomRange>& ranges, std::int64_t min_trades) const {
  // The kept symbols' closes and returns, copied as they are (a symbol's returns start at 0).
  auto out = std::make_unique<AtcStrategy>(*this);
  for (auto* v : {&out->close_, &out->ret_}) v->clear();
  out->time_ms_.clear();
  for (auto* v : {&out->offset_, &out->length_, &out->word_offset_}) v->clear();
  out->names_.clear();
  out->sources_.clear();
  out->data_symbol_.clear();
  out->total_words_ = 0;
  out->atoms_.reset();
  for (std::size_t s = 0; s < names_.size(); ++s) {
    std::vector<BarBlock> b = atoms_->blocks(s, ranges);
    if (b.empty()) continue;
    const auto first = close_.begin() + offset_[s], last = first + length_[s];
    out->offset_.push_back(static_cast<std::int64_t>(out->close_.size()));
    out->length_.push_back(length_[s]);
    out->word_offset_.push_back(out->total_words_);
    out->total_words_ += atc::signal_words(static_cast<int>(length_[s]));
    out->close_.insert(out->close_.end(), first, last);
    out->time_ms_.insert(out->time_ms_.end(), time_ms_.begin() + offset_[s],
                         time_ms_.begin() + offset_[s] + length_[s]);
    out->ret_.insert(out->ret_.end(), ret_.begin() + offset_[s], ret_.begin() + offset_[s] + length_[s]);
    out->names_.push_back(names_[s]);
    out->sources_.push_back(sources_[s]);
    out->data_symbol_.push_back(data_symbol_[s]);
    out->blocks_.push_back(std::move(b));
  }
  if (out->names_.empty()) throw make_error("atc: an empty subset of the data has nothing to backtest");
  out->options_.min_trades = static_cast<int>(std::min<std::int64_t>(min_trades, 1 << 30));
  out->spec_ = atc_aggregate_spec(out->options_.aggregate, out->options_.maximize, out->options_.min_trades);
  return out;
}

std::unique_ptr<Strategy> AtcStrategy::with_folds(const FoldSpec& folds, const AcrossFolds& rule) const {
  auto out = std::make_unique<AtcStrategy>(*this);
  out->folds_ = FoldSpec{};  // until the names are made: the base names
  out->rule_ = rule;
  out->fold_edge_.clear();
  out->fold_embargo_end_.clear();
  if (folds.n_folds() == 0) return out;
  check_fold_spec(folds, all_atoms_->size());
  std::vector<int> edge, embargo_end;
  for (std::size_t s = 0; s < n_data_symbols_; ++s) {
    fold_bars_of(
        folds, [&](std::size_t atom) { return all_atoms_->first_bar(s, atom); }, edge, embargo_end);
    out->fold_edge_.insert(out->fold_edge_.end(), edge.begin(), edge.end());
    out->fold_embargo_end_.insert(out->fold_embargo_end_.end(), embargo_end.begin(), embargo_end.end());
  }
  out->fold_names_ = fold_metric_names(out->metric_names(), folds.n_folds());
  out->folds_ = folds;
  return out;
}

FoldBars AtcStrategy::fold_bars(std::size_t s) const {
  const std::size_t K = folds_.n_folds(), d = data_symbol_[s];
  if (K == 0) return {};
  return {static_cast<int>(K), fold_edge_.data() + d * (K + 1), fold_embargo_end_.data() + d * K};
}

const ParamList& atc_params() {
  const char* length = "must be an integer in [1, 1000]";
  const char* threshold = "must lie in [-1, 1]";
  const double top = atc::kMaxLength + 0.5;
  static const ParamList list({
      {"ema_len", 28.0, closed_open(0.5, top, length), true, 5, 200},
      {"hma_len", 28.0, closed_open(0.5, top, length), true, 5, 200},
      {"wma_len", 28.0, closed_open(0.5, top, length), true, 5, 200},
      {"dema_len", 28.0, closed_open(0.5, top, length), true, 5, 200},
      {"lsma_len", 28.0, closed_open(0.5, top, length), true, 5, 200},
      {"kama_len", 28.0, closed_open(0.5, top, length), true, 5, 200},
      {"robustness", 2.0, closed_open(-0.5, 250.5, "must be an integer in [0, 250]"), true, 1, 3},
      {"lambda", 0.02, closed(0.0, 10.0, "must lie in [0, 10] (growth per 1000 bars)"), false, 0.0, 1.0},
      {"decay", 0.03, closed_open(0.0, 100.0, "must lie in [0, 100) (percent per bar)"), false, 0.0, 0.5},
      {"long_threshold", 0.1, closed(-1.0, 1.0, threshold), false, 0.0, 0.6},
      {"short_threshold", -0.1, closed(-1.0, 1.0, threshold), false, -0.6, 0.0},
      {"cutout", 0.0, closed_open(-0.5, 1e8, "must be an integer >= 0 (and < 1e8)"), true, 0, 200},
      {"fee_bp", 0.0, closed_open(0.0, 1e4, "must be >= 0 basis points (and below 10000)"), false, 0.0, 5.0},
  });
  return list;
}

const std::vector<std::string>& AtcStrategy::metric_names() const {
  static const std::vector<std::string> names = {"trades", "total_return", "sharpe", "max_drawdown", "exposure"};
  return folds_.n_folds() > 0 ? fold_names_ : names;
}

void AtcStrategy::signal_words(const atc::Params& p, std::size_t s, std::vector<atc::SignalWord>& buf,
                               const atc::SignalWord** ptr) const {
  const int n = static_cast<int>(length_[s]);
  const std::int64_t b = offset_[s];
  const int words = atc::signal_words(n);
  buf.resize(static_cast<std::size_t>(atc::kStreams) * static_cast<std::size_t>(words));
  for (int m = 0; m < atc::kNumTypes; ++m)
    for (int k = 0; k < atc::kVariants; ++k) {
      atc::SignalWord* out = buf.data() + static_cast<std::size_t>(m * atc::kVariants + k) * words;
      atc::ma_signal_words(m, close_.data() + b, n, atc::variant_length(p.base[m], p.robustness, k), out);
      ptr[m * atc::kVariants + k] = out;
    }
}

atc::TradeState AtcStrategy::run_symbol(const double* params, std::size_t s,
                                        FoldView<atc::FoldStats> fold_stats) const {
  const atc::Params p = atc::unpack_params(params);
  thread_local std::vector<atc::SignalWord> buf;
  const atc::SignalWord* ptr[atc::kStreams];
  signal_words(p, s, buf, ptr);
  const FoldBars folds = fold_stats.fold ? fold_bars(s) : FoldBars{};
  reset_folds(fold_stats, folds.n);
  return atc::run_symbol(p, ret_.data() + offset_[s], static_cast<int>(length_[s]), ptr, atc::NoBarObserver{}, folds,
                         fold_stats);
}

void AtcStrategy::evaluate_symbols(const double* params, double* objective, double* equity, double* metrics) const {
  // With folds, each symbol's row gains its fold columns after its metrics.
  const std::size_t M = metric_names().size();
  const int K = static_cast<int>(folds_.n_folds());
  const bool portfolio = options_.aggregate == symbols::Aggregate::Portfolio;
  thread_local FoldSummaries<atc::FoldStats> storage;
  const FoldView<atc::FoldStats> fold_stats = K > 0 ? storage.view() : atc::no_fold_stats();
  if (blocks_.empty()) {
    for (std::size_t s = 0; s < names_.size(); ++s) {
      const atc::TradeState t = run_symbol(params, s, fold_stats);
      objective[s] = atc::finish_symbol(t, options_.objective, metrics + s * M, &equity[s]);
      if (K > 0)
        atc::write_fold_columns(fold_stats, K, options_.objective, portfolio, metrics + s * M + atc::kNumMetrics);
    }
    return;
  }
  const atc::Params p = atc::unpack_params(params);
  thread_local std::vector<atc::SignalWord> buf;
  const atc::SignalWord* ptr[atc::kStreams];
  for (std::size_t s = 0; s < names_.size(); ++s) {
    signal_words(p, s, buf, ptr);
    atc::TradeState all;
    const FoldBars folds = K > 0 ? fold_bars(s) : FoldBars{};
    reset_folds(fold_stats, folds.n);
    objective[s] =
        atc::run_symbol_blocks(p, ret_.data() + offset_[s], ptr, blocks_[s].data(), static_cast<int>(blocks_[s].size()),
                               options_.objective, &all, folds, fold_stats);
    atc::finish_symbol(all, options_.objective, metrics + s * M, &equity[s]);
    if (K > 0)
      atc::write_fold_columns(fold_stats, K, options_.objective, portfolio, metrics + s * M + atc::kNumMetrics);
  }
}

}  // namespace tpeopt::strategies
