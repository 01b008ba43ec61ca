#include "study/backtest.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/ranges.h>

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

std::vector<double> slots_from_params(const io::Json& params, const strategies::Strategy& strategy,
                                      const io::StudyConfig& config, const std::string& where) {
  const auto& names = strategy.param_names();
  const auto defaults = strategy.param_defaults();
  std::vector<double> values(names.size(), NAN);
  for (const auto& [key, value] : params.items()) {
    const auto it = std::find(names.begin(), names.end(), key);
    if (it == names.end())
      throw make_error("{}: {}: not a parameter of strategy {} (its parameters: {})", where, key, strategy.name(),
                       fmt::join(names, ", "));
    double v = NAN;
    if (value.is_string()) {
      const std::size_t a = config.space.find(key);
      static const std::vector<std::string> none;
      const auto& labels = a == tpe::Axis::npos ? none : config.space.axes[a].choice_labels;
      const auto label = std::find(labels.begin(), labels.end(), value.get<std::string>());
      if (label == labels.end())
        throw make_error("{}: {}: \"{}\" is not a choice of the config's params.{}", where, key,
                         value.get<std::string>(), key);
      v = static_cast<double>(label - labels.begin());
    } else if (value.is_number()) {
      v = value.get<double>();
    }
    if (!std::isfinite(v))
      throw make_error("{}: {}: expected a finite number, got {}", where, key, io::json_type_name(value));
    values[static_cast<std::size_t>(it - names.begin())] = v;
  }
  std::vector<std::string> missing;
  std::vector<bool> by_default(names.size(), false);
  for (std::size_t s = 0; s < names.size(); ++s) {
    if (!std::isnan(values[s])) continue;
    if (auto f = config.fixed.find(names[s]); f != config.fixed.end()) {
      values[s] = f->second;
    } else if (s < defaults.size() && !std::isnan(defaults[s])) {
      values[s] = defaults[s];
      by_default[s] = true;  // the strategy's own (a "no filter" default may be -infinity)
    } else {
      missing.push_back(names[s]);
    }
  }
  if (!missing.empty())
    throw make_error("{}: missing parameter(s) {} (not fixed by the config and without a default)", where,
                     fmt::join(missing, ", "));
  for (std::size_t s = 0; s < names.size(); ++s) {
    if (by_default[s]) continue;
    try {
      strategy.check_param_range(s, values[s], values[s]);
    } catch (const Error& e) {
      throw make_error("{}: {}", where, e.what());
    }
  }
  return values;
}

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
