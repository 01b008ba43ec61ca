// trade_filter's subcommands of `tpeopt data` (the registry's add_data_commands): `prepare`
// turns market CSVs and a trade log into one binary cache, `generate` writes realistic
// synthetic inputs in the same formats (io/trade_log_csv.hpp, io/market_data_csv.hpp).
#include <chrono>
#include <iostream>
#include <memory>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "common/cli_paths.hpp"
#include "strategies/trade_filter/trade_filter_cache.hpp"
#include "strategies/trade_filter/trade_filter_generator.hpp"
#include "strategies/trade_filter/trade_filter_prepare.hpp"

namespace tpeopt::strategies {

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
      std::cerr << fmt::format(
          "tpeopt data prepare: warning: {} of {} trades have no market row in their window "
          "(they keep their logged outcome)\n",
          data.empty_windows, data.n_trades());
    std::cout << fmt::format(
        "prepared {} trades ({} dropped: other tickers), {} market rows of {} tickers, {} path "
        "points, {} sources in {:.2f} s -> {}\n",
        data.n_trades(), data.dropped_trades, data.prices.size(), data.tickers.size(), data.path.size(),
        data.sources.size(), s, out);
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

}  // namespace

void add_trade_filter_data_commands(CLI::App& data, int& exit_code) {
  auto prep = std::make_shared<PrepareCommand>();
  CLI::App* p = data.add_subcommand("prepare", "trade_filter: turn market CSVs and a trade log into one binary cache");
  p->add_option("--market-dir", prep->market_dir, "Folder of Raw_Market_data_MM-DD-YYYY.csv files")
      ->required()
      ->check(CLI::ExistingDirectory);
  p->add_option("--trades", prep->trades, "Trade log CSV")->required()->check(CLI::ExistingFile);
  p->add_option("--tickers", prep->tickers, "Tickers to keep, comma-separated (e.g. SOXL,IONQ,MARA)")->required();
  p->add_option("-o,--out", prep->out, "Cache file to write (atomically)")->required()->check(cli::output_file());
  p->callback([prep, &exit_code] { exit_code = (*prep)(); });

  auto gen = std::make_shared<GenerateCommand>();
  CLI::App* g = data.add_subcommand("generate", "trade_filter: write realistic synthetic market data and a trade log");
  g->add_option("-o,--out", gen->o.out, "Output folder (market/ and trades.csv)")
      ->required()
      ->check(cli::output_folder());
  g->add_option("--days", gen->o.days, "Trading days (weekdays)")->check(CLI::Range(1, 400));
  g->add_option("--tickers", gen->tickers, "Traded tickers, comma-separated");
  g->add_option("--extra-tickers", gen->extra, "Market-only tickers, comma-separated (may be empty)");
  g->add_option("--trades", gen->o.trades, "Trades in the log")->check(CLI::Range(0, 10000000));
  g->add_option("--seed", gen->o.seed, "Random seed");
  g->add_option("--first-day", gen->o.first_day, "First day, YYYY-MM-DD");
  g->callback([gen, &exit_code] { exit_code = (*gen)(); });
}

}  // namespace tpeopt::strategies
