// `tpeopt backtest`: one parameter set of a config's strategy, its metrics and (for a
// strategy that exports trades) its trades as CSV, from the CPU reference or the GPU; over
// several symbols also each symbol's results (study/backtest.hpp).
#include <cmath>
#include <fstream>
#include <iostream>
#include <memory>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "apps/commands.hpp"
#include "common/cli_paths.hpp"
#include "apps/study_flags.hpp"
#include "common/error.hpp"
#include "study/backtest.hpp"
#include "study/study.hpp"
#include "io/candle_set.hpp"
#include "io/candles_csv.hpp"
#include "io/study_config.hpp"
#include "strategies/symbol_strategy.hpp"

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

void write_trades_csv(const std::string& path, const std::vector<std::string>& columns,
                      const std::vector<std::string>& symbols, const strategies::ExportedTrades& all) {
  std::ofstream out(path, std::ios::trunc);
  if (!out) throw make_error("--trades-out: cannot write {}", path);
  // One series: no symbol column (as the one-series data set has no symbol).
  const bool named = !symbols.empty();
  out << (named ? "symbol," : "") << fmt::format("{}", fmt::join(columns, ",")) << ",entry_time,exit_time\n";
  for (std::size_t s = 0; s < all.size(); ++s)
    for (const auto& t : all[s])
      out << (named ? symbols[s] + "," : std::string()) << fmt::format("{}", fmt::join(t.fields, ",")) << ','
          << io::format_time_ms(t.entry_time_ms) << ',' << io::format_time_ms(t.exit_time_ms) << '\n';
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
    const auto* sym = dynamic_cast<const strategies::SymbolStrategy*>(strategy.get());
    if (!symbols_out.empty() && !sym)
      throw make_error("--symbols-out: this data set has one series (no per-symbol results to write)");
    const std::string which = engine::resolve_executor(executor);
    const engine::Backtest b = engine::backtest_params(*strategy, params, which, !trades_out.empty(), block_size);
    const std::size_t M = strategy->metric_names().size(), S = sym ? sym->n_symbols() : 0;

    std::cout << fmt::format("strategy {} | executor {} | objective {} ({})", strategy->name(), which,
                             config.objective.name,
                             config.objective.direction == tpe::Direction::Minimize ? "minimize" : "maximize");
    if (sym)
      std::cout << fmt::format(" | {} symbols, aggregate {}", S, strategies::aggregate_name(sym->aggregate_spec().aggregate));
    std::cout << "\n";
    const auto& names = strategy->param_names();
    std::cout << "params:";
    for (std::size_t s = 0; s < names.size(); ++s) std::cout << fmt::format(" {}={}", names[s], params[s]);
    std::cout << fmt::format("\nscore: {}\nviolation: {}{}\n", b.score.score, b.score.violation,
                             b.score.violation > 0 ? " (infeasible)" : "");
    for (std::size_t m = 0; m < b.metrics.size(); ++m)
      std::cout << fmt::format("{}: {}\n", strategy->metric_names()[m], b.metrics[m]);
    if (sym) {
      const auto& r = *b.symbols;
      auto row = [&](std::size_t k, const char* sep) {
        return fmt::format("{}", fmt::join(r.metrics.begin() + static_cast<std::ptrdiff_t>(k * M),
                                           r.metrics.begin() + static_cast<std::ptrdiff_t>((k + 1) * M), sep));
      };
      constexpr std::size_t kShown = 30;
      std::cout << fmt::format("per symbol{}: symbol, objective, equity, {}\n",
                               S > kShown ? fmt::format(" (first {} of {}; --symbols-out for all)", kShown, S) : "",
                               fmt::join(strategy->metric_names(), ", "));
      for (std::size_t k = 0; k < std::min(S, kShown); ++k)
        std::cout << fmt::format("  {} {} {} {}\n", sym->symbol_names()[k], r.objective[k], r.equity[k], row(k, " "));
      if (!symbols_out.empty()) {
        std::ofstream out(symbols_out, std::ios::trunc);
        if (!out) throw make_error("--symbols-out: cannot write {}", symbols_out);
        out << "symbol,objective,equity," << fmt::format("{}", fmt::join(strategy->metric_names(), ",")) << "\n";
        for (std::size_t k = 0; k < S; ++k)
          out << fmt::format("{},{},{},{}\n", sym->symbol_names()[k], r.objective[k], r.equity[k], row(k, ","));
        out.flush();
        if (!out) throw make_error("--symbols-out: write error on {}", symbols_out);
        std::cout << fmt::format("symbols: {} written to {}\n", S, symbols_out);
      }
    }
    if (!trades_out.empty()) {
      write_trades_csv(trades_out, config.entry->trades.columns, sym ? sym->symbol_names() : std::vector<std::string>{},
                       *b.trades);
      std::size_t total = 0;
      for (const auto& t : *b.trades) total += t.size();
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
                  "Write the trades as CSV: the strategy's columns, then entry_time and exit_time (UTC)")
      ->check(cli::output_file());
  sub->add_option("--symbols-out", cmd->symbols_out,
                  "Several symbols: write each symbol's results as CSV: symbol,objective,equity,<metrics>")
      ->check(cli::output_file());
  sub->add_option("--executor", cmd->executor, "cpu (the reference, default), cuda or auto")
      ->check(CLI::IsMember({"cpu", "cuda", "auto"}));
  sub->add_option("--block-size", cmd->block_size, "CUDA threads per block (results do not depend on it)")
      ->check(CLI::Range(32, 1024));
  sub->callback([cmd, &exit_code] { exit_code = (*cmd)(); });
}

}  // namespace tpeopt::app
