// TPE versus GA versus random search at equal trial budgets (docs/samplers.md): the
// best score each finds, median and interquartile range over seeds 0 .. SEEDS-1, on the analytic functions
// and on both strategies, through the whole study (pipeline at depth 2, CPU executor).
// Prints markdown tables. docs/benchmarks.md, "Search quality", compares the samplers with bench/quality/.
//
//   bench_samplers [--seeds 10] [--only rastrigin,exhaustion,...] [--samplers tpe,ga,random]
//                  [--ga '{"population": 64}'] [--data DIR] [--examples DIR]
//
// Workloads (each sampler with its defaults; search.batch is a GA generation):
//  - rastrigin / styblinski_tang (10-d) and hartmann6 (6-d) at three budgets: 200 trials in
//    batches of 10 (NAME_small), 2,000 in batches of 100 (NAME) and 20,000 in batches of
//    1,000 (NAME_batched, the GPU-sized regime);
//  - exhaustion: examples/exhaustion_eurusd.json (5,000 hourly EURUSD bars, 10 parameters),
//    3,000 trials in batches of 100;
//  - trade_filter: examples/trade_filter_tpe.json (7 continuous parameters, 40,960 trials in
//    batches of 4,096) over smaller generated data (tpeopt data generate's generator: 5 days,
//    5,000 trades instead of the example's 20 days and 100,000; made once under --data): the
//    CPU reference walks each kept trade's price path, and at the example's size 30 runs
//    would take hours on the 2-core box.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "config/ga_config.hpp"
#include "config/study_config.hpp"
#include "strategies/trade_filter/trade_filter_cache.hpp"
#include "strategies/trade_filter/trade_filter_generator.hpp"
#include "strategies/trade_filter/trade_filter_prepare.hpp"
#include "study/study.hpp"

using namespace tpeopt;
namespace fs = std::filesystem;

