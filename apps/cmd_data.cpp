// `tpeopt data prepare` and `tpeopt data generate`: the trade_filter inputs (seed 001);
// `tpeopt data generate-candles`: candle data sets of many symbols (issue [multi-asset]).
#include <algorithm>
#include <chrono>
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "apps/commands.hpp"
#include "apps/output_paths.hpp"
#include "common/error.hpp"
#include "io/candle_set.hpp"
#include "io/candles_generator.hpp"
#include "io/trade_filter_cache.hpp"
#include "io/trade_filter_generator.hpp"
#include "io/trade_filter_prepare.hpp"

namespace tpeopt::app {

namespace {

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::size_t b = 0;
  while (b <= s.size()) {
    std::size_t e = s.find(',', b);
    if (e == std::string::npos) e = s.size();
    if (e > b) out.push_back(s.substr(b, e - b));
    b = e + 1;
  }
  return out;
}

struct PrepareCommand {
  std::string market_dir, trades, tickers, out;
  int operator()() const {
    const auto t0 = std::chrono::steady_clock::now();
    io::TradeFilterInputs in{market_dir, trades, split_list(tickers)};
    const auto data = io::prepare_trade_filter_data(in);
    io::write_trade_filter_cache(data, out);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (data.empty_windows > 0)
      std::cerr << fmt::format("tpeopt data prepare: warning: {} of {} trades have no market row in their window "
                               "(they keep their logged outcome)\n",
                               data.empty_windows, data.n_trades());
    std::cout << fmt::format("prepared {} trades ({} dropped: other tickers), {} market rows of {} tickers, {} path "
                             "points, {} sources in {:.2f} s -> {}\n",
                             data.n_trades(), data.dropped_trades, data.prices.size(), data.tickers.size(),
                             data.path.size(), data.sources.size(), s, out);
    return 0;
  }
};

struct GenerateCommand {
  io::TradeFilterGeneratorOptions o;
  std::string tickers = "SOXL,IONQ,MARA", extra = "TSLA,NVDA";
  int operator()() {
    o.tickers = split_list(tickers);
    o.extra_tickers = split_list(extra);
    const auto g = io::generate_trade_filter_data(o);
    std::cout << fmt::format("wrote {} market rows to {} and {} trades to {}\n", g.market_rows, g.market_dir.string(),
                             g.trade_rows, g.trades.string());
    return 0;
  }
};

struct GenerateCandlesCommand {
  io::CandleSetGeneratorOptions o;
  std::string out, layout = "dir";
  double interval_s = 86400.0;
  int operator()() {
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
  CLI::App* data = app.add_subcommand("data", "Prepare or generate data: trade_filter inputs, candle data sets");
  data->require_subcommand(1);

  auto prep = std::make_shared<PrepareCommand>();
  CLI::App* p = data->add_subcommand("prepare", "Turn market CSVs and a trade log into one binary cache");
  p->add_option("--market-dir", prep->market_dir, "Folder of Raw_Market_data_MM-DD-YYYY.csv files")
      ->required()
      ->check(CLI::ExistingDirectory);
  p->add_option("--trades", prep->trades, "Trade log CSV")->required()->check(CLI::ExistingFile);
  p->add_option("--tickers", prep->tickers, "Tickers to keep, comma-separated (e.g. SOXL,IONQ,MARA)")->required();
  p->add_option("-o,--out", prep->out, "Cache file to write (atomically)")->required()->check(output_file());
  p->callback([prep, &exit_code] { exit_code = (*prep)(); });

  auto gen = std::make_shared<GenerateCommand>();
  CLI::App* g = data->add_subcommand("generate", "Write realistic synthetic market data and a trade log");
  g->add_option("-o,--out", gen->o.out, "Output folder (market/ and trades.csv)")->required()->check(output_folder());
  g->add_option("--days", gen->o.days, "Trading days (weekdays)")->check(CLI::Range(1, 400));
  g->add_option("--tickers", gen->tickers, "Traded tickers, comma-separated");
  g->add_option("--extra-tickers", gen->extra, "Market-only tickers, comma-separated (may be empty)");
  g->add_option("--trades", gen->o.trades, "Trades in the log")->check(CLI::Range(0, 10000000));
  g->add_option("--seed", gen->o.seed, "Random seed");
  g->add_option("--first-day", gen->o.first_day, "First day, YYYY-MM-DD");
  g->callback([gen, &exit_code] { exit_code = (*gen)(); });

  auto gc = std::make_shared<GenerateCandlesCommand>();
  CLI::App* c = data->add_subcommand(
      "generate-candles", "Write a synthetic candle data set of many symbols (different lengths and start dates)");
  c->add_option("-o,--out", gc->out, "Output: a folder (layout dir) or a CSV file (layout long)")->required();
  c->add_option("--symbols", gc->o.symbols, "Number of symbols (SYM0000, SYM0001, ...)")->check(CLI::Range(1, 1000000));
  c->add_option("--bars", gc->o.bars, "Calendar length in bars, and the longest symbol")->check(CLI::Range(2, 100000000));
  c->add_option("--min-bars", gc->o.min_bars, "Shortest symbol (default: every symbol has --bars bars)");
  c->add_option("--seed", gc->o.seed, "Random seed");
  c->add_option("--interval-s", gc->interval_s, "Bar interval in seconds (default 86400: daily)")
      ->check(CLI::Range(0.001, 1e9));
  c->add_option("--layout", gc->layout, "dir: one CSV per symbol (default); long: one CSV with a symbol column")
      ->check(CLI::IsMember({"dir", "long"}));
  c->callback([gc, &exit_code] { exit_code = (*gc)(); });
}

}  // namespace tpeopt::app
