#include "study/study.hpp"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <ostream>

#include "common/error.hpp"
#include "common/hardware_threads.hpp"
#include "engine/cpu_executor.hpp"
#include "engine/fault_injection.hpp"
#include "engine/halving_executor.hpp"
#include "engine/run_log.hpp"
#include "engine/synthetic_load.hpp"
#include "gpu/cuda_executor.hpp"
#include "io/data_log.hpp"
#include "scaleout/mpi_ranks.hpp"
#include "scaleout/split_executor.hpp"
#include "study/data_subsets.hpp"
#include "tpe/batch_tpe_sampler.hpp"
#include "tpe/ga_sampler.hpp"
#include "tpe/grid_sampler.hpp"
#include "tpe/random_sampler.hpp"
#include "tpe/tpe_sampler.hpp"

namespace tpeopt::engine {

std::unique_ptr<strategies::Strategy> make_strategy(const io::StudyConfig& config) {
  try {
    auto strategy = config.entry->make(*config.settings, strategies::BuildContext{config.base_dir, &std::cerr});
    // data.folds: the study's strategy scores its folds in the same walk (its metrics gain the
    // fold columns); the walk-forward parent runs no trials of its own.
    if (!config.folds.enabled() || config.walk_forward.is_parent()) return strategy;
    const strategies::FoldSpec folds = fold_spec(*strategy, config);
    try {
      return strategy->with_folds(folds, config.folds.across);
    } catch (const Error& e) {
      throw make_error("data.folds: {}", e.what());
    }
  } catch (const Error& e) {
    throw Error(config.source + ": " + e.what());
  }
}

std::unique_ptr<strategies::Strategy> load_strategy(const io::StudyConfig& config, std::ostream* log,
                                                    std::uint64_t* data_bytes) {
  io::take_data_loads();  // only this config's loads
  auto strategy = make_strategy(config);
  const auto loads = io::take_data_loads();
  if (data_bytes) {
    *data_bytes = 0;
    for (const auto& l : loads) *data_bytes += l.bytes;
  }
  if (!log) return strategy;
  constexpr std::size_t kShown = 20;  // a data set of many symbols: the first ones, then a count
  for (std::size_t i = 0; i < loads.size() && i < kShown; ++i)
    *log << "tpeopt: " << io::describe_data_load(loads[i]) << '\n';
  if (loads.size() > kShown) {
    std::uint64_t rows = 0;
    for (const auto& l : loads) rows += l.rows;
    *log << fmt::format("tpeopt: ... and {} more ({} series, {} {} in all)\n", loads.size() - kShown, loads.size(),
                        rows, loads.front().unit);
  }
  *log << std::flush;
  return strategy;
}

void check_scored_by_tpeopt(const io::StudyConfig& config) {
  if (!config.entry->scored_by_caller.empty())
    throw make_error("{}: strategy {}: {}", config.source, config.strategy, config.entry->scored_by_caller);
}

unsigned sampler_threads_beside_gpu(unsigned hardware_threads) { return std::clamp(hardware_threads, 3u, 10u) - 2u; }

std::unique_ptr<tpe::Sampler> make_sampler(const io::StudyConfig& config, bool beside_gpu) {
  io::SearchConfig s = config.search;
  if (beside_gpu && !s.tpe.threads_listed)
    s.tpe.threads = s.tpe.batch.threads = sampler_threads_beside_gpu(usable_hardware_threads());
  if (s.sampler == "random") return std::make_unique<tpe::RandomSampler>(config.space, s.seed);
  if (s.sampler == "grid") return std::make_unique<tpe::GridSampler>(config.space);
  if (s.sampler == "ga")
    return std::make_unique<tpe::GaSampler>(config.space, config.objective.direction, s.seed, s.ga);
  if (s.tpe.preset == tpe::Preset::Batch)
    return std::make_unique<tpe::BatchTpeSampler>(config.space, config.objective.direction, s.seed, s.tpe.batch);
  return std::make_unique<tpe::TpeSampler>(config.space, config.objective.direction, s.seed, s.tpe);
}

std::uint64_t study_trial_count(const io::StudyConfig& config) {
  if (config.search.sampler == "grid") return tpe::GridSampler(config.space).size();
  return config.search.trials;
}

std::vector<int> parse_devices(const std::string& text) {
  if (text.empty()) return {};
  const int available = gpu::cuda_device_count();
  std::vector<int> out;
  if (text == "all") {
    for (int d = 0; d < available; ++d) out.push_back(d);
    if (out.empty()) throw make_error("--devices all: no CUDA device found ({})", gpu::cuda_device_description());
    return out;
  }
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const std::size_t comma = std::min(text.find(',', pos), text.size());
    const std::string item = text.substr(pos, comma - pos);
    int d = -1;
    try {
      std::size_t used = 0;
      d = std::stoi(item, &used);
      if (used != item.size()) d = -1;
    } catch (const std::exception&) {
      d = -1;
    }
    if (d < 0) throw make_error("--devices: \"{}\" is not a device number (expected all or a list like 0,1)", item);
    if (d >= available) throw make_error("--devices: device {} does not exist ({} CUDA device(s) found)", d, available);
    if (std::find(out.begin(), out.end(), d) != out.end()) throw make_error("--devices: device {} is listed twice", d);
    out.push_back(d);
    pos = comma + 1;
  }
  return out;
}

