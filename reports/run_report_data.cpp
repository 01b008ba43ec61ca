#include "reports/run_report_data.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <numeric>
#include <sstream>

#include <fmt/format.h>

#include "common/error.hpp"
#include "engine/trial_ranking.hpp"
#include "io/csv_rows.hpp"
#include "io/data_log.hpp"
#include "storage/run_directory.hpp"
#include "strategies/symbol_strategy.hpp"
#include "study/backtest.hpp"
#include "study/study.hpp"

namespace tpeopt::engine {

namespace fs = std::filesystem;

namespace {

std::optional<std::string> read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return std::nullopt;
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string read_required(const fs::path& p) {
  auto text = read_text(p);
  if (!text) throw make_error("{}: cannot open (is this a tpeopt run directory?)", p.string());
  return *text;
}

/// A run killed mid-write may leave a torn last line: keep whole lines only.
std::string_view whole_lines(const std::string& text) {
  const auto end = text.rfind('\n');
  return end == std::string::npos ? std::string_view() : std::string_view(text).substr(0, end + 1);
}

/// Numbers as fmt writes them, NaN and infinities included.
double number(const io::CsvRows& rows, std::size_t i) {
  const std::string_view s = rows.field(i);
  if (s == "nan" || s == "-nan" || s == "NaN") return std::numeric_limits<double>::quiet_NaN();
  if (s == "inf") return std::numeric_limits<double>::infinity();
  if (s == "-inf") return -std::numeric_limits<double>::infinity();
  double v = 0.0;
  if (!io::parse_csv_double(s, v)) rows.fail(i, fmt::format("expected a number, got \"{}\"", s));
  return v;
}

std::uint64_t count(const io::CsvRows& rows, std::size_t i) {
  const double v = number(rows, i);
  if (!(v >= 0.0) || v != std::floor(v)) rows.fail(i, fmt::format("expected a count, got \"{}\"", rows.field(i)));
  return static_cast<std::uint64_t>(v);
}

std::size_t column_of(const io::CsvRows& rows, const std::string& name) {
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (rows.field(i) == name) return i;
  rows.fail(0, fmt::format("missing column \"{}\"", name));
}

std::vector<ReportTrial> load_trials(const fs::path& p, const io::StudyConfig& config) {
  const std::string text = read_required(p);
  io::CsvRows rows(whole_lines(text), p.string());
  if (!rows.next()) throw make_error("{}: empty file: no header line", p.string());
  const auto& axes = config.space.axes;
  const std::size_t c_trial = column_of(rows, "trial"), c_batch = column_of(rows, "batch");
  const std::size_t c_score = column_of(rows, "score"), c_violation = column_of(rows, "violation");
  std::vector<std::size_t> c_axes;
  for (const auto& a : axes) c_axes.push_back(column_of(rows, a.name));
  const std::size_t width = rows.size();
  std::size_t c_pruned = width;  // optional: runs with search.halving
  for (std::size_t i = 0; i < width; ++i)
    if (rows.field(i) == "pruned") c_pruned = i;

  std::vector<ReportTrial> trials;
  while (rows.next()) {
    if (rows.size() != width)
      rows.fail(std::min(rows.size(), width), fmt::format("expected {} fields, got {}", width, rows.size()));
    ReportTrial t;
    t.trial = count(rows, c_trial);
    t.batch = count(rows, c_batch);
    t.score = number(rows, c_score);
    t.violation = number(rows, c_violation);
    t.pruned = c_pruned < width && rows.field(c_pruned) == "1";
    for (std::size_t a = 0; a < axes.size(); ++a) {
      const auto& axis = axes[a];
      if (axis.kind == tpe::Axis::Kind::Categorical && !axis.choice_labels.empty()) {
        const auto& labels = axis.choice_labels;
        const auto it = std::find(labels.begin(), labels.end(), rows.field(c_axes[a]));
        if (it == labels.end())
          rows.fail(c_axes[a], fmt::format("\"{}\" is not a choice of {}", rows.field(c_axes[a]), axis.name));
        t.values.push_back(static_cast<double>(it - labels.begin()));
      } else {
        t.values.push_back(number(rows, c_axes[a]));
      }
    }
    trials.push_back(std::move(t));
  }
  return trials;
}

std::vector<ReportBatch> load_batches(const fs::path& p) {
  const std::string text = read_required(p);
  io::CsvRows rows(whole_lines(text), p.string());
  if (!rows.next()) throw make_error("{}: empty file: no header line", p.string());
  const auto c = rows.find_columns({"batch", "first_trial", "trials", "ask_ms", "exec_ms", "tell_ms", "overlap_ms",
                                    "idle_ms", "wall_ms", "ask_begin_ms", "ask_end_ms", "exec_begin_ms", "exec_end_ms",
                                    "tell_begin_ms", "tell_end_ms", "replayed"});
  const std::size_t width = rows.size();
  // Optional: runs recorded before the column existed have no device occupancy.
  std::size_t c_occupancy = width;
  for (std::size_t i = 0; i < width; ++i)
    if (rows.field(i) == "device_occupancy") c_occupancy = i;
  std::vector<ReportBatch> batches;
  while (rows.next()) {
    if (rows.size() != width)
      rows.fail(std::min(rows.size(), width), fmt::format("expected {} fields, got {}", width, rows.size()));
    ReportBatch b;
    b.batch = count(rows, c[0]);
    b.first_trial = count(rows, c[1]);
    b.trials = count(rows, c[2]);
    double* ms[] = {&b.ask_ms,    &b.exec_ms, &b.tell_ms,    &b.overlap_ms, &b.idle_ms,    &b.wall_ms,
                    &b.ask_begin, &b.ask_end, &b.exec_begin, &b.exec_end,   &b.tell_begin, &b.tell_end};
    for (std::size_t i = 0; i < 12; ++i) *ms[i] = number(rows, c[3 + i]);
    b.replayed = count(rows, c[15]) != 0;
    if (c_occupancy < width && !rows.field(c_occupancy).empty()) b.device_occupancy = number(rows, c_occupancy);
    batches.push_back(b);
  }
  return batches;
}

io::Json read_json(const fs::path& p, const std::string& text) { return io::parse_json_text(text, p.string()); }

ReportTotals totals_from_csv(const RunReportData& d) {
  ReportTotals t;
  double occupied = 0.0, measured_ms = 0.0;
  t.trials = d.trials.size();
  t.batches = d.batches.size();
  for (const auto& b : d.batches) {
    if (b.replayed) continue;
    t.ask_ms += b.ask_ms;
    t.exec_ms += b.exec_ms;
    t.tell_ms += b.tell_ms;
    t.overlap_ms += b.overlap_ms;
    t.idle_ms += b.idle_ms;
    t.wall_ms = std::max(t.wall_ms, b.wall_ms);
    if (!std::isnan(b.device_occupancy)) {
      occupied += b.device_occupancy * b.exec_ms;
      measured_ms += b.exec_ms;
    }
  }
  // The batches' figures weighted by their executor time (timings.csv keeps no SM times).
  if (measured_ms > 0) t.device_occupancy = occupied / measured_ms;
  return t;
}

ReportTotals totals_from_summary(const fs::path& p, const io::Json& s) {
  try {
    ReportTotals t;
    t.trials = s.at("trials").get<std::uint64_t>();
    t.batches = s.at("batches").get<std::uint64_t>();
    t.complete = s.at("complete").get<bool>();
    t.digest = s.at("digest").get<std::string>();
    t.wall_ms = s.at("wall_ms").get<double>();
    t.ask_ms = s.at("ask_ms").get<double>();
    t.exec_ms = s.at("exec_ms").get<double>();
    t.tell_ms = s.at("tell_ms").get<double>();
    t.overlap_ms = s.at("overlap_ms").get<double>();
    t.idle_ms = s.at("idle_ms").get<double>();
    // Optional (summaries written before it existed), null when not measured.
    if (const auto it = s.find("device_occupancy"); it != s.end() && it->is_number())
      t.device_occupancy = it->get<double>();
    t.from_summary = true;
    return t;
  } catch (const io::Json::exception& e) {
    throw make_error("{}: not a tpeopt summary: {}", p.string(), e.what());
  }
}

/// top.json's shape, from the trials themselves (metrics are not kept).
io::Json top_from_trials(const RunReportData& d) {
  auto order = rank_trials(d.trials, d.config.objective.direction);
  std::erase_if(order, [&](std::size_t i) { return d.trials[i].pruned; });  // scores on fewer slices
  io::Json top = io::Json::array();
  const std::size_t k = std::min<std::size_t>(order.size(), std::max<std::uint64_t>(d.config.search.top_k, 1));
  for (std::size_t r = 0; r < k; ++r) {
    const ReportTrial& t = d.trials[order[r]];
    io::Json params = io::Json::object();
    for (std::size_t a = 0; a < d.config.space.size(); ++a)
      params[d.config.space.axes[a].name] = param_value_json(d.config.space.axes[a], t.values[a]);
    for (const auto& [name, v] : d.config.fixed) params[name] = v;
    io::Json entry = {{"rank", r + 1}, {"trial", t.trial}, {"params", params}};
    entry["score"] = std::isnan(t.score) ? io::Json(nullptr) : io::Json(t.score);
    entry["violation"] = t.violation;
    top.push_back(entry);
  }
  return top;
}

}  // namespace

std::vector<std::size_t> rank_trials(const std::vector<ReportTrial>& trials, tpe::Direction direction) {
  std::vector<std::size_t> order(trials.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return ranks_before({trials[a].trial, trials[a].score, trials[a].violation},
                        {trials[b].trial, trials[b].score, trials[b].violation}, direction);
  });
  return order;
}

