// The quality benchmark's bridge to tpeopt (bench/quality/run.py drives it): one process
// per (workload, sampler, seed) that serves a tpeopt sampler's ask/tell and a strategy's
// batch evaluation over stdin/stdout, so that tpeopt's samplers, the Python optimizers
// (cmaes, Optuna, Nevergrad) and the objectives (cocoex functions in Python, strategies here)
// meet in one loop with one bookkeeping of budgets, best-so-far and time.
//
//   quality_server --config FILE [--set JSON] [--executor cpu|cuda] [--threads N]
//
// --set merges a JSON object into the config first (RFC 7386 merge patch), e.g.
// '{"search": {"sampler": "ga", "seed": 3}}'.
//
// Protocol: a command is one text line; numbers travel as raw little-endian float64.
//   info             -> one JSON line: axes (name, kind, low, high, step, log, choices), direction,
//                       strategy, sampler, sampler_draws (the version of the sampler's draws, as
//                       a run directory records it: a change to the draws is a new version),
//                       holdout (whether out-of-sample evaluation is available)
//   ask FIRST N      -> N x d values (the sampler's external values, trials FIRST .. FIRST+N-1)
//   tell FIRST N     <- N x 2 values (score, violation) -> "ok"
//   eval PART N      <- N x d values -> N x 2 values (score, violation); PART is "in" (the
//                       study's executor: the in-sample part with data.holdout, else all data)
//                       or "out" (the out-of-sample part, CPU reference; data.holdout only)
//   quit
// Errors are one line "error: MESSAGE" and end the process with status 1.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "common/error.hpp"
#include "config/study_config.hpp"
#include "engine/param_binding.hpp"
#include "storage/run_files.hpp"
#include "study/data_subsets.hpp"
#include "study/study.hpp"

using namespace tpeopt;

namespace {

io::Json read_json_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw make_error("{}: cannot open", path);
  std::stringstream text;
  text << in.rdbuf();
  return io::parse_json_text(text.str(), path);
}

io::Json axes_json(const tpe::SearchSpace& space) {
  io::Json axes = io::Json::array();
  for (const auto& a : space.axes) {
    io::Json j = {{"name", a.name}};
    if (a.kind == tpe::Axis::Kind::Categorical) {
      j["kind"] = "categorical";
      j["choices"] = a.choices;
    } else {
      j["kind"] = a.kind == tpe::Axis::Kind::Int ? "int" : "float";
      j["low"] = a.low;
      j["high"] = a.high;
      j["step"] = a.step;
      j["log"] = a.log;
    }
    axes.push_back(std::move(j));
  }
  return axes;
}

void read_exact(double* out, std::size_t count) {
  if (count != 0 && std::fread(out, sizeof(double), count, stdin) != count)
    throw make_error("stdin: expected {} float64 values", count);
}

void write_values(const double* values, std::size_t count) {
  if (count != 0 && std::fwrite(values, sizeof(double), count, stdout) != count)
    throw make_error("stdout: write failed");
  std::fflush(stdout);
}

void write_line(const std::string& line) {
  std::fputs((line + "\n").c_str(), stdout);
  std::fflush(stdout);
}

/// Evaluates parameter rows on the out-of-sample part of a data.holdout study with the
/// CPU reference, as `tpeopt run` scores its top trials there.
class OutOfSample {
 public:
  OutOfSample(const io::StudyConfig& config, const strategies::Strategy& strategy) {
    const engine::HoldoutSplit split = engine::split_parts(strategy, config);
    const auto in_atoms = engine::atom_count(split.in_sample), out_atoms = engine::atom_count(split.out_of_sample);
    part_ = strategy.subset(split.out_of_sample, engine::scaled_min_trades(strategy.min_trades(), out_atoms, in_atoms));
    binding_ = std::make_unique<engine::ParamBinding>(*part_, config.space, config.fixed);
  }
  void evaluate(const double* rows, std::size_t n, std::size_t d, double* out) const {
    std::vector<double> slots(binding_->n_slots()), metrics(part_->metric_names().size());
    for (std::size_t i = 0; i < n; ++i) {
      binding_->fill(rows + i * d, slots.data());
      const strategies::TrialScore s = part_->evaluate(slots.data(), metrics.data());
      out[2 * i] = s.score;
      out[2 * i + 1] = s.violation;
    }
  }

