#include "engine/study.hpp"

#include <ostream>

#include "common/error.hpp"
#include "engine/cpu_executor.hpp"
#include "engine/run_log.hpp"
#include "gpu/cuda_executor.hpp"
#include "strategies/functions/functions_strategy.hpp"
#include "tpe/grid_sampler.hpp"
#include "tpe/random_sampler.hpp"
#include "tpe/tpe_sampler.hpp"

namespace tpeopt::engine {

std::unique_ptr<strategies::Strategy> make_strategy(const io::StudyConfig& config) {
  try {
    if (config.strategy == "functions") {
      std::vector<std::string> names;
      for (const auto& n : config.param_order) names.push_back(n);
      return std::make_unique<strategies::FunctionsStrategy>(strategies::parse_test_function(config.function),
                                                             std::move(names));
    }
  } catch (const Error& e) {
    throw Error(config.source + ": " + e.what());
  }
  throw make_error("{}: strategy: {} is not available in this build yet", config.source, config.strategy);
}

std::unique_ptr<tpe::Sampler> make_sampler(const io::StudyConfig& config) {
  const auto& s = config.search;
  if (s.sampler == "random") return std::make_unique<tpe::RandomSampler>(config.space, s.seed);
  if (s.sampler == "grid") return std::make_unique<tpe::GridSampler>(config.space);
  return std::make_unique<tpe::TpeSampler>(config.space, config.objective.direction, s.seed, s.tpe);
}

std::uint64_t study_trial_count(const io::StudyConfig& config) {
  if (config.search.sampler == "grid") return tpe::GridSampler(config.space).size();
  return config.search.trials;
}

std::string resolve_executor(const std::string& which) {
  if (which == "auto") return gpu::cuda_available() ? "cuda" : "cpu";
  if (which != "cpu" && which != "cuda")
    throw make_error("--executor: \"{}\" is not one of: cpu, cuda, auto", which);
  return which;
}

std::unique_ptr<Executor> make_executor(const io::StudyConfig& config, const strategies::Strategy& strategy,
                                        const RunOptions& options) {
  ParamBinding binding = [&] {
    try {
      return ParamBinding(strategy, config.space, config.fixed);
    } catch (const Error& e) {
      throw Error(config.source + ": " + e.what());
    }
  }();
  if (resolve_executor(options.executor) == "cuda") {
    gpu::CudaExecutorOptions o;
    o.block_size = options.cuda_block_size;
    o.max_in_flight = std::max<std::size_t>(1, config.search.depth);
    return gpu::make_cuda_executor(strategy, std::move(binding), o);
  }
  return std::make_unique<CpuExecutor>(strategy, std::move(binding), options.cpu_threads);
}

namespace {

/// Feeds told batches to the result collector, the log and the caller's observer.
class StudyObserver final : public BatchObserver {
 public:
  StudyObserver(StudyResult& result, const RunOptions& options, std::string sampler, std::string executor,
                std::uint64_t total, BatchObserver* next)
      : result_(result), options_(options), sampler_(std::move(sampler)), executor_(std::move(executor)),
        total_(total), next_(next) {}

  void on_batch(const BatchRequest& request, const BatchResult& r, const BatchTimings& t) override {
    result_.add(request, r);
    if (options_.log)
      *options_.log << format_batch_line(sampler_, executor_, request.first_trial + request.n_trials, total_, t)
                    << '\n'
                    << std::flush;
    if (next_) next_->on_batch(request, r, t);
  }
  bool stop_requested() override { return next_ && next_->stop_requested(); }

 private:
  StudyResult& result_;
  const RunOptions& options_;
  std::string sampler_, executor_;
  std::uint64_t total_;
  BatchObserver* next_;
};

}  // namespace

StudyRun run_study(const io::StudyConfig& config, const RunOptions& options, BatchObserver* observer) {
  auto strategy = make_strategy(config);
  auto executor = make_executor(config, *strategy, options);
  auto sampler = make_sampler(config);
  const std::uint64_t total = study_trial_count(config);

  StudyRun run{{},
               StudyResult(config.space.size(), strategy->metric_names().size(), config.objective.direction,
                           config.search.top_k, options.keep_trials),
               executor->name()};
  StudyObserver study_observer(run.result, options, sampler->name(), run.executor, total, observer);
  PipelineSettings settings;
  settings.n_trials = total;
  settings.batch_size = config.search.batch;
  settings.depth = config.search.depth;
  settings.serial = options.serial;
  run.summary = run_pipeline(*sampler, *executor, config.space.size(), settings, study_observer);
  return run;
}

}  // namespace tpeopt::engine
