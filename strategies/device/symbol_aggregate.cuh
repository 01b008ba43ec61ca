#pragma once
// The aggregation of per-symbol results into a trial's score, violation and metrics on the
// device: one thread per trial calls strategies/symbol_aggregate.hpp's aggregate_symbols,
// the function the CPU reference calls, over the symbols in their fixed order (docs/design.md,
// "Parity: CPU == CUDA": no atomics, no reduction whose order depends on the launch). Included by the
// .cu files of the symbol strategies (each gets its own copy of the kernel).
#include <cuda_runtime_api.h>

#include "strategies/device/cuda_check.cuh"
#include "strategies/symbol_aggregate.hpp"

namespace tpeopt::gpu {
namespace {

/// Per-symbol rows of `n_trials` trials: objective of (trial i, symbol s) at
/// objective[i * trial_stride + s * symbol_stride]; equity likewise; metric k at
/// metrics[i * metrics_trial_stride + s * metrics_symbol_stride + k].
struct AggregateLaunch {
  const double* objective;
  const double* equity;
  const double* metrics;
  long long trial_stride, symbol_stride, metrics_trial_stride, metrics_symbol_stride;
  int n_trials, n_symbols;
  strategies::symbols::AggregateSpec spec;
  double* scores;       ///< n_trials
  double* violations;   ///< n_trials
  double* out_metrics;  ///< n_trials x (spec.n_metrics + 4 n_folds)
  // Folds (strategies/folds.hpp): each symbol's row holds spec.n_metrics base columns, then
  // n_folds folds' columns; the trial's are symbols::aggregate_symbols_folded's.
  int n_folds = 0;
  strategies::FoldRule rule{};
};

__global__ void symbol_aggregate_kernel(AggregateLaunch L) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= L.n_trials) return;
  const strategies::symbols::SymbolRows rows{L.objective + i * L.trial_stride,
                                             L.equity + i * L.trial_stride,
                                             L.metrics + i * L.metrics_trial_stride,
                                             L.symbol_stride,
                                             L.symbol_stride,
                                             L.metrics_symbol_stride};
  double violation = 0.0;
  if (L.n_folds > 0) {  // the fold columns (up to 4 x 64) go straight to the trial's metrics
    const int width = L.spec.n_metrics + strategies::kFoldColumns * L.n_folds;
    L.scores[i] =
        strategies::symbols::aggregate_symbols_folded(rows, L.n_symbols, L.spec, L.n_folds, L.rule,
                                                      L.out_metrics + static_cast<long long>(i) * width, &violation);
    L.violations[i] = violation;
    return;
  }
  double m[strategies::symbols::kMaxMetrics];
  const double score = strategies::symbols::aggregate_symbols(rows, L.n_symbols, L.spec, m, &violation);
  L.scores[i] = score;
  L.violations[i] = violation;
  for (int k = 0; k < L.spec.n_metrics; ++k) L.out_metrics[static_cast<long long>(i) * L.spec.n_metrics + k] = m[k];
}

inline void launch_symbol_aggregate(const AggregateLaunch& L, cudaStream_t stream) {
  if (L.n_trials <= 0) return;
  const int threads = 128;
  symbol_aggregate_kernel<<<static_cast<unsigned>((L.n_trials + threads - 1) / threads), threads, 0, stream>>>(L);
  CUDA_CHECK_LAUNCH("symbol_aggregate_kernel");
}

/// The aggregation of symbol-major rows, as the symbol strategies' twins keep them: the
/// objective and equity of (trial i, symbol s) at [s * n_trials + i], metric k at
/// [(s * n_trials + i) * W + k], W = spec.n_metrics + 4 n_folds (with folds, each row's fold
/// columns after its base metrics); results into scores, violations, out_metrics (W a trial).
inline void launch_rows_aggregate(const double* objective, const double* equity, const double* metrics, int n_trials,
                                  int n_symbols, const strategies::symbols::AggregateSpec& spec, double* scores,
                                  double* violations, double* out_metrics, cudaStream_t stream, int n_folds = 0,
                                  const strategies::FoldRule& rule = {}) {
  const long long width = spec.n_metrics + static_cast<long long>(strategies::kFoldColumns) * n_folds;
  AggregateLaunch A;
  A.objective = objective;
  A.equity = equity;
  A.metrics = metrics;
  A.trial_stride = 1;
  A.symbol_stride = n_trials;
  A.metrics_trial_stride = width;
  A.metrics_symbol_stride = static_cast<long long>(n_trials) * width;
  A.n_trials = n_trials;
  A.n_symbols = n_symbols;
  A.spec = spec;
  A.scores = scores;
  A.violations = violations;
  A.out_metrics = out_metrics;
  A.n_folds = n_folds;
  A.rule = rule;
  launch_symbol_aggregate(A, stream);
}

}  // namespace
}  // namespace tpeopt::gpu