std::string resolve_executor(const std::string& which) {
  if (which == "auto") return gpu::cuda_available() ? "cuda" : "cpu";
  if (which != "cpu" && which != "cuda") throw make_error("--executor: \"{}\" is not one of: cpu, cuda, auto", which);
  // Checked here, before any run directory exists: a run that cannot start must not leave
  // one behind that `tpeopt resume` would only refuse the same way.
  if (which == "cuda" && !gpu::cuda_available())
    throw make_error("--executor cuda: no usable CUDA device ({}); use --executor cpu or auto",
                     gpu::cuda_device_description());
  return which;
}

namespace {

/// The part of the run options a rank's executor needs (scaleout/mpi_ranks.hpp).
mpi::RankExecutorOptions rank_options(const RunOptions& options) {
  return {options.executor, options.cpu_threads, options.cuda_block_size, options.cuda_devices};
}

}  // namespace

std::unique_ptr<Executor> make_local_executor(const io::StudyConfig& config, const strategies::Strategy& strategy,
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
    if (options.cuda_devices.size() <= 1) {
      o.device = options.cuda_devices.empty() ? 0 : options.cuda_devices.front();
      return gpu::make_cuda_executor(strategy, std::move(binding), o);
    }
    std::vector<std::unique_ptr<Executor>> devices;
    for (int d : options.cuda_devices) {  // each uploads the strategy's data to its device once
      o.device = d;
      devices.push_back(gpu::make_cuda_executor(strategy, binding, o));
    }
    std::string label = fmt::format("cuda x{}", devices.size());
    return std::make_unique<SplitExecutor>(std::move(devices), std::move(label));
  }
  return std::make_unique<CpuExecutor>(strategy, std::move(binding), options.cpu_threads);
}

