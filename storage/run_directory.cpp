#include "storage/run_directory.hpp"
#include "storage/selection_bias_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "common/atomic_file.hpp"
#include "common/digest.hpp"
#include "common/error.hpp"
#include "engine/interrupt.hpp"
#include "storage/run_files.hpp"

namespace tpeopt::engine {

namespace fs = std::filesystem;

namespace {

JournalHeader make_header(const io::StudyConfig& config, const strategies::Strategy& strategy) {
  JournalHeader h;
  h.config_digest = config_digest(config);
  h.data_checksums = strategy.data_checksums();
  h.n_axes = config.space.size();
  h.n_metrics = strategy.metric_names().size();
  return h;
}

}  // namespace

fs::path default_run_dir(const io::StudyConfig& config) {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  localtime_r(&now, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
  fs::path base = fs::path("runs") / fmt::format("{}-{}", stamp, config.strategy);
  fs::path p = base;
  for (int i = 2; fs::exists(p); ++i) p = fs::path(base.string() + "-" + std::to_string(i));
  return p;
}

std::string config_digest(const io::StudyConfig& config) {
  io::Json j = config.resolved();
  j.erase("executor");
  // Runs of Optuna's TPE were started before presets existed: their digest is over the same
  // settings without the preset's name, so that they resume.
  if (config.search.sampler == "tpe" && config.search.tpe.preset == tpe::Preset::Optuna)
    j["search"]["tpe"].erase("preset");
  // Batch TPE runs of sampler draws version 8 were started before "distinct" existed and resume
  // with it false: their digest is over the same settings without the key. The draws version
  // (run.json) still tells such a run from one of version 9.
  if (config.search.sampler == "tpe" && config.search.tpe.preset == tpe::Preset::Batch &&
      !config.search.tpe.batch.distinct)
    j["search"]["tpe"].erase("distinct");
  Digest d;
  d.add(std::string_view(j.dump()));
  return d.hex();
}

io::StudyConfig load_run_config(const fs::path& dir) {
  const io::Json run = read_json_file(dir / "run.json");
  const fs::path base_dir = run.value("base_dir", std::string("."));
  io::Json config = read_json_file(dir / "config.json");
  // A TPE run whose config names no preset was started before presets existed, with
  // Optuna's TPE (sampler draws versions 1 to 6): it resumes as the "optuna" preset.
  auto search = config.find("search");
  if (search != config.end() && search->value("sampler", "tpe") == "tpe" && run.value("sampler_draws", 1) <= 6) {
    auto tpe = search->find("tpe");
    if (tpe != search->end() && tpe->is_object() && !tpe->contains("preset")) (*tpe)["preset"] = "optuna";
  }
  // A batch TPE run of sampler draws version 8 was started before distinct trials: it resumes
  // with them off, which draws as version 8 did.
  if (search != config.end() && search->value("sampler", "tpe") == "tpe" && run.value("sampler_draws", 1) == 8) {
    auto tpe = search->find("tpe");
    if (tpe != search->end() && tpe->is_object() && tpe->value("preset", "batch") == "batch" &&
        !tpe->contains("distinct"))
      (*tpe)["distinct"] = false;
  }
  return io::parse_study_config(config, (dir / "config.json").string(), base_dir);
}

std::int64_t min_trades_of(const io::StudyConfig& config, const strategies::Strategy& strategy) {
  if (config.objective.min_trades_set) return config.objective.min_trades;
  return strategy.min_trades() > 0 ? strategy.min_trades() : -1;
}

io::Json param_value_json(const tpe::Axis& axis, double value) {
  if (axis.kind == tpe::Axis::Kind::Categorical && !axis.choice_labels.empty())
    return axis.choice_labels.at(static_cast<std::size_t>(value));
  if (axis.kind == tpe::Axis::Kind::Int) return static_cast<std::int64_t>(value);
  return value;
}

RunRecorder::RunRecorder(fs::path dir, const io::StudyConfig& config, const strategies::Strategy& strategy,
                         JournalWriter journal)
    : dir_(std::move(dir)), config_(config), metric_names_(strategy.metric_names()),
      min_trades_(min_trades_of(config, strategy)), journal_(std::move(journal)) {}

std::unique_ptr<RunRecorder> RunRecorder::create(const fs::path& dir, const io::StudyConfig& config,
                                                 const strategies::Strategy& strategy, const std::string& executor) {
  create_run_directory(dir, config, strategy, executor);
  // The journal comes last: a directory with a journal is a resumable run.
  auto journal = JournalWriter::create(dir / "journal.bin", make_header(config, strategy));
  std::unique_ptr<RunRecorder> r(new RunRecorder(dir, config, strategy, std::move(journal)));
  r->open_tables();
  return r;
}

std::unique_ptr<RunRecorder> RunRecorder::resume(const fs::path& dir, const io::StudyConfig& config,
                                                 const strategies::Strategy& strategy, const std::string& executor,
                                                 std::vector<ReplayedBatch>& replay) {
  if (!fs::exists(dir / "journal.bin"))
    throw make_error("{}: no journal.bin: the run never started its first batch, or this is not a run directory",
                     dir.string());
  // Runs made before run.json recorded it drew with version 1.
  const int drawn_with = read_json_file(dir / "run.json").value("sampler_draws", 1);
  if (drawn_with != sampler_draws_version(config))
    throw make_error(
        "{}: refusing to resume: its trials were proposed by sampler draws version {} and this tpeopt's "
        "are version {} (docs/tpe.md); the resumed run would not be the run that was started. Finish it "
        "with the tpeopt that started it, or start a new run",
        dir.string(), drawn_with, sampler_draws_version(config));
  JournalContents journal = read_journal(dir / "journal.bin");
  const JournalHeader expected = make_header(config, strategy);
  if (journal.header.config_digest != expected.config_digest)
    throw make_error(
        "{}: refusing to resume: config.json was changed since the run started (journal {} vs now {}); "
        "start a new run for a new config",
        dir.string(), journal.header.config_digest, expected.config_digest);
  if (journal.header.data_checksums != expected.data_checksums) {
    std::string detail;
    for (std::size_t i = 0; i < std::max(journal.header.data_checksums.size(), expected.data_checksums.size()); ++i) {
      const std::string was = i < journal.header.data_checksums.size() ? journal.header.data_checksums[i] : "(none)";
      const std::string now = i < expected.data_checksums.size() ? expected.data_checksums[i] : "(none)";
      if (was != now) detail += fmt::format(" was {} now {};", was, now);
    }
    throw make_error(
        "{}: refusing to resume: the data changed since the run started:{} a resumed run must read the "
        "same data",
        dir.string(), detail);
  }
  if (journal.header.n_axes != expected.n_axes || journal.header.n_metrics != expected.n_metrics)
    throw make_error("{}: refusing to resume: the journal's shape does not match the config", dir.string());

  auto writer = JournalWriter::open_for_append(dir / "journal.bin", journal.valid_bytes);
  std::unique_ptr<RunRecorder> r(new RunRecorder(dir, config, strategy, std::move(writer)));
  r->replayed_ = journal.records.size();
  r->dropped_torn_tail_ = journal.dropped_torn_tail;
  replay.clear();
  replay.reserve(journal.records.size());
  for (auto& rec : journal.records) replay.push_back(std::move(rec.batch));
  rewrite_run_config(dir, config, executor);
  // trials.csv and timings.csv are rebuilt from the journal as the replayed batches
  // pass through on_batch: rows written after the last journaled batch are dropped.
  r->open_tables();
  return r;
}

void RunRecorder::open_tables() {
  std::string header = "trial,batch";
  for (const auto& a : config_.space.axes) header += "," + a.name;
  header += ",score,violation";
  for (const auto& m : metric_names_) header += "," + m;
  if (config_.search.halving.enabled) header += ",rung,pruned";
  if (config_.has_parts()) header += ",oos_score,oos_violation";  // filled for the top K by finish()
  trials_ = open_table(dir_ / "trials.csv", header + "\n");
  timings_ = open_table(dir_ / "timings.csv",
                        "batch,first_trial,trials,ask_ms,exec_ms,tell_ms,overlap_ms,idle_ms,wall_ms,trials_per_s,"
                        "ask_begin_ms,ask_end_ms,exec_begin_ms,exec_end_ms,tell_begin_ms,tell_end_ms,replayed,busy_ms,"
                        "device_occupancy\n");
}

RunRecorder::~RunRecorder() {
  if (trials_) std::fclose(trials_);
  if (timings_) std::fclose(timings_);
}

bool RunRecorder::stop_requested() { return InterruptGuard::requested(); }

void RunRecorder::on_batch(const BatchRequest& request, const BatchResult& result, const BatchTimings& t) {
  // Durable first: the batch counts as done once its journal record is on disk.
  if (!t.replayed) journal_.append(request, result, t);

  std::string rows;
  const auto& axes = config_.space.axes;
  for (std::size_t i = 0; i < request.n_trials; ++i) {
    rows += fmt::format("{},{}", request.first_trial + i, request.batch_index);
    for (std::size_t a = 0; a < axes.size(); ++a) {
      const double v = request.values[i * request.n_axes + a];
      if (axes[a].kind == tpe::Axis::Kind::Categorical && !axes[a].choice_labels.empty())
        rows += "," + axes[a].choice_labels.at(static_cast<std::size_t>(v));
      else rows += fmt::format(",{}", v);
    }
    rows += fmt::format(",{},{}", result.scores[i], result.violations[i]);
    for (std::size_t m = 0; m < result.n_metrics; ++m)
      rows += fmt::format(",{}", result.metrics[i * result.n_metrics + m]);
    const bool pruned = result.pruned(i);
    if (config_.search.halving.enabled)
      rows += result.rung.empty() ? std::string(",,") : fmt::format(",{},{}", result.rung[i], pruned ? 1 : 0);
    if (config_.has_parts()) rows += ",,";
    rows += '\n';

    const RankKey k{request.first_trial + i, result.scores[i], result.violations[i]};
    if (!pruned && (!best_ || ranks_before(k, *best_, config_.objective.direction))) best_ = k;
  }
  append_or_throw(trials_, rows, dir_ / "trials.csv");

  // Interval times relative to the first evaluated batch's ask, for timeline plots.
  if (!t.replayed && !have_origin_) {
    origin_ = t.ask.begin;
    have_origin_ = true;
  }
  auto rel = [&](Clock::time_point p) {
    return t.replayed ? 0.0 : std::chrono::duration<double, std::milli>(p - origin_).count();
  };
  // The batch's own device interval: with batches that overlap on the device, exec_ms is
  // only the part no earlier batch covers.
  const double batch_ms = t.busy_ms > 0 ? t.busy_ms : t.exec_ms;
  const double rate = batch_ms > 0 ? t.n_trials / (batch_ms / 1000.0) : 0.0;
  // device_occupancy: empty when not measured (the CPU executor, replayed batches).
  const std::string occupancy = std::isnan(t.device_occupancy) ? "" : fmt::format("{:.4f}", t.device_occupancy);
  append_or_throw(timings_,
                  fmt::format("{},{},{},{:.4f},{:.4f},{:.4f},{:.4f},{:.4f},{:.3f},{:.1f},{:.4f},{:.4f},{:.4f},{:.4f},"
                              "{:.4f},{:.4f},{},{:.4f},{}\n",
                              t.batch_index, t.first_trial, t.n_trials, t.ask_ms, t.exec_ms, t.tell_ms, t.overlap_ms,
                              t.idle_ms, t.wall_ms, rate, rel(t.ask.begin), rel(t.ask.end), rel(t.exec.begin),
                              rel(t.exec.end), rel(t.tell.begin), rel(t.tell.end), t.replayed ? 1 : 0, t.busy_ms,
                              occupancy),
                  dir_ / "timings.csv");

  trials_done_ += request.n_trials;
  if (!t.replayed) {
    exec_ms_total_ += t.exec_ms;
    wall_ms_last_ = t.wall_ms;
  }
  write_metrics(t);
}

void RunRecorder::write_metrics(const BatchTimings& t) {
  RunGauges g;
  g.trials_done = trials_done_;
  if (best_ && !std::isnan(best_->score)) g.best_score = best_->score;
  g.executor_busy = wall_ms_last_ > 0 ? exec_ms_total_ / wall_ms_last_ : 0.0;
  g.trials_per_second =
      t.exec_ms > 0 && !t.replayed ? t.n_trials / ((t.ask_ms + t.tell_ms + t.exec_ms - t.overlap_ms) / 1000.0) : 0.0;
  write_metrics_file(dir_, g);
}

io::Json top_to_json(const StudyResult& result, const io::StudyConfig& config,
                     const std::vector<std::string>& metric_names, const HoldoutResult* holdout) {
  io::Json top = io::Json::array();
  std::size_t rank = 1;
  for (const auto& r : result.top()) {
    io::Json params = io::Json::object();
    for (std::size_t a = 0; a < config.space.size(); ++a)
      params[config.space.axes[a].name] = param_value_json(config.space.axes[a], r.params[a]);
    for (const auto& [name, v] : config.fixed) params[name] = v;
    io::Json metrics = io::Json::object();
    for (std::size_t m = 0; m < metric_names.size(); ++m) metrics[metric_names[m]] = r.metrics[m];
    io::Json entry = {{"rank", rank++}, {"trial", r.trial}, {"params", params}};
    entry["score"] = std::isnan(r.score) ? io::Json(nullptr) : io::Json(r.score);
    entry["violation"] = r.violation;
    entry["metrics"] = metrics;
    // A folded strategy's fold scores (strategies/folds.hpp: "fold{k}_score"), in fold order.
    io::Json folds = io::Json::array();
    for (std::size_t m = 0; m < metric_names.size(); ++m)
      if (metric_names[m].starts_with("fold") && metric_names[m].ends_with("_score")) folds.push_back(r.metrics[m]);
    if (!folds.empty()) entry["fold_scores"] = folds;
    if (holdout && rank - 2 < holdout->scores.size()) {
      const std::size_t i = rank - 2;
      io::Json m = io::Json::object();
      for (std::size_t k = 0; k < metric_names.size() && k < holdout->metrics[i].size(); ++k)
        m[metric_names[k]] = holdout->metrics[i][k];
      io::Json oos = io::Json::object();
      oos["score"] = std::isnan(holdout->scores[i]) ? io::Json(nullptr) : io::Json(holdout->scores[i]);
      oos["violation"] = holdout->violations[i];
      oos["metrics"] = m;
      entry["out_of_sample"] = oos;
    }
    top.push_back(entry);
  }
  return top;
}

void RunRecorder::finish(const StudyResult& result, const PipelineSummary& summary, const HoldoutResult* holdout,
                         const SelectionBias* selection) {
  write_file_atomically(dir_ / "top.json", top_to_json(result, config_, metric_names_, holdout).dump(2) + "\n", true);
  if (holdout) fill_holdout_columns(result, *holdout);
  io::Json s = {{"trials", summary.trials_told},      {"batches", summary.batches_told},
                {"complete", !summary.stopped_early}, {"replayed_batches", replayed_},
                {"digest", result.digest_hex()},      {"wall_ms", summary.wall_ms},
                {"ask_ms", summary.ask_ms},           {"exec_ms", summary.exec_ms},
                {"tell_ms", summary.tell_ms},         {"overlap_ms", summary.overlap_ms},
                {"idle_ms", summary.idle_ms}};
  // The run's device occupancy (docs/user-guide.md, "Timings"): null without a measurement.
  const double occupancy = occupancy_fraction(summary.sm_busy_ms, summary.sm_span_ms);
  s["device_occupancy"] = std::isnan(occupancy) ? io::Json(nullptr) : io::Json(occupancy);
  const TrialCounts& c = result.counts();
  s["outcomes"] = {{"feasible", c.feasible},
                   {"too_few_trades", c.infeasible},
                   {"failed", c.failed},
                   {"pruned", c.pruned},
                   {"min_trades", min_trades_ >= 0 ? io::Json(min_trades_) : io::Json(nullptr)}};
  if (holdout)
    s["holdout"] = {{"spearman", std::isnan(holdout->spearman) ? io::Json(nullptr) : io::Json(holdout->spearman)},
                    {"top_k", holdout->scores.size()},
                    {"in_sample", holdout->in_sample_atoms},
                    {"out_of_sample", holdout->out_of_sample_atoms},
                    {"unit", holdout->unit}};
  if (selection) {
    s["selection_bias"] = selection_bias_summary(*selection);
    write_selection_bias(dir_, *selection);
  }
  write_file_atomically(dir_ / "summary.json", s.dump(2) + "\n", true);
}

void RunRecorder::fill_holdout_columns(const StudyResult& result, const HoldoutResult& holdout) {
  // trials.csv's rows end with ",oos_score,oos_violation" left empty; fill the top K's.
  std::map<std::uint64_t, std::size_t> top;
  for (std::size_t i = 0; i < result.top().size() && i < holdout.scores.size(); ++i) top[result.top()[i].trial] = i;
  if (trials_) std::fflush(trials_);
  const fs::path path = dir_ / "trials.csv";
  std::ifstream in(path, std::ios::binary);
  if (!in) throw make_error("{}: cannot reopen to fill the out-of-sample columns", path.string());
  std::string out, line;
  bool header = true;
  while (std::getline(in, line)) {
    if (!header && !line.empty()) {
      const std::uint64_t trial = std::strtoull(line.c_str(), nullptr, 10);
      if (auto it = top.find(trial); it != top.end() && line.size() >= 2 && line.ends_with(",,")) {
        line.resize(line.size() - 2);
        line += fmt::format(",{},{}", holdout.scores[it->second], holdout.violations[it->second]);
      }
    }
    header = false;
    out += line;
    out += '\n';
  }
  in.close();
  write_file_atomically(path, out, true);
  // Later appends (none expected after finish) would go to the replaced file.
  if (trials_) {
    std::fclose(trials_);
    trials_ = std::fopen(path.c_str(), "ab");
  }
}

}  // namespace tpeopt::engine