namespace {

/// An exact grid's timings.csv (a row per segment): the totals it gives.
ReportTotals grid_totals_from_csv(const fs::path& p) {
  ReportTotals t;
  const auto text = read_text(p);
  if (!text) return t;
  io::CsvRows rows(whole_lines(*text), p.string());
  if (!rows.next()) return t;
  const auto c = rows.find_columns({"segment", "combinations", "ms"});
  while (rows.next()) {
    t.trials += count(rows, c[1]);
    t.exec_ms += number(rows, c[2]);
    t.batches += 1;
  }
  t.wall_ms = t.exec_ms;
  return t;
}

/// An exact grid's summary.json: combinations as trials, segments as batches, its search
/// time as the executor's (the grid has no sampler).
ReportTotals grid_totals_from_summary(const fs::path& p, const io::Json& s) {
  try {
    ReportTotals t;
    t.trials = s.at("combinations_done").get<std::uint64_t>();
    t.batches = s.at("segments_done").get<std::uint64_t>();
    t.complete = s.at("complete").get<bool>();
    t.digest = s.at("digest").get<std::string>();
    t.exec_ms = s.at("search_ms").get<double>();
    t.wall_ms = t.exec_ms;
    t.from_summary = true;
    return t;
  } catch (const io::Json::exception& e) {
    throw make_error("{}: not a tpeopt grid summary: {}", p.string(), e.what());
  }
}

/// The data the run read, loaded again, and the best trial's trades compounded into equity
/// lines. Nothing here stops the report: what fails is said in the page.
void load_data_and_equity(RunReportData& d) {
  if (auto text = read_text(d.dir / "data.json")) {
    const io::Json j = read_json(d.dir / "data.json", *text);
    for (const auto& c : j.value("checksums", io::Json::array()))
      if (c.is_string()) d.data.checksums_run.push_back(c.get<std::string>());
  }
  const io::Json data = d.config.settings->data_json();
  d.data.config_data = data.empty() ? io::Json(nullptr) : data;
  std::unique_ptr<strategies::Strategy> strategy;
  try {
    io::take_data_loads();  // only this config's loads
    strategy = make_strategy(d.config);
    for (const auto& load : io::take_data_loads()) {
      std::string line = io::describe_data_load(load);
      if (line.rfind("loaded ", 0) == 0) line = line.substr(7);
      d.data.loaded.push_back(std::move(line));
    }
    d.data.checksums_now = strategy->data_checksums();
  } catch (const Error& e) {
    d.data.error = e.what();
    d.equity_note = "the data could not be loaded, so the best trial could not be backtested";
    return;
  }
  const strategies::StrategyEntry& entry = *d.config.entry;
  if (!entry.trades.available()) {
    d.equity_note = fmt::format("strategy {} does not export trades", d.config.strategy);
    return;
  }
  if (d.top.empty() || !d.top[0].is_object() || !d.top[0].contains("params")) {
    d.equity_note = "no trial to backtest";
    return;
  }
  const auto& columns = entry.trades.columns;
  const auto ret = std::find(columns.begin(), columns.end(), "return");
  if (ret == columns.end()) {
    d.equity_note = fmt::format("strategy {}'s trades have no return column", d.config.strategy);
    return;
  }
  const std::size_t r = static_cast<std::size_t>(ret - columns.begin());
  try {
    const std::vector<double> slots =
        slots_from_params(d.top[0].at("params"), *strategy, d.config, (d.dir / "top.json").string() + ", rank 1");
    const strategies::ExportedTrades trades = entry.trades.cpu(*strategy, slots.data());
    const auto* symbols = dynamic_cast<const strategies::SymbolStrategy*>(strategy.get());
    for (std::size_t k = 0; k < trades.size(); ++k) {
      EquitySeries line;
      line.name = symbols && k < symbols->symbol_names().size() ? symbols->symbol_names()[k] : "";
      double equity = 1.0;
      for (const auto& t : trades[k]) {
        if (line.points.empty()) line.points.emplace_back(t.entry_time_ms, 1.0);
        equity *= 1.0 + std::strtod(t.fields.at(r).c_str(), nullptr);
        line.points.emplace_back(t.exit_time_ms, equity);
      }
      line.trades = trades[k].size();
      d.equity.push_back(std::move(line));
    }
  } catch (const Error& e) {
    d.equity.clear();
    d.equity_note = fmt::format("the best trial could not be backtested: {}", e.what());
  }
}

}  // namespace

