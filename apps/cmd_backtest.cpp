// `tpeopt backtest`: one parameter set of a config's strategy, its metrics and (for
// exhaustion) its trades as CSV, from the CPU reference or the GPU; over several symbols
// (exhaustion, atc) also each symbol's results.
#include <cmath>
#include <fstream>
#include <iostream>
#include <memory>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "apps/commands.hpp"
#include "apps/output_paths.hpp"
#include "apps/study_flags.hpp"
#include "common/error.hpp"
#include "engine/study.hpp"
#include "gpu/atc_kernel.hpp"
#include "gpu/exhaustion_trades.hpp"
#include "io/candles_csv.hpp"
#include "io/study_config.hpp"
#include "strategies/atc/atc_strategy.hpp"
#include "strategies/exhaustion/exhaustion_strategy.hpp"
#include "strategies/exhaustion/exhaustion_symbols_strategy.hpp"

namespace tpeopt::app {

namespace {

/// The strategy's slot vector from P.json ({"name": number}); names P.json leaves out
/// take the config's fixed value, else the strategy's default.
std::vector<double> read_params(const std::string& path, const strategies::Strategy& strategy,
                                const io::StudyConfig& config) {
  const io::Json json = io::parse_json_text(io::read_file_bytes(path), path);
  if (!json.is_object()) throw make_error("{}: expected a flat object {{\"name\": value, ...}}", path);
  const auto& names = strategy.param_names();
  const auto defaults = strategy.param_defaults();
  std::vector<double> values(names.size(), NAN);
  for (const auto& [key, value] : json.items()) {
    const auto it = std::find(names.begin(), names.end(), key);
    if (it == names.end())
      throw make_error("{}: {}: not a parameter of strategy {} (its parameters: {})", path, key, strategy.name(),
                       fmt::join(names, ", "));
    if (!value.is_number() || !std::isfinite(value.get<double>()))
      throw make_error("{}: {}: expected a finite number, got {}", path, key, io::json_type_name(value));
    values[static_cast<std::size_t>(it - names.begin())] = value.get<double>();
  }
  std::vector<std::string> missing;
  for (std::size_t s = 0; s < names.size(); ++s) {
    if (!std::isnan(values[s])) continue;
    if (auto f = config.fixed.find(names[s]); f != config.fixed.end()) values[s] = f->second;
    else if (s < defaults.size() && !std::isnan(defaults[s])) values[s] = defaults[s];
    else missing.push_back(names[s]);
  }
  if (!missing.empty())
    throw make_error("{}: missing parameter(s) {} (not fixed by the config and without a default)", path,
                     fmt::join(missing, ", "));
  for (std::size_t s = 0; s < names.size(); ++s) {
    try {
      strategy.check_param_range(s, values[s], values[s]);
    } catch (const Error& e) {
      throw make_error("{}: {}", path, e.what());
    }
  }
  return values;
}

/// One symbol's trades ("" when the data set has one series: no symbol column).
struct SymbolTrades {
  std::string symbol;
  std::vector<strategies::exhaustion::Trade> trades;
};

void write_trades_csv(const std::string& path, const std::vector<SymbolTrades>& all) {
  std::ofstream out(path, std::ios::trunc);
  if (!out) throw make_error("--trades-out: cannot write {}", path);
  const bool named = all.size() != 1 || !all[0].symbol.empty();
  out << (named ? "symbol," : "") << "signal_bar,entry_bar,exit_bar,entry_price,exit_price,reason,return,r_multiple\n";
  for (const auto& st : all)
    for (const auto& t : st.trades)
      out << (named ? st.symbol + "," : std::string()) << fmt::format("{},{},{},{},{},{},{},{}\n", t.signal_bar, t.entry_bar, t.exit_bar, t.entry_price,
                         t.exit_price, strategies::exit_reason_name(t.reason), t.ret, t.r_multiple);
  out.flush();
  if (!out) throw make_error("--trades-out: write error on {}", path);
}

struct BacktestCommand {
  std::string config_path, params_path, trades_out, symbols_out, executor = "cpu";
  int block_size = 128;

