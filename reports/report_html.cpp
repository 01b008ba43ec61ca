#include "reports/report_html.hpp"
#include "reports/selection_figures.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>

#include <fmt/format.h>

#include "common/atomic_file.hpp"
#include "common/error.hpp"
#include "engine/study_result.hpp"
#include "reports/report_figures.hpp"
#include "reports/svg_plot.hpp"
#include "study/data_subsets.hpp"

namespace tpeopt::engine {

namespace {

using svg::escape;

constexpr const char* kStyle = R"(
body { font-family: sans-serif; margin: 16px 24px; color: #222; background: #fff; }
h1 { font-size: 20px; margin: 0 0 4px 0; }
h2 { font-size: 16px; margin: 22px 0 6px 0; }
p.note { color: #666; font-size: 13px; margin: 2px 0 8px 0; max-width: 1000px; }
.status { display: inline-block; padding: 1px 8px; border-radius: 3px; font-size: 12px; color: #fff; }
.complete { background: #2ca02c; } .interrupted { background: #d62728; }
table { border-collapse: collapse; font-size: 13px; }
table.summary td { padding: 2px 14px 2px 0; vertical-align: top; }
table.summary td.k { color: #666; }
table.top th, table.top td { border-bottom: 1px solid #ddd; padding: 3px 8px; text-align: right; white-space: nowrap; }
table.top th { background: #f2f2f2; }
table.top th.group { background: #e4e4e4; text-align: center; }
table.top td.text { text-align: left; }
section.figure svg { display: block; }
code { font-size: 12px; }
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

/// The run's state beside the report's title: complete, interrupted, or interrupted before
/// summary.json was written.
std::string status_badge(const ReportTotals& t) {
  if (t.from_summary && t.complete) return R"(<span class="status complete">complete</span>)";
  return t.from_summary ? R"(<span class="status interrupted">interrupted</span>)"
                        : R"(<span class="status interrupted">interrupted: no summary.json</span>)";
}

/// An exact grid's summary: combinations and segments instead of trials and batches.
std::string grid_summary_section(const RunReportData& run) {
  const auto& c = run.config;
  const auto& t = run.totals;
  std::string status = status_badge(t);
  const bool feasible = run.summary.is_object() ? run.summary.value("feasible_found", true)
                                                : !run.top.empty() && run.top[0].value("violation", 0.0) == 0.0;
  if (!feasible && !run.top.empty()) status += R"( <span class="status interrupted">no feasible trial</span>)";
  const std::string label = c.settings->label();
  const auto total = run.summary.is_object() ? run.summary.value("combinations", io::Json(nullptr)) : io::Json(nullptr);
  std::vector<std::pair<std::string, std::string>> rows = {
      {"strategy", escape(c.strategy + (label.empty() ? "" : " / " + label))},
      {"objective", escape(fmt::format("{} ({})", c.objective.name,
                                       c.objective.direction == tpe::Direction::Minimize ? "minimize" : "maximize"))},
      {"search", "exact grid (every combination of the value lists)"},
      {"combinations", escape(fmt::format("{} of {}", t.trials, total.is_null() ? std::string("?") : total.dump()))},
      {"segments", fmt::format("{}", t.batches)},
      {"executor", escape(run.executor)},
      {"digest", t.digest.empty() ? "&ndash; (written at the end of a run)" : "<code>" + escape(t.digest) + "</code>"},
      {"search time", ms(t.exec_ms)},
  };
  std::string html =
      "<section id=\"summary\">\n<h1>tpeopt report: " + escape(run.dir.filename().string()) + " " + status + "</h1>\n";
  html += "<p class=\"note\">" + escape(run.dir.string()) +
          ": an exact grid (grid_journal.bin) keeps each segment's top trials, not every trial: there is no history, "
          "parameter or timeline figure.</p>\n<table class=\"summary\">\n";
  for (std::size_t i = 0; i < rows.size(); i += 2) {
    html += "<tr>";
    for (std::size_t j = i; j < std::min(rows.size(), i + 2); ++j)
      html += "<td class=\"k\">" + rows[j].first + "</td><td>" + rows[j].second + "</td>";
    html += "</tr>\n";
  }
  return html + "</table>\n</section>\n";
}

std::string summary_section(const RunReportData& run) {
  if (run.grid) return grid_summary_section(run);
  const auto& c = run.config;
  const auto& t = run.totals;
  std::string status = status_badge(t);
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
  std::string html =
      "<section id=\"summary\">\n<h1>tpeopt report: " + escape(run.dir.filename().string()) + " " + status + "</h1>\n";
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

constexpr std::size_t kTopRows = 1000;  ///< rows of the top table at most (top_k may be larger)

std::string top_section(const RunReportData& run) {
  std::string html = "<section id=\"top\">\n<h2>Top trials</h2>\n<p class=\"note\">";
  const io::Json& top = run.top;
  html += run.top_from_file
              ? "from top.json"
              : (run.grid ? "top.json not written yet" : "ranked from trials.csv (top.json not written yet)");
  if (top.size() > kTopRows) html += fmt::format("; the first {} of {}", kTopRows, top.size());
  html += escape(fmt::format(". Backtest one with: tpeopt backtest --run {} --top-rank N --trades-out trades.csv",
                             run.dir.string()));
  html += "</p>\n";
  if (top.empty()) return html + "<p>no trials</p>\n</section>\n";
  // Columns: rank, trial, score, violation, the metrics, then the params, each in the
  // order of the first entry that has them.
  std::vector<std::string> metrics, params;
  for (const auto& e : top) {
    if (metrics.empty() && e.contains("metrics") && e["metrics"].is_object())
      for (const auto& [k, v] : e["metrics"].items()) metrics.push_back(k);
    if (params.empty() && e.contains("params") && e["params"].is_object())
      for (const auto& [k, v] : e["params"].items()) params.push_back(k);
  }
  html += "<table class=\"top\">\n";
  html +=
      fmt::format("<tr><th colspan=\"4\"></th>{}{}</tr>\n",
                  metrics.empty() ? "" : fmt::format("<th class=\"group\" colspan=\"{}\">metrics</th>", metrics.size()),
                  params.empty() ? ""
                                 : fmt::format("<th class=\"group\" colspan=\"{}\">parameters</th>", params.size()));
  html += std::string("<tr><th>rank</th><th>") + (run.grid ? "combination" : "trial") +
          "</th><th>score</th><th>violation</th>";
  for (const auto& m : metrics) html += "<th>" + escape(m) + "</th>";
  for (const auto& p : params) html += "<th>" + escape(p) + "</th>";
  html += "</tr>\n";
  const std::size_t n = std::min<std::size_t>(top.size(), kTopRows);
  for (std::size_t i = 0; i < n; ++i) {
    const io::Json& e = top[i];
    auto field = [&](const char* k) { return e.contains(k) ? json_cell(e[k]) : std::string("&ndash;"); };
    auto member = [&](const char* group, const std::string& k) {
      const bool has = e.contains(group) && e[group].is_object() && e[group].contains(k);
      return has ? e[group][k] : io::Json(nullptr);
    };
    html += "<tr><td>" + field("rank") + "</td><td>" + field("trial") + "</td><td>" + field("score") + "</td><td>" +
            field("violation") + "</td>";
    for (const auto& m : metrics) html += "<td>" + json_cell(member("metrics", m)) + "</td>";
    for (const auto& p : params) {
      // Parameters exactly as top.json writes them: what a user copies into a config.
      const io::Json v = member("params", p);
      html += std::string(v.is_string() ? "<td class=\"text\">" : "<td>") +
              (v.is_number_float() ? escape(v.dump()) : json_cell(v)) + "</td>";
    }
    html += "</tr>\n";
  }
  return html + "</table>\n</section>\n";
}

/// The data the run read: as config.json names it, what it holds now (a line per file or
/// symbol) and whether its checksums are the run's.
std::string data_section(const RunReportData& run) {
  const ReportData& d = run.data;
  std::string html = "<section id=\"data\">\n<h2>Data</h2>\n";
  if (d.config_data.is_null() && d.error.empty()) {
    html += "<p class=\"note\">" + escape(fmt::format("strategy {} reads no data", run.config.strategy)) + "</p>\n";
    return html + "</section>\n";
  }
  if (!d.config_data.is_null())
    html += "<p class=\"note\">config.json: <code>" + escape(d.config_data.dump()) + "</code></p>\n";
  if (!d.error.empty()) {
    html += "<p><strong>The data could not be loaded:</strong> " + escape(d.error) + "</p>\n";
  } else {
    html += "<table class=\"top\">\n<tr><th>loaded</th></tr>\n";
    for (const auto& line : d.loaded) html += "<tr><td class=\"text\">" + escape(line) + "</td></tr>\n";
    html += "</table>\n";
  }
  if (!d.checksums_run.empty() && !d.checksums_now.empty()) {
    if (d.checksums_run == d.checksums_now)
      html += "<p class=\"note\">The same data as when the run started (data.json's checksums).</p>\n";
    else
      html += "<p id=\"data-changed\"><strong>The data changed since the run:</strong> " +
              escape(fmt::format("data.json has {}, the files now give {}; the equity curve below is of the data now.",
                                 io::Json(d.checksums_run).dump(), io::Json(d.checksums_now).dump())) +
              "</p>\n";
  }
  return html + "</section>\n";
}

/// The best trial's equity curve, with its trades per line.
std::string equity_section(const RunReportData& run) {
  std::string note;
  if (!run.equity_note.empty()) {
    note = "No equity curve: " + run.equity_note + ".";
  } else {
    std::vector<std::string> parts;
    for (const auto& e : run.equity) {
      const double final = e.points.empty() ? 1.0 : e.points.back().second;
      parts.push_back(fmt::format("{}{} trades, final equity {}", e.name.empty() ? "" : e.name + ": ", e.trades,
                                  svg::format_number(final, 6)));
    }
    note = fmt::format(
        "The best trial (top.json's first) backtested on all the data{}: the compounded equity "
        "prod(1 + return) after each trade, in exit order{}. ",
        run.config.has_parts() ? " (the run scored it on its in-sample part only)" : "",
        run.equity.size() > 8 ? "; the first 8 symbols are drawn" : "");
    for (std::size_t i = 0; i < parts.size(); ++i) note += (i ? "; " : "") + parts[i];
    note += ".";
  }
  return fmt::format(
      "<section class=\"figure\" id=\"fig-equity\">\n<h2>Equity of the best trial</h2>\n<p "
      "class=\"note\">{}</p>\n{}</section>\n",
      escape(note), run.equity_note.empty() ? equity_figure(run) : std::string());
}

/// Hold-out (docs/strategies.md, "Data subsets"): each top trial's in-sample and out-of-sample score side by
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
            json_cell(e.value("trial", io::Json(nullptr))) + "</td><td>" +
            json_cell(e.value("score", io::Json(nullptr))) + "</td><td>" +
            json_cell(o.value("score", io::Json(nullptr))) + "</td><td>" +
            json_cell(o.value("violation", io::Json(nullptr))) + "</td></tr>\n";
  }
  if (rows.empty()) return "";
  const double rho = spearman_correlation(in, out);
  std::string html = "<section id=\"holdout\">\n<h2>Hold-out</h2>\n<p class=\"note\">";
  html +=
      escape(fmt::format("The top trials scored on the out-of-sample part the optimizer never saw. Rank correlation "
                         "of in-sample and out-of-sample scores (Spearman): {}.",
                         std::isnan(rho) ? std::string("undefined") : fmt::format("{:.3f}", rho)));
  html +=
      "</p>\n<table class=\"top\">\n<tr><th>rank</th><th>trial</th><th>in-sample "
      "score</th><th>out-of-sample score</th><th>out-of-sample violation</th></tr>\n";
  return html + rows + "</table>\n</section>\n";
}

}  // namespace

std::string render_report_html(const RunReportData& run, const ReportOptions& options) {
  const std::size_t k = top_trial_count(run.trials.size());
  std::string html = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>tpeopt report: " +
                     escape(run.dir.filename().string()) + "</title>\n<style>" + kStyle + "</style>\n</head>\n<body>\n";
  html += summary_section(run);
  if (!run.grid) {
    html +=
        figure_section("fig-history", "Optimization history",
                       "Score of every trial in trial order, and the best feasible score so far.", history_figure(run));
    html += figure_section("fig-params", "Parameters of the top trials",
                           fmt::format("Where the top {} trials by rank (10%, at least 10) lie, against all {} trials.",
                                       k, run.trials.size()),
                           params_figure(run));
    html +=
        figure_section("fig-timeline", "Pipeline timeline",
                       fmt::format("The last {} evaluated batches: the sampler's ask and tell against the "
                                   "executor's busy time; gaps in the executor lane are idle time. Hover for times.",
                                   options.last_batches),
                       timeline_figure(run, options.last_batches));
  }
  html += top_section(run);
  html += holdout_section(run);
  html += selection_section(run.selection_bias, run.summary);
  html += data_section(run);
  html += equity_section(run);
  html += "</body>\n</html>\n";
  return html;
}

void write_report_file(const std::filesystem::path& path, const std::string& html) {
  write_file_atomically(path, html, false);
}

}  // namespace tpeopt::engine
