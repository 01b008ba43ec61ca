#include "study/backtest.hpp"

#include <map>

#include "common/error.hpp"
#include "engine/param_binding.hpp"
#include "gpu/cuda_executor.hpp"
#include "strategies/symbol_strategy.hpp"

namespace tpeopt::engine {

namespace {

/// The parameters as a study with every slot fixed: a binding without axes.
ParamBinding all_fixed(const strategies::Strategy& strategy, const std::vector<double>& params) {
  std::map<std::string, double> fixed;
  for (std::size_t s = 0; s < params.size(); ++s) fixed[strategy.param_names()[s]] = params[s];
  return ParamBinding(strategy, tpe::SearchSpace{}, fixed);
}

}  // namespace

Backtest backtest_params(const strategies::Strategy& strategy, const std::vector<double>& params,
                         const std::string& executor, bool with_trades, int block_size) {
  const strategies::StrategyEntry& entry = strategies::registry().at(strategy.name());
  const auto* symbols = dynamic_cast<const strategies::SymbolStrategy*>(&strategy);
  if (with_trades && !entry.trades.available())
    throw make_error("--trades-out: strategy {} has no trades to write", strategy.name());
  const std::size_t M = strategy.metric_names().size();
  Backtest b;
  b.metrics.resize(M);
  if (executor == "cuda") {
    gpu::CudaExecutorOptions o;
    o.block_size = block_size;
    o.max_in_flight = 1;
    auto device = gpu::make_cuda_executor(strategy, all_fixed(strategy, params), o);
    BatchRequest request;
    request.n_trials = 1;
    request.values.assign(1, 0.0);  // no axes: every slot is fixed (a value to point at)
    const BatchResult r = device->evaluate(request);
    b.score = {r.scores[0], r.violations[0]};
    b.metrics = r.metrics;
    if (symbols) {
      if (!entry.symbol_results.device)
        throw make_error("--executor cuda: strategy {} gives no per-symbol results on the GPU; use --executor cpu",
                         strategy.name());
      b.symbols = entry.symbol_results.device(strategy, params.data(), block_size);
    }
    if (with_trades) {
      if (!entry.trades.device)
        throw make_error("--executor cuda: strategy {} writes no trades from the GPU; use --executor cpu",
                         strategy.name());
      b.trades = entry.trades.device(strategy, params.data(), block_size);
    }
    return b;
  }
  b.score = strategy.evaluate(params.data(), b.metrics.data());
  if (symbols) {
    const std::size_t S = symbols->n_symbols();
    strategies::SymbolResults r;
    r.objective.resize(S);
    r.equity.resize(S);
    r.metrics.resize(S * M);
    symbols->evaluate_symbols(params.data(), r.objective.data(), r.equity.data(), r.metrics.data());
    b.symbols = std::move(r);
  }
  if (with_trades) b.trades = entry.trades.cpu(strategy, params.data());
  return b;
}

}  // namespace tpeopt::engine