  int operator()() const {
    const io::StudyConfig config = io::load_study_config(config_path);
    auto strategy = load_strategy(config);
    const std::vector<double> params = read_params(params_path, *strategy, config);
    const auto* ex = dynamic_cast<const strategies::ExhaustionStrategy*>(strategy.get());
    const auto* exs = dynamic_cast<const strategies::ExhaustionSymbolsStrategy*>(strategy.get());
    const auto* atc = dynamic_cast<const strategies::AtcStrategy*>(strategy.get());
    const auto* sym = dynamic_cast<const strategies::SymbolStrategy*>(strategy.get());
    if (!trades_out.empty() && !ex && !exs)
      throw make_error("--trades-out: strategy {} has no trades to write", strategy->name());
    if (!symbols_out.empty() && !sym)
      throw make_error("--symbols-out: this data set has one series (no per-symbol results to write)");
    const std::string which = engine::resolve_executor(executor);

    const std::size_t M = strategy->metric_names().size(), S = sym ? sym->n_symbols() : 0;
    double score = 0.0, violation = 0.0;
    std::vector<double> metrics(M);
    std::vector<SymbolTrades> trades;
    // Per-symbol results (several symbols): objective, final equity, metrics.
    std::vector<double> objective(S), equity(S), symbol_metrics(S * M);
    if (which == "cuda") {
      if (ex) {
        auto r = gpu::gpu_exhaustion_trades(*ex, params.data(), 1, {}, block_size);
        score = r[0].score;
        violation = r[0].violation;
        metrics = r[0].metrics;
        trades.push_back({"", std::move(r[0].trades)});
      } else if (exs) {
        for (std::size_t k = 0; k < S; ++k) {
          auto r = gpu::gpu_exhaustion_trades(exs->symbol(k), params.data(), 1, {}, block_size);
          strategies::exhaustion::Summary sum;
          for (const auto& t : r[0].trades) strategies::exhaustion::add_trade(sum, t);
          objective[k] = r[0].score;
          equity[k] = sum.equity;
          std::copy(r[0].metrics.begin(), r[0].metrics.end(), symbol_metrics.begin() + static_cast<std::ptrdiff_t>(k * M));
          trades.push_back({exs->symbol_names()[k], std::move(r[0].trades)});
        }
        const strategies::symbols::SymbolRows rows{objective.data(), equity.data(), symbol_metrics.data(), 1, 1,
                                                   static_cast<long long>(M)};
        score = strategies::symbols::aggregate_symbols(rows, static_cast<int>(S), exs->aggregate_spec(),
                                                       metrics.data(), &violation);
      } else if (atc) {
        const auto r = gpu::gpu_atc_evaluate(*atc, params.data(), 1, {}, block_size);
        score = r.scores[0];
        violation = r.violations[0];
        metrics = r.metrics;
        objective = r.objective;
        equity = r.equity;
        symbol_metrics = r.symbol_metrics;
      } else {
        throw make_error("--executor cuda: backtest runs strategy {} on the CPU only", strategy->name());
      }
    } else {
      const auto s = strategy->evaluate(params.data(), metrics.data());
      score = s.score;
      violation = s.violation;
      if (sym) sym->evaluate_symbols(params.data(), objective.data(), equity.data(), symbol_metrics.data());
      if (ex && !trades_out.empty()) trades.push_back({"", ex->trades(params.data())});
      if (exs && !trades_out.empty())
        for (std::size_t k = 0; k < S; ++k) trades.push_back({exs->symbol_names()[k], exs->symbol(k).trades(params.data())});
    }

    std::cout << fmt::format("strategy {} | executor {} | objective {} ({})", strategy->name(), which,
                             config.objective.name,
                             config.objective.direction == tpe::Direction::Minimize ? "minimize" : "maximize");
    if (sym)
      std::cout << fmt::format(" | {} symbols, aggregate {}", S, strategies::aggregate_name(sym->aggregate_spec().aggregate));
    std::cout << "\n";
    const auto& names = strategy->param_names();
    std::cout << "params:";
    for (std::size_t s = 0; s < names.size(); ++s) std::cout << fmt::format(" {}={}", names[s], params[s]);
    std::cout << fmt::format("\nscore: {}\nviolation: {}{}\n", score, violation,
                             violation > 0 ? " (infeasible)" : "");
    for (std::size_t m = 0; m < metrics.size(); ++m)
      std::cout << fmt::format("{}: {}\n", strategy->metric_names()[m], metrics[m]);
    if (sym) {
      constexpr std::size_t kShown = 30;
      std::cout << fmt::format("per symbol{}: symbol, objective, equity, {}\n",
                               S > kShown ? fmt::format(" (first {} of {}; --symbols-out for all)", kShown, S) : "",
                               fmt::join(strategy->metric_names(), ", "));
      for (std::size_t k = 0; k < std::min(S, kShown); ++k)
        std::cout << fmt::format("  {} {} {} {}\n", sym->symbol_names()[k], objective[k], equity[k],
                                 fmt::join(symbol_metrics.begin() + static_cast<std::ptrdiff_t>(k * M),
                                           symbol_metrics.begin() + static_cast<std::ptrdiff_t>((k + 1) * M), " "));
    }
    if (!symbols_out.empty()) {
      std::ofstream out(symbols_out, std::ios::trunc);
      if (!out) throw make_error("--symbols-out: cannot write {}", symbols_out);
      out << "symbol,objective,equity," << fmt::format("{}", fmt::join(strategy->metric_names(), ",")) << "\n";
      for (std::size_t k = 0; k < S; ++k)
        out << fmt::format("{},{},{},{}\n", sym->symbol_names()[k], objective[k], equity[k],
                           fmt::join(symbol_metrics.begin() + static_cast<std::ptrdiff_t>(k * M),
                                     symbol_metrics.begin() + static_cast<std::ptrdiff_t>((k + 1) * M), ","));
      out.flush();
      if (!out) throw make_error("--symbols-out: write error on {}", symbols_out);
      std::cout << fmt::format("symbols: {} written to {}\n", S, symbols_out);
    }
    if (!trades_out.empty()) {
      write_trades_csv(trades_out, trades);
      std::size_t total = 0;
      for (const auto& t : trades) total += t.trades.size();
      std::cout << fmt::format("trades: {} written to {}\n", total, trades_out);
    }
    return 0;
  }
};

}  // namespace

void add_backtest_command(CLI::App& app, int& exit_code) {
  auto cmd = std::make_shared<BacktestCommand>();
  CLI::App* sub = app.add_subcommand("backtest", "Backtest one parameter set: print its metrics, write its trades");
  sub->add_option("-c,--config", cmd->config_path, "Study config (JSON): strategy, data, objective, fixed params")
      ->required()
      ->check(CLI::ExistingFile);
  sub->add_option("-p,--params", cmd->params_path,
                  "Flat JSON object {\"name\": value}; names it leaves out take the config's fixed value or the "
                  "strategy's default")
      ->required()
      ->check(CLI::ExistingFile);
  sub->add_option("--trades-out", cmd->trades_out,
                  "Write the trades as CSV: signal_bar,entry_bar,exit_bar,entry_price,exit_price,reason,return,"
                  "r_multiple")
      ->check(output_file());
  sub->add_option("--symbols-out", cmd->symbols_out,
                  "Several symbols: write each symbol's results as CSV: symbol,objective,equity,<metrics>")
      ->check(output_file());
  sub->add_option("--executor", cmd->executor, "cpu (the reference, default), cuda or auto")
      ->check(CLI::IsMember({"cpu", "cuda", "auto"}));
  sub->add_option("--block-size", cmd->block_size, "CUDA threads per block (results do not depend on it)")
      ->check(CLI::Range(32, 1024));
  sub->callback([cmd, &exit_code] { exit_code = (*cmd)(); });
}

}  // namespace tpeopt::app
