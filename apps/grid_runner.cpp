#include "apps/grid_runner.hpp"

#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "apps/recorded_run.hpp"
#include "common/error.hpp"
#include "engine/interrupt.hpp"
#include "strategies/registry.hpp"

namespace tpeopt::app {

std::size_t grid_memory_budget(const std::string& executor, std::size_t memory_mb) {
  return memory_mb > 0 ? memory_mb << 20 : (executor == "cuda" ? 0 : std::size_t{1} << 30);
}

int run_grid_recorded(engine::GridRun& run, const strategies::Strategy& strategy, const std::string& executor,
                      bool quiet) {
  const std::string dir = run.dir().string();
  engine::InterruptGuard interrupts(resume_hint(dir));
  const strategies::ExactGrid& exact = strategies::registry().at(strategy.name()).exact_grid;
  if (executor == "cuda" && !exact.device)
    throw make_error("--executor cuda: this build has no CUDA (or strategy {} no GPU grid search)", strategy.name());
  // The searcher uploads the data once (on the GPU) and serves every segment.
  const std::unique_ptr<strategies::GridSearcher> searcher =
      executor == "cuda" ? exact.device(strategy) : exact.cpu(strategy);
  const engine::SegmentSearch search = [&](const strategies::SlotGrid& g, const strategies::GridSearchSettings& s) {
    return searcher->search(g, s);
  };
  const engine::GridRunOutcome out = [&] {
    try {
      return run.run(search, quiet ? nullptr : &std::cerr);
    } catch (const Error& e) {
      throw make_error(
          "{}\nthe grid stopped; every finished segment is safe in {}/grid_journal.bin; continue with: "
          "tpeopt resume {}{}",
          e.what(), dir, dir, executor == "cuda" ? " (add --executor cpu to continue on the CPU)" : "");
    }
  }();
  const io::Json top = run.top_json(out.result);
  for (const auto& entry : top) {
    std::string line = fmt::format("#{:<3} combination {:<12}", entry.at("rank").get<std::size_t>(),
                                   entry.at("trial").get<std::uint64_t>());
    for (const auto& [name, v] : entry.at("params").items()) line += fmt::format(" {}={}", name, v.dump());
    const double violation = entry.at("violation").get<double>();
    line += fmt::format(" | score {}", entry.at("score").get<double>());
    for (const auto& [name, v] : entry.at("metrics").items()) line += fmt::format(" {} {}", name, v.dump());
    line += violation > 0 ? fmt::format(" (infeasible: {} trades short)", violation) : "";
    std::cout << line << '\n';
  }
  const bool none_feasible = top.empty() || top.front().at("violation").get<double>() > 0.0;
  if (none_feasible)
    std::cerr << fmt::format(
        "tpeopt: no feasible combination{}: {} (lower objective.min_trades, or change the "
        "value lists or the data)\n",
        out.complete ? "" : " so far",
        top.empty() ? std::string("none was scored")
                    : fmt::format("even the best is {} trades short of objective.min_trades",
                                  top.front().at("violation").get<double>()));
  if (!out.complete) {
    std::cerr << fmt::format("interrupted after {} of {} segments; the grid journal is consistent. {}\n",
                             out.segments_done, out.segments, resume_hint(dir));
    return 130;
  }
  std::cout << fmt::format(
      "method {} | {} segments, {} combinations | searched here in {:.2f} ms\ndigest {}\n"
      "results in {}\n",
      *out.result.method ? out.result.method : "(all from the journal)", out.segments, out.combinations_done, out.ms,
      out.digest, dir);
  return none_feasible ? kExitNoFeasibleTrial : 0;
}

}  // namespace tpeopt::app
