#pragma once
// The host side of a long/short signal strategy (docs/writing-a-strategy.md): a `Logic`
// (strategies/signal_backtest.hpp) over a candle data set of one or more symbols, with
// everything else a candle strategy needs done once, here: per-symbol results aggregated by
// objective.aggregate, data subsets (blocks of bars per symbol, strategies/candle_atoms.hpp),
// the per-parameter series cache, and the trades. Its CUDA twin is strategies/device/signal_device.cuh.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "common/candles.hpp"
#include "common/error_base.hpp"
#include "strategies/candle_atoms.hpp"
#include "strategies/candle_checksum.hpp"
#include "strategies/series_cache.hpp"
#include "strategies/signal_backtest.hpp"
#include "strategies/symbol_strategy.hpp"

namespace tpeopt::strategies {

struct SignalOptions {
  long_short::Objective objective = long_short::Objective::TotalReturn;
  int min_trades = 10;  ///< over all symbols: fewer make the trial infeasible
  symbols::Aggregate aggregate = symbols::Aggregate::Sum;
  bool maximize = true;
  /// Memory for per-parameter series kept across trials; results do not depend on it.
  std::size_t series_cache_bytes = std::size_t{1} << 30;
};

/// Parses total_return | compound_return | sharpe | profit_factor; throws Error naming
/// objective.name and the strategy.
long_short::Objective parse_signal_objective(const std::string& name, const std::string& strategy);
/// trades, wins, total_return, compound_return, sharpe, profit_factor, max_drawdown.
const std::vector<std::string>& signal_metric_names();

template <typename Logic>
class SignalStrategy final : public SymbolStrategy {
 public:
  SignalStrategy(const CandleSet& set, SignalOptions options, std::string name, const ParamList& params)
      : name_(std::move(name)), params_(&params), options_(options), set_(std::make_shared<const CandleSet>(set)),
        cache_(std::make_shared<SeriesCache>(options.series_cache_bytes)) {
    // (No fmt here: the CUDA twin's .cu files include this header.)
    if (set.n_symbols() == 0) throw Error("data: the candle data set has no symbols");
    if (options_.min_trades < 0) throw Error("objective.min_trades: must be >= 0");
    if (set.n_bars() > static_cast<std::size_t>(std::numeric_limits<int>::max() - 2))
      throw Error("data: " + std::to_string(set.n_bars()) + " bars in all; the " + name_ + " strategy takes fewer");
    for (std::size_t s = 0; s < set.n_symbols(); ++s) {
      if (set.length[s] < 2)
        throw Error("data: symbol " + set.symbols[s] + " (" + set.sources[s] + ") has " +
                    std::to_string(set.length[s]) + " bar(s); the " + name_ + " strategy needs at least 2");
      symbols_.push_back(s);
      blocks_.push_back({BarBlock{0, static_cast<int>(set.length[s])}});
    }
    spec_ = trade_metrics_aggregate_spec(options_.aggregate, options_.maximize, options_.min_trades);
    checksum_ = candle_set_checksum(set);
    atoms_ = std::make_shared<const CandleAtoms>(set);
    all_atoms_ = atoms_;
    names_ = set.symbols;
  }

  std::string name() const override { return name_; }
  const ParamList& params() const override { return *params_; }
  const std::vector<std::string>& metric_names() const override {
    return folds_.n_folds() > 0 ? fold_names_ : signal_metric_names();
  }
  std::vector<std::string> data_checksums() const override { return {checksum_}; }

  const std::vector<std::string>& symbol_names() const override { return names_; }
  const symbols::AggregateSpec& aggregate_spec() const override { return spec_; }

  void evaluate_symbols(const double* params, double* objective, double* equity, double* metrics) const override {
    const typename Logic::Params p = Logic::unpack(params);
    const std::size_t M = metric_names().size();
    for (std::size_t k = 0; k < symbols_.size(); ++k) {
      double* row = metrics + k * M;
      if (folds_.n_folds() > 0) {
        objective[k] = run_folded(p, k, row, &equity[k]);
        continue;
      }
      long_short::Summary all;
      objective[k] = run(p, k, all, [](const long_short::Trade&) {});
      double violation = 0.0;
      long_short::finish(all, options_.objective, 0, row, &violation);
      equity[k] = all.equity;
    }
  }

