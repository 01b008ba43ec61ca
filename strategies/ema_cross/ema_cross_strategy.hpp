#pragma once
#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/candles.hpp"
#include "strategies/bar_block.hpp"
#include "strategies/ema_cross/ema_cross.hpp"
#include "strategies/strategy.hpp"

namespace tpeopt::strategies {

/// The parameter slots, in the order of ema_cross::Slot (docs/strategies.md, "ema_cross").
const ParamList& ema_cross_params();

/// Parses total_return | compound_return | sharpe | profit_factor; throws Error naming objective.name.
ema_cross::Objective parse_ema_cross_objective(const std::string& name);

/// An EMA series and the minimum and maximum of each of its 16-bar blocks (the CPU's
/// finders decide whole blocks from them), as stored in the cache or owned by a thread.
struct EmaSeries {
  std::vector<double> values, block_min, block_max;
};
struct EmaSeriesView {
  const double* values = nullptr;
  const double* block_min = nullptr;
  const double* block_max = nullptr;
};

struct EmaCrossOptions {
  ema_cross::Objective objective = ema_cross::Objective::TotalReturn;
  int min_trades = 10;   ///< trials with fewer trades are infeasible: violation = min_trades - trades
  bool maximize = true;  ///< the study's direction (objective.across_folds "min": the worst fold)
  /// Memory for EMA series kept across trials (n doubles per span); spans beyond it are
  /// computed per trial. Results do not depend on it.
  std::size_t ema_cache_bytes = std::size_t{1} << 30;
};

/// The `ema_cross` strategy bound to one candle series (docs/strategies.md, "ema_cross").
/// The EMA of a span depends only on the span and the data: the first trial that needs it
/// computes it (ema_cross::ema_series, the same function as the GPU's) and later trials,
/// on any thread, read the cached series, up to options.ema_cache_bytes. The data and the
/// cache are shared with the strategy's subsets (blocks of the same series).
class EmaCrossStrategy final : public Strategy {
 public:
  EmaCrossStrategy(Candles candles, EmaCrossOptions options);

  std::string name() const override { return "ema_cross"; }
  const ParamList& params() const override { return ema_cross_params(); }
  const std::vector<std::string>& metric_names() const override;
  TrialScore evaluate(const double* params, double* metrics) const override;
  std::vector<std::string> data_checksums() const override;

  /// The trades of one trial in order (CPU reference; block after block), and their summary.
  std::vector<ema_cross::Trade> trades(const double* params, ema_cross::Summary* summary = nullptr) const;

  // ---- data subsets (docs/strategies.md, "Data subsets"): atoms are bars ------------------------------------
  std::size_t n_atoms() const override { return data_->candles.size(); }
  std::int64_t atom_time_s(std::size_t k) const override;
  /// The same series backtested as one block per range (strategies/bar_block.hpp): the score
  /// is the sum of the blocks' objective values, the metrics those of all their trades.
  std::unique_ptr<Strategy> subset(const std::vector<AtomRange>& ranges, std::int64_t min_trades) const override;
  std::int64_t min_trades() const override { return options_.min_trades; }
  /// Strategy::with_folds: each trade also joins the fold of its entry bar (atoms are bars).
  /// The CUDA twin scores the folds in its trial kernel with the same TPEOPT_HD functions.
  std::unique_ptr<Strategy> with_folds(const FoldSpec& folds, const AcrossFolds& rule) const override;
  const FoldSpec& folds() const override { return folds_; }
  /// The folds in bars (strategies/folds.hpp's FoldBars), for the CUDA twin.
  const std::vector<int>& fold_edges() const { return fold_edge_; }
  const std::vector<int>& fold_embargo_ends() const { return fold_embargo_end_; }
  FoldRule fold_rule() const { return strategies::fold_rule(rule_, options_.maximize); }

  /// The blocks walked (empty: the whole series, unblocked).
  const std::vector<BarBlock>& blocks() const { return blocks_; }

  const Candles& candles() const { return data_->candles; }
  const EmaCrossOptions& options() const { return options_; }
  int n_bars() const { return static_cast<int>(data_->candles.size()); }
  /// Bars over host memory (the whole series).
  ema_cross::Bars host_bars() const;
  /// The EMA of `span` over close (n values), computed with ema_cross::ema_series.
  void ema(int span, double* out) const;

 private:
  struct CachedEma {
    std::mutex mutex;                ///< held while the series is computed
    std::atomic<bool> ready{false};  ///< series complete
    EmaSeries series;
  };
  /// The cache entry of `span` (created on first use), or null when the cache is full.
  CachedEma* cache_entry(int span) const;
  /// The EMA series of a trial's two spans: from the cache, computed into it on first use
  /// (two missing spans in one interleaved pass), or into `own_fast` / `own_slow` when
  /// the cache is full.
  void trial_emas(int fast, int slow, EmaSeriesView* f, EmaSeriesView* s, EmaSeries& own_fast,
                  EmaSeries& own_slow) const;

  /// Calls on_block_end(k) after block k's trades (k = 0 only when unblocked).
  template <typename OnTrade, typename OnBlockEnd>
  void walk(const double* params, OnTrade&& on_trade, OnBlockEnd&& on_block_end) const;

  /// The series, its trial-independent bounds and the EMA cache.
  struct Data {
    Candles candles;
    std::string checksum;
    /// min(open, low) and max(open, high) per bar, and their min and max per 16-bar block
    /// (the CPU's stop search).
    std::vector<double> bar_lo, bar_hi, stop_lo, stop_hi;
    std::size_t cache_limit = 0;
    std::mutex cache_mutex;
    std::unordered_map<int, std::unique_ptr<CachedEma>> cache;
    std::size_t cache_bytes = 0;
  };
  EmaCrossStrategy(std::shared_ptr<Data> data, EmaCrossOptions options, std::vector<BarBlock> blocks)
      : data_(std::move(data)), options_(options), blocks_(std::move(blocks)) {}

  std::shared_ptr<Data> data_;  ///< shared with the subsets; the cache is thread-safe
  EmaCrossOptions options_;
  std::vector<BarBlock> blocks_;
  FoldSpec folds_;  ///< none: no folds
  AcrossFolds rule_;
  std::vector<int> fold_edge_, fold_embargo_end_;
  std::vector<std::string> fold_names_;
};

/// "signal", "stop_loss", "take_profit", "end".
const char* ema_cross_exit_reason_name(int reason);

}  // namespace tpeopt::strategies