std::unique_ptr<Executor> make_executor(const io::StudyConfig& config, const strategies::Strategy& strategy,
                                        const RunOptions& options) {
  const auto& halving = config.search.halving;
  check_scored_by_tpeopt(config);
  if (config.walk_forward.is_parent())
    throw make_error(
        "{}: data.walk_forward: a walk-forward study runs fold by fold (tpeopt run does it); this is "
        "the parent of its folds",
        config.source);
  if (!config.has_parts() && !halving.enabled) {
    // Under mpirun, rank 0's executor spreads every batch over all ranks (scaleout/mpi_ranks.hpp).
    return mpi::spread_over_ranks(make_local_executor(config, strategy, options), config, rank_options(options),
                                  strategy.metric_names().size());
  }
  try {
    const std::vector<AtomRange> in_sample = in_sample_ranges(strategy, config);
    if (!halving.enabled) {
      std::shared_ptr<const strategies::Strategy> part = strategy.subset(in_sample, strategy.min_trades());
      auto inner = mpi::spread_over_ranks(make_local_executor(config, *part, options), config, rank_options(options),
                                          strategy.metric_names().size());
      return std::make_unique<KeepAliveExecutor>(std::move(inner), KeepAlive{part});
    }
    if (mpi::size() > 1) throw make_error("search.halving: not available under mpirun yet; run on one host");
    const auto slices = halving_slices(strategy, in_sample, halving);
    const auto order = shuffled_slice_order(slices.size(), config.search.seed);
    const std::size_t whole = atom_count(in_sample);
    KeepAlive keep;
    std::vector<std::unique_ptr<Executor>> rungs;
    for (std::size_t count : rung_slice_counts(slices.size(), halving)) {
      std::vector<AtomRange> ranges;
      for (std::size_t k = 0; k < count; ++k)
        ranges.insert(ranges.end(), slices[order[k]].begin(), slices[order[k]].end());
      // In time order: the blocks of a rung are summed in the order of the data.
      std::sort(ranges.begin(), ranges.end(), [](const AtomRange& a, const AtomRange& b) { return a.begin < b.begin; });
      std::shared_ptr<const strategies::Strategy> part =
          strategy.subset(ranges, scaled_min_trades(strategy.min_trades(), atom_count(ranges), whole));
      rungs.push_back(make_local_executor(config, *part, options));
      keep.push_back(part);
    }
    return std::make_unique<HalvingExecutor>(std::move(rungs), halving.eta, config.objective.direction,
                                             std::move(keep));
  } catch (const Error& e) {
    throw Error(config.source + ": " + e.what());
  }
}

HoldoutResult score_holdout(const io::StudyConfig& config, const strategies::Strategy& strategy,
                            const StudyResult& result) {
  HoldoutResult h;
  HoldoutSplit split;
  try {
    split = split_parts(strategy, config);
  } catch (const Error& e) {
    throw Error(config.source + ": " + e.what());
  }
  h.in_sample_atoms = atom_count(split.in_sample);
  h.out_of_sample_atoms = atom_count(split.out_of_sample);
  h.unit = strategy.atoms_are_slices() ? "trading days" : "bars";
  // The hold-out is scored by the whole-span objective: its atoms lie in no fold.
  const auto plain = strategy.folds().n_folds() > 0 ? strategy.with_folds({}, {}) : nullptr;
  const auto oos = (plain ? *plain : strategy)
                       .subset(split.out_of_sample,
                               scaled_min_trades(strategy.min_trades(), h.out_of_sample_atoms, h.in_sample_atoms));
  const ParamBinding binding(*oos, config.space, config.fixed);
  std::vector<double> slots(binding.n_slots());
  std::vector<double> in_scores, out_scores;
  for (const auto& t : result.top()) {
    binding.fill(t.params.data(), slots.data());
    std::vector<double> metrics(oos->metric_names().size());
    const strategies::TrialScore s = oos->evaluate(slots.data(), metrics.data());
    h.scores.push_back(s.score);
    h.violations.push_back(s.violation);
    h.metrics.push_back(std::move(metrics));
    if (!std::isnan(t.score) && !std::isnan(s.score)) {
      in_scores.push_back(t.score);
      out_scores.push_back(s.score);
    }
  }
  h.spearman = spearman_correlation(in_scores, out_scores);
  return h;
}

namespace {

/// Feeds told batches to the result collector, the log and the caller's observer.
class StudyObserver final : public BatchObserver {
 public:
  StudyObserver(StudyResult& result, const RunOptions& options, std::string sampler, std::string executor,
                std::uint64_t total, BatchObserver* next)
      : result_(result), options_(options), sampler_(std::move(sampler)), executor_(std::move(executor)), total_(total),
        next_(next) {}