namespace {

struct Workload {
  std::string name;   // for --only and the table
  std::string label;  // the table's row label
  io::StudyConfig config;
};

// A functions study over a box, like examples/functions_rastrigin.json.
io::StudyConfig function_config(const std::string& function, int dim, double low, double high, std::uint64_t trials,
                                std::uint64_t batch) {
  io::Json params = io::Json::object();
  for (int i = 0; i < dim; ++i) params["x" + std::to_string(i)] = {{"type", "float"}, {"low", low}, {"high", high}};
  const io::Json j = {{"strategy", "functions"},
                      {"function", function},
                      {"search", {{"trials", trials}, {"batch", batch}, {"depth", 2}}},
                      {"params", params}};
  return io::parse_study_config(j, function, ".");
}

io::Json read_json(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return io::parse_json_text(text.str(), path.string());
}

// examples/trade_filter_tpe.json's parameters and objective over a generated cache.
io::StudyConfig trade_filter_config(const fs::path& examples, const fs::path& data_dir) {
  const fs::path cache = data_dir / "data.tfc";
  if (!fs::exists(cache)) {
    std::fprintf(stderr, "generating trade_filter data into %s\n", data_dir.c_str());
    io::TradeFilterGeneratorOptions o;
    o.out = data_dir;
    o.days = 5;
    o.trades = 5000;
    const auto g = io::generate_trade_filter_data(o);
    io::write_trade_filter_cache(io::prepare_trade_filter_data({g.market_dir, g.trades, o.tickers}), cache);
  }
  io::Json j = read_json(examples / "trade_filter_tpe.json");
  j["data"] = {{"cache", fs::absolute(cache).string()}};
  return io::parse_study_config(j, "trade_filter_tpe.json", examples);
}

struct Outcome {
  double best = NAN;      // best feasible score (NaN: no feasible trial)
  double sampler_ms = 0;  // ask + tell, all batches
};

Outcome run_one(const io::StudyConfig& config, const strategies::Strategy& strategy) {
  engine::RunOptions o;
  o.executor = "cpu";
  o.cpu_threads = 0;
  const auto run = engine::run_study(config, strategy, o);
  Outcome out;
  for (const auto& t : run.result.top())
    if (t.violation == 0.0 && !std::isnan(t.score)) {
      out.best = t.score;
      break;
    }
  out.sampler_ms = run.summary.ask_ms + run.summary.tell_ms;
  return out;
}

// Quantile q of sorted v (linear interpolation); NaNs (no feasible trial) sort last.
double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end(), [](double a, double b) { return std::isnan(b) ? !std::isnan(a) : a < b; });
  const double pos = q * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos)), hi = static_cast<std::size_t>(std::ceil(pos));
  return v[lo] + (pos - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

std::string number(double v) {
  if (std::isnan(v)) return "none";
  const double a = std::fabs(v);
  return a != 0.0 && (a < 0.01 || a >= 1e5) ? fmt::format("{:.3g}", v) : fmt::format("{:.3f}", v);
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

}  // namespace

int main(int argc, char** argv) try {
  CLI::App app{"TPE vs GA vs random at equal trial budgets (markdown tables on stdout)"};
  unsigned seeds = 10;
  std::string only, samplers_list = "tpe,ga,random", ga_json, data_dir = "bench_data/samplers/trade_filter";
  std::string examples = std::string(TPEOPT_SOURCE_DIR) + "/examples";
  app.add_option("--seeds", seeds, "Seeds per sampler and workload (0 .. SEEDS-1)");
  app.add_option("--only", only,
                 "Comma-separated workloads: rastrigin, styblinski_tang, hartmann6 (each at three "
                 "budgets: NAME_small, NAME, NAME_batched), exhaustion, trade_filter");
  app.add_option("--samplers", samplers_list, "Comma-separated samplers");
  app.add_option("--ga", ga_json, "search.ga settings for the GA (JSON object), else its defaults");
  app.add_option("--data", data_dir, "Folder for the generated trade_filter data (reused when present)");
  app.add_option("--examples", examples, "The examples/ folder");
  CLI11_PARSE(app, argc, argv);
  const auto wanted = split(only);
  const auto samplers = split(samplers_list);
  auto selected = [&](const std::string& name) {
    return wanted.empty() || std::find(wanted.begin(), wanted.end(), name) != wanted.end();
  };

  std::vector<Workload> workloads;
  const struct {
    const char* name;
    const char* label;
    int dim;
    double low, high;
  } functions[] = {{"rastrigin", "Rastrigin-10", 10, -5.12, 5.12},
                   {"styblinski_tang", "Styblinski-Tang-10", 10, -5.0, 5.0},
                   {"hartmann6", "Hartmann-6", 6, 0.0, 1.0}};
  for (const auto& f : functions) {
    const std::string small = std::string(f.name) + "_small";
    if (selected(small)) workloads.push_back({small, f.label, function_config(f.name, f.dim, f.low, f.high, 200, 10)});
    if (selected(f.name))
      workloads.push_back({f.name, f.label, function_config(f.name, f.dim, f.low, f.high, 2000, 100)});
    const std::string batched = std::string(f.name) + "_batched";
    if (selected(batched))
      workloads.push_back({batched, f.label, function_config(f.name, f.dim, f.low, f.high, 20000, 1000)});
  }
  if (selected("exhaustion")) {
    auto c = io::load_study_config(fs::path(examples) / "exhaustion_eurusd.json");
    workloads.push_back({"exhaustion", "exhaustion EURUSD (sum of trade returns)", c});
  }
  if (selected("trade_filter"))
    workloads.push_back(
        {"trade_filter", "trade_filter (sum of trade returns, %)", trade_filter_config(examples, data_dir)});

  std::string table = "| workload | direction | trials / batch |";
  std::string rule = "| --- | --- | ---: |";
  for (const auto& s : samplers) {
    table += fmt::format(" {} median (IQR) |", s);
    rule += " --- |";
  }
  for (const auto& s : samplers) {
    table += fmt::format(" {} ask+tell ms |", s);
    rule += " ---: |";
  }
  std::printf("%s\n%s\n", table.c_str(), rule.c_str());
  std::fflush(stdout);

  for (auto& w : workloads) {
    const auto strategy = engine::make_strategy(w.config);  // data loaded once per workload
    std::string row = fmt::format("| {} | {} | {} / {} |", w.label,
                                  w.config.objective.direction == tpe::Direction::Minimize ? "min" : "max",
                                  w.config.search.trials, w.config.search.batch);
    std::string times;
    for (const auto& s : samplers) {
      io::StudyConfig c = w.config;
      c.search.sampler = s;
      if (s == "ga" && !ga_json.empty()) c.search.ga = io::parse_ga_config(io::parse_json_text(ga_json, "--ga"));
      std::vector<double> best, ms;
      for (unsigned seed = 0; seed < seeds; ++seed) {
        c.search.seed = seed;
        const Outcome o = run_one(c, *strategy);
        best.push_back(o.best);
        ms.push_back(o.sampler_ms);
        std::fprintf(stderr, "%s %s seed %u: best %s, ask+tell %.0f ms\n", w.name.c_str(), s.c_str(), seed,
                     number(o.best).c_str(), o.sampler_ms);
      }
      row += fmt::format(" {} ({} .. {}) |", number(quantile(best, 0.5)), number(quantile(best, 0.25)),
                         number(quantile(best, 0.75)));
      times += fmt::format(" {:.1f} |", quantile(ms, 0.5));
    }
    std::printf("%s%s\n", row.c_str(), times.c_str());
    std::fflush(stdout);
  }
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "bench_samplers: error: %s\n", e.what());
  return 1;
}
