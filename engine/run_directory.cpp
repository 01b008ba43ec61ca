#include "engine/run_directory.hpp"

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <ctime>
#include <fstream>

#include <fmt/format.h>

#include "common/error.hpp"

namespace tpeopt::engine {

namespace fs = std::filesystem;

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

namespace {

std::FILE* open_for_write(const fs::path& p) {
  std::FILE* f = std::fopen(p.c_str(), "wb");
  if (!f) throw make_error("{}: cannot create the file: {}", p.string(), std::strerror(errno));
  return f;
}

void write_or_throw(std::FILE* f, const std::string& s, const fs::path& p) {
  if (std::fwrite(s.data(), 1, s.size(), f) != s.size() || std::fflush(f) != 0)
    throw make_error("{}: write failed: {}", p.string(), std::strerror(errno));
}

void write_text_file(const fs::path& p, const std::string& text) {
  const fs::path tmp = p.string() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    if (!out) throw make_error("{}: write failed", tmp.string());
  }
  fs::rename(tmp, p);
}

}  // namespace

io::Json param_value_json(const tpe::Axis& axis, double value) {
  if (axis.kind == tpe::Axis::Kind::Categorical && !axis.choice_labels.empty())
    return axis.choice_labels.at(static_cast<std::size_t>(value));
  if (axis.kind == tpe::Axis::Kind::Int) return static_cast<std::int64_t>(value);
  return value;
}

RunDirectoryWriter::RunDirectoryWriter(fs::path dir, const io::StudyConfig& config,
                                       std::vector<std::string> metric_names, const std::string& executor)
    : dir_(std::move(dir)), config_(config), metric_names_(std::move(metric_names)) {
  std::error_code ec;
  if (fs::exists(dir_) && !fs::is_empty(dir_))
    throw make_error("--out {}: the directory exists and is not empty; choose a new one", dir_.string());
  fs::create_directories(dir_, ec);
  if (ec) throw make_error("--out {}: cannot create the directory: {}", dir_.string(), ec.message());

  io::Json resolved = config.resolved();
  resolved["executor"] = executor;
  write_text_file(dir_ / "config.json", resolved.dump(2) + "\n");

  trials_ = open_for_write(dir_ / "trials.csv");
  std::string header = "trial,batch";
  for (const auto& a : config.space.axes) header += "," + a.name;
  header += ",score,violation";
  for (const auto& m : metric_names_) header += "," + m;
  write_or_throw(trials_, header + "\n", dir_ / "trials.csv");

  timings_ = open_for_write(dir_ / "timings.csv");
  write_or_throw(timings_,
                 "batch,first_trial,trials,ask_ms,exec_ms,tell_ms,overlap_ms,idle_ms,wall_ms,trials_per_s,ask_begin_ms,"
                 "ask_end_ms,exec_begin_ms,exec_end_ms,tell_begin_ms,tell_end_ms\n",
                 dir_ / "timings.csv");
}

RunDirectoryWriter::~RunDirectoryWriter() {
  if (trials_) std::fclose(trials_);
  if (timings_) std::fclose(timings_);
}

void RunDirectoryWriter::on_batch(const BatchRequest& request, const BatchResult& result, const BatchTimings& t) {
  std::string rows;
  const auto& axes = config_.space.axes;
  for (std::size_t i = 0; i < request.n_trials; ++i) {
    rows += fmt::format("{},{}", request.first_trial + i, request.batch_index);
    for (std::size_t a = 0; a < axes.size(); ++a) {
      const double v = request.values[i * request.n_axes + a];
      if (axes[a].kind == tpe::Axis::Kind::Categorical && !axes[a].choice_labels.empty())
        rows += "," + axes[a].choice_labels.at(static_cast<std::size_t>(v));
      else
        rows += fmt::format(",{}", v);
    }
    rows += fmt::format(",{},{}", result.scores[i], result.violations[i]);
    for (std::size_t m = 0; m < result.n_metrics; ++m) rows += fmt::format(",{}", result.metrics[i * result.n_metrics + m]);
    rows += '\n';
  }
  write_or_throw(trials_, rows, dir_ / "trials.csv");

  // Interval ends relative to the first batch's ask, for timeline plots.
  if (!have_origin_) {
    origin_ = t.ask.begin;
    have_origin_ = true;
  }
  auto rel = [&](Clock::time_point p) {
    return p.time_since_epoch().count() == 0 ? 0.0 : std::chrono::duration<double, std::milli>(p - origin_).count();
  };
  const double rate = t.exec_ms > 0 ? t.n_trials / (t.exec_ms / 1000.0) : 0.0;
  write_or_throw(timings_,
                 fmt::format("{},{},{},{:.4f},{:.4f},{:.4f},{:.4f},{:.4f},{:.3f},{:.1f},{:.4f},{:.4f},{:.4f},{:.4f},{:.4f},{:.4f}\n",
                             t.batch_index, t.first_trial, t.n_trials, t.ask_ms, t.exec_ms, t.tell_ms, t.overlap_ms,
                             t.idle_ms, t.wall_ms, rate, rel(t.ask.begin), rel(t.ask.end), rel(t.exec.begin),
                             rel(t.exec.end), rel(t.tell.begin), rel(t.tell.end)),
                 dir_ / "timings.csv");
}

io::Json top_to_json(const StudyResult& result, const io::StudyConfig& config,
                     const std::vector<std::string>& metric_names) {
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
    top.push_back(entry);
  }
  return top;
}

void RunDirectoryWriter::finish(const StudyResult& result, const PipelineSummary& summary) {
  write_text_file(dir_ / "top.json", top_to_json(result, config_, metric_names_).dump(2) + "\n");
  io::Json s = {{"trials", summary.trials_told},
                {"batches", summary.batches_told},
                {"stopped_early", summary.stopped_early},
                {"digest", result.digest_hex()},
                {"wall_ms", summary.wall_ms},
                {"ask_ms", summary.ask_ms},
                {"exec_ms", summary.exec_ms},
                {"tell_ms", summary.tell_ms},
                {"overlap_ms", summary.overlap_ms},
                {"idle_ms", summary.idle_ms}};
  write_text_file(dir_ / "summary.json", s.dump(2) + "\n");
}

}  // namespace tpeopt::engine
