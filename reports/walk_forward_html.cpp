#include "reports/walk_forward_html.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "reports/svg_plot.hpp"
#include "storage/walk_forward.hpp"

namespace tpeopt::engine {

std::string render_walk_forward_html(const io::Json& table, const std::string& title) {
  using svg::escape;
  const auto cell = walk_forward_cell;
  const io::Json& folds = table.at("fold_results");
  std::string html =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>tpeopt "
      "walk-forward: " +
      escape(title) +
      "</title>\n<style>body{font-family:sans-serif;margin:24px}table{border-collapse:collapse}"
      "th,td{border-bottom:1px solid #ddd;padding:3px 8px;text-align:right}th{background:#f2f2f2}"
      "</style>\n</head>\n<body>\n<h1>Walk-forward: " +
      escape(title) + "</h1>\n";
  html += fmt::format(
      "<p>{} folds; each optimizes on its window and scores its best trials on the next window "
      "({}). Each fold's own report: <code>tpeopt report DIR/fold-N</code>.</p>\n",
      folds.size(), escape(table.value("unit", std::string())));
  // Figure: best trial's in-sample and out-of-sample score per fold.
  std::vector<double> ins, outs;
  double lo = 0, hi = 0;
  for (const auto& f : folds) {
    const auto num = [](const io::Json& v) { return v.is_number() ? v.get<double>() : NAN; };
    ins.push_back(num(f["in_sample_score"]));
    outs.push_back(num(f["out_of_sample_score"]));
    for (double v : {ins.back(), outs.back()})
      if (!std::isnan(v)) lo = std::min(lo, v), hi = std::max(hi, v);
  }
  svg::Canvas c(640, 300, "best trial's in-sample and out-of-sample score per fold");
  const double left = 60, right = 620, top = 20, bottom = 250;
  const svg::Scale y(lo, hi, bottom, top);
  svg::y_axis(c, y, left, right, svg::nice_ticks(lo, hi), "score");
  const double slot = (right - left) / std::max<std::size_t>(1, folds.size());
  for (std::size_t i = 0; i < folds.size(); ++i) {
    const double x = left + slot * static_cast<double>(i);
    const double bw = slot * 0.35;
    if (!std::isnan(ins[i]))
      c.rect(x + slot * 0.12, std::min(y(ins[i]), y(0)), bw, std::abs(y(ins[i]) - y(0)), "#4c78a8");
    if (!std::isnan(outs[i]))
      c.rect(x + slot * 0.12 + bw, std::min(y(outs[i]), y(0)), bw, std::abs(y(outs[i]) - y(0)), "#f58518");
    c.text(x + slot / 2, bottom + 16, fmt::format("fold {}", i + 1), "middle", 11);
  }
  double lx = svg::legend_entry(c, left, 285, svg::Swatch::Box, "#4c78a8", "in-sample (best trial)");
  svg::legend_entry(c, lx + 16, 285, svg::Swatch::Box, "#f58518", "out-of-sample (same trial)");
  html += "<section id=\"fig-folds\">\n<h2>Best trial per fold</h2>\n" + c.finish() + "</section>\n";
  html +=
      "<section id=\"folds\">\n<h2>Folds</h2>\n<table>\n<tr><th>fold</th><th>in-sample window</th><th>out-of-sample "
      "window</th><th>complete</th><th>best trial</th><th>in-sample score</th><th>out-of-sample score</th>"
      "<th>Spearman (top K)</th></tr>\n";
  for (const auto& f : folds) {
    auto window = [](const io::Json& w) {
      return fmt::format("{} .. {} ({})", w.value("first", std::string()), w.value("last", std::string()),
                         w.value("atoms", 0));
    };
    html += fmt::format(
        "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}"
        "</td></tr>\n",
        f.value("fold", 0), escape(window(f["in_sample"])), escape(window(f["out_of_sample"])),
        f.value("complete", false) ? "yes" : "no", escape(cell(f["best_trial"])), escape(cell(f["in_sample_score"])),
        escape(cell(f["out_of_sample_score"])), escape(cell(f["spearman"])));
  }
  html += "</table>\n</section>\n</body>\n</html>\n";
  return html;
}

}  // namespace tpeopt::engine