  /// The trades of one trial on symbol k (its position in symbol_names()), in order.
  std::vector<long_short::Trade> trades(const double* params, std::size_t k) const {
    std::vector<long_short::Trade> out;
    long_short::Summary all;
    run(Logic::unpack(params), k, all, [&](const long_short::Trade& t) { out.push_back(t); });
    return out;
  }

  // ---- folds (Strategy::with_folds; docs/strategies.md, "Folds") ----------------------------------
  // Atoms are the symbols' distinct bar times; each symbol scores the folds in its own bars
  // (CandleAtoms::first_bar), and SymbolStrategy::evaluate aggregates its rows.
  std::unique_ptr<Strategy> with_folds(const FoldSpec& folds, const AcrossFolds& rule) const override {
    std::unique_ptr<SignalStrategy> out(new SignalStrategy(*this));
    out->folds_ = folds;
    out->rule_ = rule;
    out->fold_edge_.clear();
    out->fold_embargo_end_.clear();
    if (folds.n_folds() == 0) return out;
    check_fold_spec(folds, all_atoms_->size());
    std::vector<int> edge, embargo_end;
    for (std::size_t s = 0; s < set_->n_symbols(); ++s) {
      fold_bars_of(
          folds, [&](std::size_t atom) { return all_atoms_->first_bar(s, atom); }, edge, embargo_end);
      out->fold_edge_.insert(out->fold_edge_.end(), edge.begin(), edge.end());
      out->fold_embargo_end_.insert(out->fold_embargo_end_.end(), embargo_end.begin(), embargo_end.end());
    }
    out->fold_names_ = fold_metric_names(signal_metric_names(), folds.n_folds());
    return out;
  }
  const FoldSpec& folds() const override { return folds_; }
  /// Symbol k's folds in its own bars (strategies/folds.hpp), for the walk and the CUDA twin.
  FoldBars fold_bars(std::size_t k = 0) const {
    const std::size_t K = folds_.n_folds(), s = symbols_[k];
    if (K == 0) return {};
    return {static_cast<int>(K), fold_edge_.data() + s * (K + 1), fold_embargo_end_.data() + s * K};
  }
  /// Symbol k's fold edges (K + 1) and embargo ends (K) in its bars.
  std::vector<int> fold_edges(std::size_t k = 0) const {
    const FoldBars f = fold_bars(k);
    return std::vector<int>(f.edge, f.edge + (f.n > 0 ? f.n + 1 : 0));
  }
  std::vector<int> fold_embargo_ends(std::size_t k = 0) const {
    const FoldBars f = fold_bars(k);
    return std::vector<int>(f.embargo_end, f.embargo_end + f.n);
  }
  FoldRule fold_rule() const override { return strategies::fold_rule(rule_, options_.maximize); }

  // ---- data subsets (docs/strategies.md, "Data subsets"): atoms are the symbols' distinct bar times --------
  std::size_t n_atoms() const override { return atoms_ ? atoms_->size() : 0; }
  std::int64_t atom_time_s(std::size_t k) const override { return atoms_->time_s(k); }
  /// The symbols with bars in `ranges`, each over its blocks of those bars.
  std::unique_ptr<Strategy> subset(const std::vector<AtomRange>& ranges, std::int64_t min_trades) const override {
    std::unique_ptr<SignalStrategy> out(new SignalStrategy(*this));
    out->options_.min_trades = static_cast<int>(std::min<std::int64_t>(min_trades, 1 << 30));
    out->spec_.min_trades = out->options_.min_trades;
    out->symbols_.clear();
    out->blocks_.clear();
    out->names_.clear();
    out->atoms_.reset();
    for (std::size_t s = 0; s < set_->n_symbols(); ++s) {
      std::vector<BarBlock> b = atoms_->blocks(s, ranges);
      if (b.empty()) continue;
      out->symbols_.push_back(s);
      out->blocks_.push_back(std::move(b));
      out->names_.push_back(set_->symbols[s]);
    }
    if (out->symbols_.empty()) throw Error(name_ + ": an empty subset of the data has nothing to backtest");
    return out;
  }
  std::int64_t min_trades() const override { return options_.min_trades; }

