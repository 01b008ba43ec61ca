#pragma once
// The CUDA twin of strategies::EmaCrossStrategy (host-visible header, no device code), and
// the trade lists of a population computed on the GPU (for the [gpu] parity tests, the
// peers benchmark and `tpeopt backtest --executor cuda`).
#include <cstddef>
#include <memory>
#include <vector>

#include "strategies/device/device_strategy.hpp"
#include "strategies/ema_cross/ema_cross_strategy.hpp"

namespace tpeopt::gpu {

/// How the ema_cross kernels run. Results do not depend on any of these (same bits).
struct EmaCrossDeviceOptions {
  /// true: one warp per trial, 32 bars tested at once with a ballot (several 32-bar steps
  /// loaded ahead); false: one thread per trial walking bar by bar (kept for parity tests).
  bool warp_per_trial = true;
  /// With warp_per_trial: 32-bar steps whose operands are loaded at once before they are
  /// tested (4, 8 or 16; others mean 4): more loads in flight, more bars read past a hit.
  /// 4 is the fastest measured (H200, bench_ema_cross, warm: 10,000 sets x 200,000 bars
  /// 23.5 ms at 4, 30.5 at 8, 44.8 at 16; one set x 10,000,000 bars 185 / 202 / 233 ms;
  /// docs/benchmarks.md, "Peers").
  int steps = 4;
  /// Where the EMA series of spans that are not cached yet are computed: each is one
  /// sequential chain of n steps (ema_cross::ema_series, the same function on both sides).
  /// Auto: on the host when a part needs at most as many new spans as the host has
  /// threads (a CPU core runs one chain several times faster than a GPU thread), else on
  /// the device, one warp lane per span.
  enum class EmaOn { Auto, Device, Host };
  EmaOn ema_on = EmaOn::Auto;
  /// Segments per walk (strategies/ema_cross/ema_cross_segments.hpp; warp walks over the whole
  /// series, or over a strategy's one block; more blocks are walked whole): 0 = auto (more
  /// segments the fewer the trials: ema_cross_device.cu, segments_for), 1 = none, G > 1 = G.
  /// make_ema_cross_twin (the registry's twin, which `tpeopt run` uses) reads
  /// TPEOPT_EMA_CROSS_SEGMENTS=G or G,ROOM to time a forced cut.
  int segments = 0;
  /// Trades recorded per segment (0 = from the segment's length within a memory cap); a
  /// segment with more stops there and the stitch walks the rest (same results; tests force
  /// small values).
  int segment_room = 0;
  /// Cap on cached EMA series (n doubles each); 0 = from free device memory. Small values
  /// force batches to be split into parts (for tests); at least 2.
  std::size_t max_series = 0;
};

std::unique_ptr<DeviceStrategy> make_ema_cross_device(const strategies::EmaCrossStrategy& strategy, cudaStream_t stream,
                                                      const EmaCrossDeviceOptions& options = {});

/// The registry's device factory (ema_cross_register.cpp).
std::unique_ptr<DeviceStrategy> make_ema_cross_twin(const strategies::Strategy& strategy, cudaStream_t stream);

struct GpuEmaCrossTrial {
  double score = 0.0;
  double violation = 0.0;
  std::vector<double> metrics;                       ///< metric_names() order
  std::vector<strategies::ema_cross::Trade> trades;  ///< in trade order
};

/// Evaluates n trials (params: n x kNumSlots, row-major, the strategy's slot order) on
/// device 0 and returns each one's score, metrics and trade list: a first pass counts
/// trades, a second records them. Throws tpeopt::Error on CUDA failures (and, in a build
/// without CUDA, says so).
std::vector<GpuEmaCrossTrial> gpu_ema_cross_trades(const strategies::EmaCrossStrategy& strategy, const double* params,
                                                   std::size_t n, const EmaCrossDeviceOptions& options = {},
                                                   int block_size = 128);

}  // namespace tpeopt::gpu