 private:
  std::shared_ptr<const strategies::Strategy> part_;
  std::unique_ptr<engine::ParamBinding> binding_;
};

int serve(const io::StudyConfig& config, const engine::RunOptions& options) {
  const std::size_t d = config.space.size();
  std::unique_ptr<strategies::Strategy> strategy;
  std::unique_ptr<engine::Executor> executor;
  std::unique_ptr<OutOfSample> out_of_sample;
  std::unique_ptr<tpe::Sampler> sampler = engine::make_sampler(config);
  std::uint64_t batch_index = 0;
  std::string line;
  while (std::getline(std::cin, line)) {
    std::istringstream words(line);
    std::string command;
    words >> command;
    if (command == "quit") return 0;
    if (command == "info") {
      const io::Json info = {{"axes", axes_json(config.space)},
                             {"direction",
                              config.objective.direction == tpe::Direction::Maximize ? "maximize" : "minimize"},
                             {"strategy", config.strategy},
                             {"sampler", sampler->name()},
                             {"sampler_draws", engine::sampler_draws_version(config)},
                             {"holdout", config.has_parts()}};
      write_line(info.dump());
    } else if (command == "ask") {
      std::uint64_t first = 0;
      std::size_t n = 0;
      words >> first >> n;
      std::vector<double> values(n * d);
      sampler->ask(first, n, values.data());
      write_values(values.data(), values.size());
    } else if (command == "tell") {
      std::uint64_t first = 0;
      std::size_t n = 0;
      words >> first >> n;
      std::vector<double> raw(2 * n);
      read_exact(raw.data(), raw.size());
      std::vector<tpe::TrialOutcome> outcomes(n);
      for (std::size_t i = 0; i < n; ++i) outcomes[i] = {raw[2 * i], raw[2 * i + 1]};
      sampler->tell(first, outcomes);
      write_line("ok");
    } else if (command == "eval") {
      std::string part;
      std::size_t n = 0;
      words >> part >> n;
      std::vector<double> rows(n * d), out(2 * n);
      read_exact(rows.data(), rows.size());
      if (!strategy) strategy = engine::make_strategy(config);
      if (part == "in") {
        if (!executor) executor = engine::make_executor(config, *strategy, options);
        engine::BatchRequest request;
        request.batch_index = batch_index++;
        request.n_trials = n;
        request.n_axes = d;
        request.values = std::move(rows);
        const engine::BatchResult r = executor->evaluate(request);
        for (std::size_t i = 0; i < n; ++i) {
          out[2 * i] = r.scores[i];
          out[2 * i + 1] = r.violations[i];
        }
      } else if (part == "out") {
        if (!config.has_parts()) throw make_error("eval out: the config has no data.holdout");
        if (!out_of_sample) out_of_sample = std::make_unique<OutOfSample>(config, *strategy);
        out_of_sample->evaluate(rows.data(), n, d, out.data());
      } else {
        throw make_error("eval: part \"{}\" is not one of: in, out", part);
      }
      write_values(out.data(), out.size());
    } else if (!command.empty()) {
      throw make_error("unknown command \"{}\"", command);
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"tpeopt quality benchmark server (bench/quality/run.py drives it)"};
  std::string config_path, patch, executor = "cpu";
  unsigned threads = 0;
  app.add_option("--config", config_path, "study config (JSON)")->required();
  app.add_option("--set", patch, "JSON merge patch applied to the config");
  app.add_option("--executor", executor, "cpu | cuda");
  app.add_option("--threads", threads, "CPU executor threads (0 = all)");
  CLI11_PARSE(app, argc, argv);
  try {
    io::Json j = read_json_file(config_path);
    if (!patch.empty()) j.merge_patch(io::parse_json_text(patch, "--set"));
    const auto base = std::filesystem::path(config_path).parent_path();
    const io::StudyConfig config = io::parse_study_config(j, config_path, base.empty() ? "." : base);
    engine::RunOptions options;
    options.executor = executor;
    options.cpu_threads = threads;
    return serve(config, options);
  } catch (const std::exception& e) {
    std::fprintf(stdout, "error: %s\n", e.what());
    std::fflush(stdout);
    std::fprintf(stderr, "quality_server: %s\n", e.what());
    return 1;
  }
}
