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
#include "apps/study_flags.hpp"
#include "common/cli_paths.hpp"
#include "common/error.hpp"
#include "io/candle_set.hpp"
#include "io/candles_csv.hpp"
#include "config/study_config.hpp"
#include "storage/run_directory.hpp"
#include "strategies/symbol_strategy.hpp"
#include "study/backtest.hpp"
#include "study/study.hpp"

namespace tpeopt::app {

namespace {

/// A parameter set to backtest and where it came from.
struct ParamsSource {
  io::Json params;    ///< {"name": value, ...}
  std::string where;  ///< for messages: "P.json", "runs/x/top.json, rank 3"
  io::Json entry;     ///< the top.json entry it came from (rank, trial, score, ...), or null
};

/// P.json: a flat object {"name": value}, or an entry of top.json (an object whose "params"
/// is one), so that a trial of a run can be backtested as it was written.
ParamsSource params_from_file(const std::string& path) {
  const io::Json json = io::parse_json_text(io::read_file_bytes(path), path);
  if (json.is_array())
    throw make_error("{}: a list (all of top.json?): give one entry of it, or pick one with --top-rank N --run DIR",
                     path);
  if (!json.is_object())
    throw make_error("{}: expected a flat object {{\"name\": value, ...}} or an entry of top.json", path);
  if (json.contains("params")) {
    if (!json.at("params").is_object())
      throw make_error("{}: params: expected an object {{\"name\": value, ...}}, got {}", path,
                       io::json_type_name(json.at("params")));
    return {json.at("params"), path, json};
  }
  return {json, path, nullptr};
}

/// The entry of rank `rank` (1 = best) of DIR/top.json.
ParamsSource params_from_run(const std::filesystem::path& dir, std::size_t rank) {
  const std::filesystem::path path = dir / "top.json";
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    if (std::filesystem::exists(dir / "walk_forward.json", ec) || std::filesystem::exists(dir / "fold-1", ec))
      throw make_error("{}: a walk-forward study has a top.json per fold: --run {}/fold-N", dir.string(), dir.string());
    throw make_error("{}: no top.json (is {} a run directory, and did the run get past its first batch?)",
                     path.string(), dir.string());
  }
  const io::Json top = io::parse_json_text(io::read_file_bytes(path), path.string());
  if (!top.is_array()) throw make_error("{}: expected a list of trials", path.string());
  if (rank < 1 || rank > top.size())
    throw make_error("--top-rank {}: {} holds {} trial{} (ranks 1 to {})", rank, path.string(), top.size(),
                     top.size() == 1 ? "" : "s", top.size());
  const io::Json& entry = top[rank - 1];
  if (!entry.is_object() || !entry.contains("params") || !entry.at("params").is_object())
    throw make_error("{}: entry {} has no \"params\" object", path.string(), rank);
  return {entry.at("params"), fmt::format("{}, rank {}", path.string(), rank), entry};
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
  std::string config_path, params_path, run_dir, trades_out, symbols_out, executor = "cpu";
  std::size_t top_rank = 0;
  int block_size = 128;

  int operator()() const {
    if (config_path.empty() == run_dir.empty())
      throw make_error(
          "backtest: give the config with --config FILE, or a run directory with --run DIR (its "
          "config.json)");
    if (params_path.empty() == (top_rank == 0))
      throw make_error(
          "backtest: give the parameters with --params P.json, or a trial of a run with --top-rank N "
          "--run DIR");
    if (top_rank > 0 && run_dir.empty())
      throw make_error("--top-rank: needs --run DIR (the run whose top.json to read)");
    const io::StudyConfig config =
        run_dir.empty() ? io::load_study_config(config_path) : engine::load_run_config(run_dir);
    const ParamsSource source = top_rank > 0 ? params_from_run(run_dir, top_rank) : params_from_file(params_path);
    auto strategy = load_strategy(config);
    const std::vector<double> params = engine::slots_from_params(source.params, *strategy, config, source.where);
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
      std::cout << fmt::format(" | {} symbols, aggregate {}", S,
                               strategies::aggregate_name(sym->aggregate_spec().aggregate));
    std::cout << "\n";
    const auto& names = strategy->param_names();
    std::cout << "params:";
    for (std::size_t s = 0; s < names.size(); ++s) std::cout << fmt::format(" {}={}", names[s], params[s]);
    std::cout << fmt::format("\nscore: {}\nviolation: {}{}\n", b.score.score, b.score.violation,
                             b.score.violation > 0 ? " (infeasible)" : "");
    if (source.entry.is_object()) {
      // What the run recorded for this trial, to compare (a run with a hold-out or a
      // walk-forward fold scored it on its in-sample part; a backtest reads all the data).
      const io::Json& e = source.entry;
      std::cout << fmt::format("recorded: {}: trial {}, score {}{}\n", source.where,
                               e.contains("trial") ? e.at("trial").dump() : std::string("?"),
                               e.contains("score") ? e.at("score").dump() : std::string("?"),
                               config.has_parts() ? " (in sample; this backtest reads all the data)" : "");
    }
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
  auto* config =
      sub->add_option("-c,--config", cmd->config_path, "Study config (JSON): strategy, data, objective, fixed params")
          ->check(CLI::ExistingFile);
  auto* run = sub->add_option("--run", cmd->run_dir,
                              "A run directory: its config.json instead of --config (and its top.json for --top-rank)")
                  ->check(CLI::ExistingDirectory);
  config->excludes(run);
  auto* params = sub->add_option("-p,--params", cmd->params_path,
                                 "JSON: a flat object {\"name\": value}, or an entry of top.json; names it leaves out "
                                 "take the config's fixed value or the strategy's default")
                     ->check(CLI::ExistingFile);
  auto* rank = sub->add_option("--top-rank", cmd->top_rank, "The trial of rank N (1 = best) of --run DIR's top.json")
                   ->check(CLI::PositiveNumber)
                   ->needs(run);
  params->excludes(rank);
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