  // ---- for the CUDA twin ----------------------------------------------------------------
  const CandleSet& data() const { return *set_; }
  /// The data set's symbol of symbol k (a subset keeps some of the data set's symbols).
  std::size_t data_symbol(std::size_t k) const { return symbols_[k]; }
  /// Symbol k's blocks of bars (one over its whole series when the strategy is not a subset).
  const std::vector<BarBlock>& blocks(std::size_t k) const { return blocks_[k]; }
  const SignalOptions& options() const { return options_; }
  /// The bars of the data set's symbol s.
  long_short::Bars bars(std::size_t s) const {
    const auto b = static_cast<std::size_t>(set_->offset[s]);
    long_short::Bars out;
    out.n = static_cast<int>(set_->length[s]);
    out.open = set_->bars.open.data() + b;
    out.high = set_->bars.high.data() + b;
    out.low = set_->bars.low.data() + b;
    out.close = set_->bars.close.data() + b;
    return out;
  }

 private:
  SignalStrategy(const SignalStrategy&) = default;

  /// The trial's series over the data set's symbol s, from the cache (`own`: the thread's
  /// buffers for series the cache does not keep).
  void trial_series(const typename Logic::Params& p, std::size_t s, const long_short::Bars& b, const double** series,
                    std::vector<double>* own) const {
    SeriesKey keys[Logic::kNumSeries];
    Logic::series_keys(p, keys);
    for (int j = 0; j < Logic::kNumSeries; ++j) {
      const SeriesKey key = keys[j];
      // (symbol, kind, value): symbols below 2^24, kinds below 2^8, values below 2^32.
      const std::uint64_t id = (static_cast<std::uint64_t>(s) << 40) | (static_cast<std::uint64_t>(key.kind) << 32) |
                               static_cast<std::uint32_t>(key.value);
      series[j] = cache_->get(
          id, static_cast<std::size_t>(b.n),
          [&](double* out) { compute_logic_series<Logic>(key.kind, key.value, b, out); }, own[j]);
    }
  }

  /// walk(bars, series, blocks) over symbol k: its bars, the trial's series from the cache, its blocks.
  template <typename Walk>
  double on_symbol(const typename Logic::Params& p, std::size_t k, Walk&& walk) const {
    const std::size_t s = symbols_[k];
    const long_short::Bars b = bars(s);
    thread_local std::vector<double> own[Logic::kNumSeries];
    const double* series[Logic::kNumSeries];
    trial_series(p, s, b, series, own);
    return walk(b, static_cast<const double* const*>(series), blocks_[k]);
  }

  /// Symbol k over its blocks.
  template <typename OnTrade>
  double run(const typename Logic::Params& p, std::size_t k, long_short::Summary& all, OnTrade&& on_trade) const {
    return on_symbol(p, k,
                     [&](const long_short::Bars& b, const double* const* series, const std::vector<BarBlock>& blocks) {
                       return run_signal_symbol<Logic>(p, b, series, blocks.data(), static_cast<int>(blocks.size()),
                                                       options_.objective, &all, on_trade);
                     });
  }

  /// Symbol k's row with its fold columns (run_signal_symbol_folds); returns its objective.
  double run_folded(const typename Logic::Params& p, std::size_t k, double* row, double* equity) const {
    return on_symbol(p, k,
                     [&](const long_short::Bars& b, const double* const* series, const std::vector<BarBlock>& blocks) {
                       return run_signal_symbol_folds<Logic>(b, blocks.data(), static_cast<int>(blocks.size()),
                                                             options_.objective,
                                                             options_.aggregate == symbols::Aggregate::Portfolio,
                                                             fold_bars(k), row, equity, PlainWalk<Logic>{p, b, series},
                                                             [](const long_short::Trade&) {});
                     });
  }

  std::string name_;
  const ParamList* params_;
  SignalOptions options_;
  symbols::AggregateSpec spec_{};
  std::shared_ptr<const CandleSet> set_;  ///< shared with the subsets
  std::vector<std::size_t> symbols_;      ///< the data set's symbols this strategy trades
  std::vector<std::vector<BarBlock>> blocks_;
  std::vector<std::string> names_;
  std::string checksum_;
  std::shared_ptr<const CandleAtoms> atoms_;      ///< of the whole data set (null in a subset)
  std::shared_ptr<const CandleAtoms> all_atoms_;  ///< of the whole data set, kept by the subsets (folds' atoms)
  FoldSpec folds_;                                ///< none: no folds
  AcrossFolds rule_;
  std::vector<int> fold_edge_,
      fold_embargo_end_;  ///< folds_ in each data set symbol's bars ([symbol][K + 1], [symbol][K])
  std::vector<std::string> fold_names_;
  std::shared_ptr<SeriesCache> cache_;  ///< shared with the subsets: series of the same bars
};

}  // namespace tpeopt::strategies
