// `tpeopt data`: `generate-candles` writes candle data sets of many symbols (docs/strategies.md,
// "Candle data sets of many symbols"); strategies add subcommands of their own through the registry
// (StrategyEntry::add_data_commands).
#include <algorithm>
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "apps/commands.hpp"
#include "common/cli_paths.hpp"
#include "common/error.hpp"
#include "io/candle_set.hpp"
#include "io/candles_generator.hpp"
#include "strategies/registry.hpp"

namespace tpeopt::app {

namespace {

struct GenerateCandlesCommand {
  io::CandleSetGeneratorOptions o;
  std::string out, layout = "dir", edge = "regimes";
  double interval_s = 86400.0;
  int operator()() {
    o.edge = io::parse_generated_edge(edge);
    o.interval_ms = static_cast<std::int64_t>(interval_s * 1000.0 + 0.5);
    const CandleSet set = io::generate_candle_set(o);
    if (layout == "long") io::write_candle_set_long_csv(set, out);
    else io::write_candle_set_dir(set, out);
    std::int64_t shortest = set.length.empty() ? 0 : set.length[0], longest = shortest;
    for (const auto n : set.length) {
      shortest = std::min(shortest, n);
      longest = std::max(longest, n);
    }
    std::cout << fmt::format("wrote {} symbols, {} bars ({} .. {} per symbol) to {} ({})\n", set.n_symbols(),
                             set.n_bars(), shortest, longest, out,
                             layout == "long" ? "one CSV with a symbol column" : "one CSV per symbol");
    return 0;
  }
};

}  // namespace

void add_data_command(CLI::App& app, int& exit_code) {
  CLI::App* data =
      app.add_subcommand("data", "Prepare or generate data: candle data sets, and each strategy's own inputs");
  data->require_subcommand(1);
  for (const auto& entry : strategies::registry().entries())
    if (entry.add_data_commands) entry.add_data_commands(*data, exit_code);

  auto gc = std::make_shared<GenerateCandlesCommand>();
  CLI::App* c =
      data->add_subcommand("generate-candles",
                           "Write a synthetic candle data set of many symbols (different lengths and start dates)");
  c->add_option("-o,--out", gc->out, "Output: a folder (layout dir) or a CSV file (layout long)")->required();
  c->add_option("--symbols", gc->o.symbols, "Number of symbols (SYM0000, SYM0001, ...)")->check(CLI::Range(1, 1000000));
  c->add_option("--bars", gc->o.bars, "Calendar length in bars, and the longest symbol")
      ->check(CLI::Range(2, 100000000));
  c->add_option("--min-bars", gc->o.min_bars, "Shortest symbol (default: every symbol has --bars bars)");
  c->add_option("--seed", gc->o.seed, "Random seed");
  c->add_option("--interval-s", gc->interval_s, "Bar interval in seconds (default 86400: daily)")
      ->check(CLI::Range(0.001, 1e9));
  c->add_option("--layout", gc->layout, "dir: one CSV per symbol (default); long: one CSV with a symbol column")
      ->check(CLI::IsMember({"dir", "long"}));
  c->add_option("--edge", gc->edge,
                "regimes: drift and volatility regimes (default); none: a driftless random walk, no edge to find; "
                "momentum: returns with lag-1 autocorrelation 0.15, an edge for a trend follower "
                "(docs/will-it-hold-up.md, \"The null check\")")
      ->check(CLI::IsMember({"regimes", "none", "momentum"}));
  c->callback([gc, &exit_code] { exit_code = (*gc)(); });
}

}  // namespace tpeopt::app
