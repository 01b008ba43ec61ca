#include "apps/grid_runner.hpp"

#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "apps/recorded_run.hpp"
#include "common/error.hpp"
#include "engine/interrupt.hpp"
#ifdef TPEOPT_WITH_CUDA
#include "gpu/trade_filter_grid.hpp"
#endif

namespace tpeopt::app {

namespace tf = strategies::trade_filter;

std::size_t grid_memory_budget(const std::string& executor, std::size_t memory_mb) {
  return memory_mb > 0 ? memory_mb << 20 : (executor == "cuda" ? 0 : std::size_t{1} << 30);
}

int run_grid_recorded(engine::GridRun& run, const strategies::TradeFilterStrategy& strategy,
                      const std::string& executor, bool quiet) {
  const std::string dir = run.dir().string();
  engine::InterruptGuard interrupts(resume_hint(dir));
  engine::SegmentSearch search = [&](const tf::TradeFilterGrid& g, const tf::GridSearchSettings& s) {
    return tf::grid_search_cpu(strategy, g, s);
  };
#ifdef TPEOPT_WITH_CUDA
  std::unique_ptr<gpu::TradeFilterGridSearch> device;
  if (executor == "cuda") {
    device = std::make_unique<gpu::TradeFilterGridSearch>(strategy);  // the data is uploaded once
    search = [&](const tf::TradeFilterGrid& g, const tf::GridSearchSettings& s) { return device->search(g, s); };
  }
#else
  if (executor == "cuda") throw make_error("--executor cuda: this build has no CUDA");
#endif
  const engine::GridRunOutcome out = [&] {
    try {
      return run.run(search, quiet ? nullptr : &std::cerr);
    } catch (const Error& e) {
      throw make_error("{}\nthe grid stopped; every finished segment is safe in {}/grid_journal.bin; continue with: "
                       "tpeopt resume {}{}",
                       e.what(), dir, dir, executor == "cuda" ? " (add --executor cpu to continue on the CPU)" : "");
    }
  }();
  const io::Json top = run.top_json(out.result);
  for (const auto& entry : top) {
    std::string line = fmt::format("#{:<3} combination {:<12}", entry.at("rank").get<std::size_t>(),
                                   entry.at("trial").get<std::uint64_t>());
    for (const auto& [name, v] : entry.at("params").items()) line += fmt::format(" {}={}", name, v.dump());
    const auto& m = entry.at("metrics");
    const double violation = entry.at("violation").get<double>();
    line += fmt::format(" | score {} kept {} wins {} losses {}{}", entry.at("score").get<double>(),
                        m.at("kept").get<std::int64_t>(), m.at("wins").get<std::int64_t>(),
                        m.at("losses").get<std::int64_t>(),
                        violation > 0 ? fmt::format(" (infeasible: {} trades short)", violation) : "");
    std::cout << line << '\n';
  }
  const bool none_feasible = top.empty() || top.front().at("violation").get<double>() > 0.0;
  if (none_feasible)
    std::cerr << fmt::format("tpeopt: no feasible combination{}: {} (lower objective.min_trades, or change the "
                             "value lists or the data)\n",
                             out.complete ? "" : " so far",
                             top.empty() ? std::string("none was scored")
                                         : fmt::format("even the best keeps fewer than min_trades = {} trades ({} "
                                                       "short)",
                                                       strategy.min_trades(),
                                                       top.front().at("violation").get<double>()));
  if (!out.complete) {
    std::cerr << fmt::format("interrupted after {} of {} segments; the grid journal is consistent. {}\n",
                             out.segments_done, out.segments, resume_hint(dir));
    return 130;
  }
  std::cout << fmt::format("method {} | {} segments, {} combinations | searched here in {:.2f} ms\ndigest {}\n"
                           "results in {}\n",
                           *out.result.method ? out.result.method : "(all from the journal)", out.segments, out.combinations_done, out.ms, out.digest, dir);
  return none_feasible ? kExitNoFeasibleTrial : 0;
}

}  // namespace tpeopt::app
