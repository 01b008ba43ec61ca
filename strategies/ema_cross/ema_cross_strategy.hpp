#pragma once
#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/candles.hpp"
#include "strategies/ema_cross/ema_cross.hpp"
#include "strategies/strategy.hpp"

namespace tpeopt::strategies {

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
  int min_trades = 10;  ///< trials with fewer trades are infeasible: violation = min_trades - trades
  /// Memory for EMA series kept across trials (n doubles per span); spans beyond it are
  /// computed per trial. Results do not depend on it.
  std::size_t ema_cache_bytes = std::size_t{1} << 30;
};

/// The `ema_cross` strategy bound to one candle series (docs/strategies.md, "ema_cross").
/// The EMA of a span depends only on the span and the data: the first trial that needs it
/// computes it (ema_cross::ema_series, the same function as the GPU's) and later trials,
/// on any thread, read the cached series, up to options.ema_cache_bytes.
class EmaCrossStrategy final : public Strategy {
 public:
  EmaCrossStrategy(Candles candles, EmaCrossOptions options);

  std::string name() const override { return "ema_cross"; }
  const std::vector<std::string>& param_names() const override;
  std::vector<double> param_defaults() const override;
  const std::vector<std::string>& metric_names() const override;
  void check_param_range(std::size_t slot, double low, double high) const override;
  TrialScore evaluate(const double* params, double* metrics) const override;
  std::vector<std::string> data_checksums() const override;

  /// The trades of one trial in order (CPU reference), and its summary.
  std::vector<ema_cross::Trade> trades(const double* params, ema_cross::Summary* summary = nullptr) const;

  const Candles& candles() const { return candles_; }
  const EmaCrossOptions& options() const { return options_; }
  int n_bars() const { return static_cast<int>(candles_.size()); }
  /// Bars over host memory.
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

  template <typename OnTrade>
  void walk(const double* params, OnTrade&& on_trade) const;

  Candles candles_;
  EmaCrossOptions options_;
  std::string checksum_;
  /// min(open, low) and max(open, high) per bar, and their min and max per 16-bar block
  /// (the CPU's stop search).
  std::vector<double> bar_lo_, bar_hi_, stop_lo_, stop_hi_;
  mutable std::mutex cache_mutex_;
  mutable std::unordered_map<int, std::unique_ptr<CachedEma>> cache_;
  mutable std::size_t cache_bytes_ = 0;
};

/// "signal", "stop_loss", "take_profit", "end".
const char* ema_cross_exit_reason_name(int reason);

}  // namespace tpeopt::strategies