RunReportData load_run_report_data(const fs::path& dir, bool with_data) {
  if (!fs::is_directory(dir)) throw make_error("{}: not a directory (expected a tpeopt run directory)", dir.string());
  RunReportData d;
  d.dir = dir;
  const fs::path config_path = dir / "config.json";
  const io::Json config_json = read_json(config_path, read_required(config_path));
  // Relative data paths are the config's folder's, which run.json records.
  d.config = fs::exists(dir / "run.json") ? load_run_config(dir)
                                          : io::parse_study_config(config_json, config_path.string(), dir);
  d.executor = config_json.value("executor", std::string("?"));
  d.grid = fs::exists(dir / "grid_journal.bin") && !fs::exists(dir / "trials.csv");

  const fs::path summary_path = dir / "summary.json";
  const auto summary_text = read_text(summary_path);
  if (summary_text) d.summary = read_json(summary_path, *summary_text);
  const fs::path selection_path = dir / "selection_bias.json";
  if (const auto text = read_text(selection_path)) d.selection_bias = read_json(selection_path, *text);
  if (d.grid) {
    d.totals =
        summary_text ? grid_totals_from_summary(summary_path, d.summary) : grid_totals_from_csv(dir / "timings.csv");
  } else {
    d.trials = load_trials(dir / "trials.csv", d.config);
    d.batches = load_batches(dir / "timings.csv");
    // A resumed run's summary counts only the resumed part's times; trials and batches are the whole run's.
    d.totals = summary_text ? totals_from_summary(summary_path, d.summary) : totals_from_csv(d);
  }

  const fs::path top_path = dir / "top.json";
  if (auto text = read_text(top_path)) {
    d.top = read_json(top_path, *text);
    if (!d.top.is_array()) throw make_error("{}: expected an array of trials", top_path.string());
    d.top_from_file = true;
  } else if (!d.grid) {
    d.top = top_from_trials(d);
  }
  if (with_data) load_data_and_equity(d);
  return d;
}

}  // namespace tpeopt::engine