  void on_batch(const BatchRequest& request, const BatchResult& r, const BatchTimings& t) override {
    result_.add(request, r);
    if (next_) next_->on_batch(request, r, t);  // the journal first: then the batch counts as done
    const std::uint64_t done = request.first_trial + request.n_trials;
    if (!t.replayed) {
      exec_ms_ += t.exec_ms;
      if (first_wall_ms_ < 0) first_wall_ms_ = t.wall_ms - (t.ask_ms + t.exec_ms + t.tell_ms);
      done_here_ += request.n_trials;
    }
    if (!options_.log) return;
    if (!options_.progress_line) {
      *options_.log << format_batch_line(sampler_, executor_, done, total_, t) << '\n' << std::flush;
      return;
    }
    const auto now = Clock::now();
    if (done < total_ && now - last_progress_ < std::chrono::milliseconds(250)) return;
    last_progress_ = now;
    const double elapsed_s = (t.wall_ms - std::max(0.0, first_wall_ms_)) / 1000.0;
    const double rate = elapsed_s > 0 ? done_here_ / elapsed_s : 0.0;
    const auto& best = result_.top();
    *options_.log << '\r'
                  << format_progress_line(done, total_, rate, best.empty() ? NAN : best.front().score,
                                          t.wall_ms > 0 ? exec_ms_ / t.wall_ms : 0.0)
                  << (done >= total_ ? "\n" : "") << std::flush;
  }
  bool stop_requested() override { return next_ && next_->stop_requested(); }

 private:
  StudyResult& result_;
  const RunOptions& options_;
  std::string sampler_, executor_;
  std::uint64_t total_;
  BatchObserver* next_;
  double exec_ms_ = 0.0, first_wall_ms_ = -1.0;
  std::uint64_t done_here_ = 0;
  Clock::time_point last_progress_{};
};

}  // namespace

StudyRun run_study(const io::StudyConfig& config, const RunOptions& options, BatchObserver* observer,
                   std::vector<ReplayedBatch> replay) {
  const auto strategy = make_strategy(config);
  return run_study(config, *strategy, options, observer, std::move(replay));
}

StudyRun run_study(const io::StudyConfig& config, const strategies::Strategy& strategy, const RunOptions& options,
                   BatchObserver* observer, std::vector<ReplayedBatch> replay) {
  std::unique_ptr<Executor> own_executor;
  // The caller's executor scores the whole data: data subsets are made by make_executor.
  if (options.external_executor && (config.has_parts() || config.search.halving.enabled))
    throw make_error("{}: data subsets (data.holdout, data.walk_forward, search.halving) need tpeopt's own executors",
                     config.source);
  if (!options.external_executor) own_executor = make_executor(config, strategy, options);
  Executor* executor = options.external_executor ? options.external_executor : own_executor.get();
  auto sampler = make_sampler(config, executor->name() == "cuda");
  const std::uint64_t total = study_trial_count(config);

  StudyRun run{{},
               StudyResult(config.space.size(), strategy.metric_names().size(), config.objective.direction,
                           config.search.top_k, options.keep_trials),
               executor->name(),
               std::nullopt,
               nullptr};
  StudyObserver study_observer(run.result, options, sampler->name(), run.executor, total, observer);
  PipelineSettings settings;
  settings.n_trials = total;
  settings.batch_size = config.search.batch;
  settings.depth = config.search.depth;
  settings.serial = options.serial;
  settings.replay = std::move(replay);
  LoadedSampler loaded_sampler(*sampler, options.sampler_load_ms);
  LoadedExecutor loaded_executor(*executor, options.executor_load_ms);
  tpe::Sampler& s = options.sampler_load_ms > 0 ? static_cast<tpe::Sampler&>(loaded_sampler) : *sampler;
  Executor* e = options.executor_load_ms > 0 ? static_cast<Executor*>(&loaded_executor) : executor;
  std::unique_ptr<Executor> faulty;
  if (const auto fail_at = injected_failure_batch()) {
    faulty = make_fault_injector(*e, *fail_at);
    e = faulty.get();
  }
  run.summary = run_pipeline(s, *e, config.space.size(), settings, study_observer);
  if (config.has_parts()) run.holdout = score_holdout(config, strategy, run.result);
  return run;
}

int serve_rank_jobs() {
  return mpi::serve_jobs([](const io::StudyConfig& config, const mpi::RankExecutorOptions& o) {
    RunOptions options;
    options.executor = o.executor;
    options.cpu_threads = o.cpu_threads;
    options.cuda_block_size = o.cuda_block_size;
    options.cuda_devices = o.cuda_devices;
    std::shared_ptr<const strategies::Strategy> strategy = make_strategy(config);
    mpi::RankExecutor built;
    built.executor = make_executor(config, *strategy, options);
    built.n_metrics = strategy->metric_names().size();
    built.keep_alive = std::move(strategy);
    return built;
  });
}

}  // namespace tpeopt::engine
