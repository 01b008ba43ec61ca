#include "engine/report_html.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>

#include <fmt/format.h>

#include "common/atomic_file.hpp"
#include "common/error.hpp"
#include "engine/data_subsets.hpp"
#include "engine/report_figures.hpp"
#include "engine/study_result.hpp"
#include "engine/svg_plot.hpp"

namespace tpeopt::engine {

namespace {

using svg::escape;

constexpr const char* kStyle = R"(
body { font-family: sans-serif; margin: 16px 24px; color: #222; background: #fff; max-width: 1000px; }
h1 { font-size: 20px; margin: 0 0 4px 0; }
h2 { font-size: 16px; margin: 22px 0 6px 0; }
p.note { color: #666; font-size: 13px; margin: 2px 0 8px 0; }
.status { display: inline-block; padding: 1px 8px; border-radius: 3px; font-size: 12px; color: #fff; }
.complete { background: #2ca02c; } .interrupted { background: #d62728; }
table { border-collapse: collapse; font-size: 13px; }
table.summary td { padding: 2px 14px 2px 0; vertical-align: top; }
table.summary td.k { color: #666; }
table.top th, table.top td { border-bottom: 1px solid #ddd; padding: 3px 8px; text-align: right; }
table.top th { background: #f2f2f2; }
table.top td.text { text-align: left; }
section.figure svg { display: block; }
code { font-size: 12px; }
div.scroll { overflow-x: auto; }
)";

std::string ms(double v) {
  if (v >= 10000) return fmt::format("{:.2f} s", v / 1000.0);
  return fmt::format("{:.1f} ms", v);
}

std::string json_cell(const io::Json& v) {
  if (v.is_null()) return "&ndash;";
  if (v.is_string()) return escape(v.get<std::string>());
  if (v.is_number_float()) return escape(svg::format_number(v.get<double>(), 6));
  return escape(v.dump());
}

std::string summary_section(const RunReportData& run) {
  const auto& c = run.config;
  const auto& t = run.totals;
  const bool complete = t.from_summary && t.complete;
  std::string status =
      complete ? R"(<span class="status complete">complete</span>)"
               : (t.from_summary ? R"(<span class="status interrupted">interrupted</span>)"
                                 : R"(<span class="status interrupted">interrupted: no summary.json</span>)");
  TrialCounts counts;
  for (const ReportTrial& trial : run.trials) counts.add(trial.score, trial.violation, trial.pruned);
  const bool none_feasible = !run.trials.empty() && counts.feasible == 0;
  if (none_feasible) status += R"( <span class="status interrupted">no feasible trial</span>)";
  const std::int64_t min_trades = c.objective.min_trades_set ? c.objective.min_trades : -1;
  const std::string label = c.settings->label();
  std::string strategy = c.strategy + (label.empty() ? "" : " / " + label);
  std::vector<std::pair<std::string, std::string>> rows = {
      {"strategy", escape(strategy)},
      {"objective", escape(fmt::format("{} ({})", c.objective.name,
                                       c.objective.direction == tpe::Direction::Minimize ? "minimize" : "maximize"))},
      {"sampler", escape(fmt::format("{}, seed {}", c.search.sampler, c.search.seed))},
      {"trials", fmt::format("{} of {} ({} batches of {}, depth {})", run.trials.size(), c.search.trials,
                             run.batches.size(), c.search.batch, c.search.depth)},
      {"executor", escape(run.executor)},
      {"digest", t.digest.empty() ? "&ndash; (written at the end of a run)" : "<code>" + escape(t.digest) + "</code>"},
      {"wall time", ms(t.wall_ms)},
      {"ask / executor / tell", fmt::format("{} / {} / {}", ms(t.ask_ms), ms(t.exec_ms), ms(t.tell_ms))},
      {"overlap / idle", fmt::format("{} / {}", ms(t.overlap_ms), ms(t.idle_ms))},
      {"executor busy", t.wall_ms > 0 ? fmt::format("{:.1f}% of wall time", 100.0 * t.exec_ms / t.wall_ms) : "&ndash;"},
      {"device occupancy", std::isnan(t.device_occupancy)
                               ? "&ndash; (not measured: CPU executor, or a strategy whose kernels carry no probe)"
                               : fmt::format("{:.1f}% of SM time", 100.0 * t.device_occupancy)},
      {"trials by outcome", escape(describe_counts(counts, min_trades))},
  };
  std::string html = "<section id=\"summary\">\n<h1>tpeopt report: " + escape(run.dir.filename().string()) + " " +
                     status + "</h1>\n";
  html += "<p class=\"note\">" + escape(run.dir.string()) +
          (t.from_summary ? "" : ": totals computed from timings.csv") + "</p>\n<table class=\"summary\">\n";
  for (std::size_t i = 0; i < rows.size(); i += 2) {
    html += "<tr>";
    for (std::size_t j = i; j < std::min(rows.size(), i + 2); ++j)
      html += "<td class=\"k\">" + rows[j].first + "</td><td>" + rows[j].second + "</td>";
    html += "</tr>\n";
  }
  html += "</table>\n";
  if (none_feasible)
    html += "<p id=\"no-feasible\"><strong>No feasible trial:</strong> " +
            escape(fmt::format("none of the {} trials met the study's constraints ({}); the top trials below are the "
                               "closest misses, not results. Lower objective.min_trades, or change the parameter "
                               "ranges or the data.",
                               run.trials.size(), describe_counts(counts, min_trades))) +
            "</p>\n";
  return html + "</section>\n";
}

std::string figure_section(const char* id, const std::string& title, const std::string& note, const std::string& svg) {
  return fmt::format("<section class=\"figure\" id=\"{}\">\n<h2>{}</h2>\n<p class=\"note\">{}</p>\n{}</section>\n", id,
                     escape(title), escape(note), svg);
}

std::string top_section(const RunReportData& run) {
  std::string html = "<section id=\"top\">\n<h2>Top trials</h2>\n<p class=\"note\">";
  html += run.top_from_file ? "from top.json" : "ranked from trials.csv (top.json not written yet)";
  html += "</p>\n";
  const io::Json& top = run.top;
  if (top.empty()) return html + "<p>no trials</p>\n</section>\n";
  // Columns: rank, trial, score, violation, then the params of the first entry in order.
  std::vector<std::string> params;
  if (top[0].contains("params") && top[0]["params"].is_object())
    for (const auto& [k, v] : top[0]["params"].items()) params.push_back(k);
  html += "<div class=\"scroll\"><table class=\"top\">\n<tr><th>rank</th><th>trial</th><th>score</th><th>violation</th>";
  for (const auto& p : params) html += "<th>" + escape(p) + "</th>";
  html += "</tr>\n";
  const std::size_t n = std::min<std::size_t>(top.size(), 10);
  for (std::size_t i = 0; i < n; ++i) {
    const io::Json& e = top[i];
    auto field = [&](const char* k) { return e.contains(k) ? json_cell(e[k]) : std::string("&ndash;"); };
    html += "<tr><td>" + field("rank") + "</td><td>" + field("trial") + "</td><td>" + field("score") + "</td><td>" +
            field("violation") + "</td>";
    for (const auto& p : params) {
      const bool has = e.contains("params") && e["params"].is_object() && e["params"].contains(p);
      const io::Json v = has ? e["params"][p] : io::Json(nullptr);
      html += std::string(v.is_string() ? "<td class=\"text\">" : "<td>") + json_cell(v) + "</td>";
    }
    html += "</tr>\n";
  }
  return html + "</table></div>\n</section>\n";
}

/// Hold-out (issue [subsets]): each top trial's in-sample and out-of-sample score side by
/// side (from top.json's "out_of_sample"), and their Spearman rank correlation.
std::string holdout_section(const RunReportData& run) {
  const io::Json& top = run.top;
  std::vector<double> in, out;
  std::string rows;
  for (const auto& e : top) {
    if (!e.contains("out_of_sample")) continue;
    const io::Json& o = e["out_of_sample"];
    auto num = [](const io::Json& v) { return v.is_number() ? v.get<double>() : NAN; };
    const double a = e.contains("score") ? num(e["score"]) : NAN, b = o.contains("score") ? num(o["score"]) : NAN;
    if (!std::isnan(a) && !std::isnan(b)) {
      in.push_back(a);
      out.push_back(b);
    }
    rows += "<tr><td>" + json_cell(e.value("rank", io::Json(nullptr))) + "</td><td>" +
            json_cell(e.value("trial", io::Json(nullptr))) + "</td><td>" + json_cell(e.value("score", io::Json(nullptr))) +
            "</td><td>" + json_cell(o.value("score", io::Json(nullptr))) + "</td><td>" +
            json_cell(o.value("violation", io::Json(nullptr))) + "</td></tr>\n";
  }
  if (rows.empty()) return "";
  const double rho = spearman_correlation(in, out);
  std::string html = "<section id=\"holdout\">\n<h2>Hold-out</h2>\n<p class=\"note\">";
  html += escape(fmt::format("The top trials scored on the out-of-sample part the optimizer never saw. Rank correlation "
                             "of in-sample and out-of-sample scores (Spearman): {}.",
                             std::isnan(rho) ? std::string("undefined") : fmt::format("{:.3f}", rho)));
  html += "</p>\n<div class=\"scroll\"><table class=\"top\">\n<tr><th>rank</th><th>trial</th><th>in-sample "
          "score</th><th>out-of-sample score</th><th>out-of-sample violation</th></tr>\n";
  return html + rows + "</table></div>\n</section>\n";
}

}  // namespace

std::string render_report_html(const RunReportData& run, const ReportOptions& options) {
  const std::size_t k = top_trial_count(run.trials.size());
  std::string html = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>tpeopt report: " +
                     escape(run.dir.filename().string()) + "</title>\n<style>" + kStyle + "</style>\n</head>\n<body>\n";
  html += summary_section(run);
  html += figure_section("fig-history", "Optimization history",
                         "Score of every trial in trial order, and the best feasible score so far.",
                         history_figure(run));
  html += figure_section("fig-params", "Parameters of the top trials",
                         fmt::format("Where the top {} trials by rank (10%, at least 10) lie, against all {} trials.", k,
                                     run.trials.size()),
                         params_figure(run));
  html += figure_section("fig-timeline", "Pipeline timeline",
                         fmt::format("The last {} evaluated batches: the sampler's ask and tell against the "
                                     "executor's busy time; gaps in the executor lane are idle time. Hover for times.",
                                     options.last_batches),
                         timeline_figure(run, options.last_batches));
  html += top_section(run);
  html += holdout_section(run);
  html += "</body>\n</html>\n";
  return html;
}

void write_report_file(const std::filesystem::path& path, const std::string& html) {
  write_file_atomically(path, html, false);
}

}  // namespace tpeopt::engine
