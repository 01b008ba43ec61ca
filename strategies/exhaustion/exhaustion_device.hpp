#pragma once
// The CUDA twin of strategies::ExhaustionStrategy and ExhaustionSymbolsStrategy, and the
// trades of a population computed on the GPU (host-visible header, no device code).
#include <cstddef>
#include <memory>
#include <vector>

#include "strategies/device/device_strategy.hpp"
#include "strategies/exhaustion/exhaustion_strategy.hpp"
#include "strategies/exhaustion/exhaustion_symbols_strategy.hpp"

namespace tpeopt::gpu {

/// How the exhaustion kernels run. Results do not depend on any of these (same bits).
struct ExhaustionDeviceOptions {
  /// true: one warp per trial, 32 bars tested at once with a ballot (the fast kernel);
  /// false: one thread per trial walking bar by bar (the simple kernel).
  bool warp_per_trial = true;
  /// With warp_per_trial: skip bars that cannot signal with one-byte filter levels of
  /// vol_z, tr_z and cloc (16 bars per lane per load, a conservative test), confirm the
  /// remaining candidates with is_signal, 32 at once, and search exits 64-128 bars at a
  /// time (the fast path). false: test every bar with is_signal and exit_reason, 32 at a
  /// time (kept for parity tests and comparison).
  bool filter = true;
  /// With filter: run the build of the filtered kernel capped at 80 registers per thread
  /// (more resident warps per SM, a few spills); false: the uncapped build.
  bool cap_registers = true;
  /// Cap on cached per-parameter series (EMA of a span, z-scores of a window), each n
  /// doubles; 0 = from free device memory. Small values force batches to be split into
  /// parts (for tests); at least 3.
  std::size_t max_series = 0;
  /// Strategies over blocks of bars (docs/strategies.md, "Data subsets"): one warp per (trial, block) instead
  /// of one per trial, then each trial's trades summed in block order (same bits). Auto:
  /// when a launch has fewer than 1024 trials and more than one block (halving's late rungs,
  /// where a few long walks would leave the GPU idle). Needs warp_per_trial.
  enum class SplitBlocks { Auto, Always, Never };
  SplitBlocks split_blocks = SplitBlocks::Auto;
  /// Unblocked launches with the filter, without trade recording: each trial's walk cut
  /// into this many segments walked at once, then stitched (exhaustion.hpp, "segments"):
  /// a launch of few trials no longer ends with its heaviest walks alone on a few SMs.
  /// 0 = auto (about 40 segments per resident warp of the device, each of at least 512
  /// bars, at most 64 per trial), 1 = one walk per trial.
  int segments = 0;
  /// Trades recorded per segment (0 = from the segment's length); a segment with more stops
  /// there and the stitch walks the rest itself (same results; tests force small values).
  int segment_room = 0;
  /// Where the EMAs of new spans are computed: Auto = on the host when there are at most as
  /// many as hardware threads (a chain of n dependent steps is faster on a CPU core, and the
  /// launch's trials need not wait for the device to run it), else on the device. Same bits.
  enum class EmaOn { Auto, Device, Host };
  EmaOn ema_on = EmaOn::Auto;
};

std::unique_ptr<DeviceStrategy> make_exhaustion_device(const strategies::ExhaustionStrategy& strategy,
                                                       cudaStream_t stream,
                                                       const ExhaustionDeviceOptions& options = {});

/// The registry's device factory: the twin of either host class (exhaustion_register.cpp).
std::unique_ptr<DeviceStrategy> make_exhaustion_twin(const strategies::Strategy& strategy, cudaStream_t stream);

/// The exhaustion strategy over several symbols: each symbol through the device above, then
/// the per-symbol results aggregated on the device in symbol order. options.max_series
/// applies per symbol (0: an equal share of free memory per symbol).
std::unique_ptr<DeviceStrategy> make_exhaustion_symbols_device(const strategies::ExhaustionSymbolsStrategy& strategy,
                                                               cudaStream_t stream,
                                                               const ExhaustionDeviceOptions& options = {});

struct GpuTrialTrades {
  double score = 0.0;
  double violation = 0.0;
  std::vector<double> metrics;                        ///< metric_names() order
  std::vector<strategies::exhaustion::Trade> trades;  ///< in trade order
};

/// One trial's metrics (metric_names(): with folds, the fold columns too) on device 0.
std::vector<double> gpu_exhaustion_metrics(const strategies::ExhaustionStrategy& strategy, const double* params,
                                           int block_size = 128);

/// Evaluates n trials (params: n x kNumSlots, row-major, the strategy's slot order) on
/// device 0 and returns each one's score, metrics and trade list: a first pass counts
/// trades, a second records them. Throws tpeopt::Error on CUDA failures.
std::vector<GpuTrialTrades> gpu_exhaustion_trades(const strategies::ExhaustionStrategy& strategy, const double* params,
                                                  std::size_t n, const ExhaustionDeviceOptions& options = {},
                                                  int block_size = 128);

}  // namespace tpeopt::gpu
