// `tpeopt grid`: exhaustive search over a grid of values with a streaming top K.
// trade_filter runs the exact cell method (CPU or GPU, strategies/trade_filter/
// trade_filter_grid.hpp, gpu/trade_filter_grid.hpp); other strategies run the grid
// sampler through the pipeline.
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "apps/commands.hpp"
#include "common/error.hpp"
#include "engine/trade_filter_grid_config.hpp"
#include "engine/run_directory.hpp"
#include "engine/study.hpp"
#include "io/study_config.hpp"
#include "strategies/trade_filter/trade_filter_grid.hpp"
#include "strategies/trade_filter/trade_filter_strategy.hpp"
#include "tpe/grid_sampler.hpp"
#ifdef TPEOPT_WITH_CUDA
#include "gpu/cuda_executor.hpp"
#include "gpu/trade_filter_grid.hpp"
#endif

namespace tpeopt::app {

namespace tf = strategies::trade_filter;
namespace fs = std::filesystem;

namespace {

struct GridCommand {
  std::string config_path, executor = "", out;
  std::size_t top = 10;
  unsigned threads = 0;
  std::size_t memory_mb = 0;

  int operator()() const {
    io::StudyConfig config = io::load_study_config(config_path);
    if (!executor.empty()) config.executor = executor;
    const std::string exec = engine::resolve_executor(config.executor);
    auto strategy = engine::make_strategy(config);
    const auto* tfs = dynamic_cast<const strategies::TradeFilterStrategy*>(strategy.get());
    if (!tfs) return generic(config, exec);

    const tf::TradeFilterGrid grid = [&] {
      try {
        return engine::make_trade_filter_grid(config, *strategy);
      } catch (const Error& e) {
        throw Error(config.source + ": " + e.what());
      }
    }();
    tf::GridSearchSettings st;
    st.top_k = top;
    st.min_trades = tfs->min_trades();
    st.maximize = config.objective.direction == tpe::Direction::Maximize;
    st.threads = threads;
    st.memory_budget = memory_mb > 0 ? memory_mb << 20 : (exec == "cuda" ? 0 : std::size_t{1} << 30);
    std::cerr << fmt::format("tpeopt grid: strategy trade_filter | {} combinations x {} trades | top {} | executor {}\n",
                             grid.size(), tfs->data().n_trades(), top, exec);
    const auto t0 = std::chrono::steady_clock::now();
    tf::GridSearchOutcome result;
    if (exec == "cuda") {
#ifdef TPEOPT_WITH_CUDA
      gpu::TradeFilterGridSearch search(*tfs);
      const auto t1 = std::chrono::steady_clock::now();
      result = search.search(grid, st);
      std::cerr << fmt::format("tpeopt grid: upload {:.1f} ms\n",
                               std::chrono::duration<double, std::milli>(t1 - t0).count());
#else
      throw make_error("--executor cuda: this build has no CUDA");
#endif
    } else {
      result = tf::grid_search_cpu(*tfs, grid, st);
    }
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    const double checks = static_cast<double>(grid.size()) * static_cast<double>(tfs->data().n_trades());
    std::cout << fmt::format("method {} | {} combinations in {:.2f} ms | {:.3g} effective combination-trade checks/s\n",
                             result.method, grid.size(), ms, checks / (ms / 1000.0));

    io::Json top_json = io::Json::array();
    for (std::size_t r = 0; r < result.top.size(); ++r) {
      const auto& h = result.top[r];
      const auto& t = result.tallies[r];
      std::vector<double> slots(tf::kSlots);
      grid.slots_of(h.combination, slots.data());
      io::Json params = io::Json::object();
      std::string line = fmt::format("#{:<3} combination {:<12}", r + 1, h.combination);
      for (std::size_t a = 0; a < config.space.size(); ++a) {
        const auto& axis = config.space.axes[a];
        const std::size_t s = static_cast<std::size_t>(
            std::find(strategy->param_names().begin(), strategy->param_names().end(), axis.name) -
            strategy->param_names().begin());
        params[axis.name] = slots[s];
        line += fmt::format(" {}={}", axis.name, slots[s]);
      }
      const double score = tf::from_fixed_point(t.sum_q);
      const double violation = tf::violation_of(t.kept, st.min_trades);
      line += fmt::format(" | score {} kept {} wins {} losses {}{}", score, t.kept, t.wins, t.losses,
                          violation > 0 ? fmt::format(" (infeasible: {} trades short)", violation) : "");
      std::cout << line << '\n';
      top_json.push_back({{"rank", r + 1},
                          {"trial", h.combination},
                          {"params", params},
                          {"score", score},
                          {"violation", violation},
                          {"metrics", {{"kept", t.kept}, {"wins", t.wins}, {"losses", t.losses}}}});
    }
    if (!out.empty()) write_out(config, top_json);
    return 0;
  }

  void write_out(const io::StudyConfig& config, const io::Json& top_json) const {
    std::error_code ec;
    fs::create_directories(out, ec);
    if (ec) throw make_error("--out: cannot create {}: {}", out, ec.message());
    std::ofstream(fs::path(out) / "config.json") << config.resolved().dump(2) << '\n';
    std::ofstream t(fs::path(out) / "top.json");
    t << top_json.dump(2) << '\n';
    if (!t) throw make_error("--out: cannot write {}/top.json", out);
    std::cout << "results in " << out << '\n';
  }

  /// Other strategies: the grid sampler through the pipeline (no per-combination memory).
  int generic(io::StudyConfig config, const std::string& exec) const {
    config.search.sampler = "grid";
    config.search.top_k = top;
    engine::RunOptions options;
    options.executor = exec;
    options.cpu_threads = threads;
    auto run = engine::run_study(config, options);
    auto strategy = engine::make_strategy(config);
    const io::Json top_json = engine::top_to_json(run.result, config, strategy->metric_names());
    std::cout << top_json.dump(2) << '\n';
    if (!out.empty()) write_out(config, top_json);
    return 0;
  }
};

}  // namespace

void add_grid_command(CLI::App& app, int& exit_code) {
  auto cmd = std::make_shared<GridCommand>();
  CLI::App* sub = app.add_subcommand("grid", "Exhaustive search over the config's value lists, keeping the top K");
  sub->add_option("-c,--config", cmd->config_path, "Study config (JSON) whose params are value lists")
      ->required()
      ->check(CLI::ExistingFile);
  sub->add_option("--top", cmd->top, "How many best combinations to keep (default 10)")->check(CLI::Range(1, 16384));
  sub->add_option("--executor", cmd->executor, "cpu, cuda or auto (overrides the config)")
      ->check(CLI::IsMember({"cpu", "cuda", "auto"}));
  sub->add_option("--threads", cmd->threads, "CPU threads (0 = all cores)");
  sub->add_option("--memory-mb", cmd->memory_mb, "Memory for cell tables (default: 1 GiB on the CPU, a quarter of free GPU memory)");
  sub->add_option("-o,--out", cmd->out, "Folder for top.json and the resolved config");
  sub->callback([cmd, &exit_code] { exit_code = (*cmd)(); });
}

}  // namespace tpeopt::app
