// The GPU side of exhaustion_export.hpp (builds with CUDA): trade lists from the device twin
// (two passes: counts, then trades), turned into the same rows as the CPU's.
#include <algorithm>

#include "strategies/exhaustion/exhaustion_device.hpp"
#include "strategies/exhaustion/exhaustion_export.hpp"
#include "strategies/exhaustion/exhaustion_symbols_strategy.hpp"

namespace tpeopt::gpu {

namespace ex = strategies::exhaustion;

strategies::ExportedTrades exhaustion_trades_device(const strategies::Strategy& strategy, const double* params,
                                                    int block_size) {
  auto one = [&](const strategies::ExhaustionStrategy& s) {
    // Named: a range-for over `gpu_exhaustion_trades(...)[0].trades` would walk a destroyed
    // vector (C++20 keeps only a range's outermost temporary alive, not one reached through
    // operator[]); tests/strategies/test_source_rules.cpp refuses that shape.
    const std::vector<GpuTrialTrades> lists = gpu_exhaustion_trades(s, params, 1, {}, block_size);
    std::vector<strategies::ExportedTrade> out;
    for (const auto& t : lists[0].trades) out.push_back(strategies::export_exhaustion_trade(t, s.candles().time_ms));
    return out;
  };
  strategies::ExportedTrades all;
  if (const auto* s = dynamic_cast<const strategies::ExhaustionStrategy*>(&strategy)) {
    all.push_back(one(*s));
  } else {
    const auto& symbols = dynamic_cast<const strategies::ExhaustionSymbolsStrategy&>(strategy);
    for (std::size_t k = 0; k < symbols.n_symbols(); ++k) all.push_back(one(symbols.symbol(k)));
  }
  return all;
}

strategies::SymbolResults exhaustion_symbols_device(const strategies::Strategy& strategy, const double* params,
                                                    int block_size) {
  const auto& symbols = dynamic_cast<const strategies::ExhaustionSymbolsStrategy&>(strategy);
  const std::size_t S = symbols.n_symbols(), M = symbols.metric_names().size();  // with folds, their columns
  strategies::SymbolResults r;
  r.objective.resize(S);
  r.equity.resize(S);
  r.metrics.resize(S * M);
  for (std::size_t k = 0; k < S; ++k) {
    const auto t = gpu_exhaustion_trades(symbols.symbol(k), params, 1, {}, block_size);
    ex::Summary sum;
    for (const auto& trade : t[0].trades) ex::add_trade(sum, trade);
    r.objective[k] = t[0].score;
    r.equity[k] = sum.equity;
    // The trades' run is the strategy's without folds; with folds the row's columns come from a run of its own.
    const std::vector<double> m =
        symbols.folds().n_folds() > 0 ? gpu_exhaustion_metrics(symbols.symbol(k), params, block_size) : t[0].metrics;
    std::copy(m.begin(), m.end(), r.metrics.begin() + static_cast<std::ptrdiff_t>(k * M));
  }
  return r;
}

}  // namespace tpeopt::gpu
