#include "storage/walk_forward.hpp"

#include <cmath>
#include <fstream>
#include <optional>
#include <sstream>

#include <fmt/format.h>

#include "common/atomic_file.hpp"
#include "common/error.hpp"
#include "common/floor_div.hpp"
#include "study/data_subsets.hpp"
#include "reports/svg_plot.hpp"
#include "io/csv_rows.hpp"

namespace tpeopt::engine {

namespace fs = std::filesystem;

std::string date_of(std::int64_t seconds) {
  const std::int64_t days = floor_div(seconds, 86400);
  std::int64_t y;
  unsigned m, d;
  io::civil_from_days(days, y, m, d);
  return fmt::format("{:04}-{:02}-{:02}", y, m, d);
}

io::StudyConfig fold_config(const io::StudyConfig& parent, std::uint64_t fold) {
  TPEOPT_ASSERT(parent.walk_forward.enabled() && fold < parent.walk_forward.folds, "fold_config: no such fold");
  io::StudyConfig c = parent;
  c.walk_forward.fold = static_cast<std::int64_t>(fold);
  return c;
}

fs::path fold_dir(const fs::path& parent_dir, std::uint64_t fold) { return parent_dir / fmt::format("fold-{}", fold + 1); }

namespace {

std::optional<io::Json> read_json_if(const fs::path& p) {
  std::ifstream in(p);
  if (!in) return std::nullopt;
  std::stringstream s;
  s << in.rdbuf();
  io::Json j = io::Json::parse(s.str(), nullptr, false);
  if (j.is_discarded()) return std::nullopt;
  return j;
}

io::Json window_json(const strategies::Strategy& s, const std::vector<AtomRange>& w) {
  return {{"first", date_of(s.atom_time_s(w.front().begin))},
          {"last", date_of(s.atom_time_s(w.back().end - 1))},
          {"atoms", atom_count(w)}};
}

std::string cell(const io::Json& v) {
  if (v.is_null()) return "";
  if (v.is_number_float()) return fmt::format("{}", v.get<double>());
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

}  // namespace

io::Json write_walk_forward_table(const fs::path& parent_dir, const io::StudyConfig& parent,
                                  const strategies::Strategy& strategy) {
  const auto windows = walk_forward_windows(strategy, parent.walk_forward);
  io::Json folds = io::Json::array();
  std::string csv =
      "fold,in_first,in_last,in_atoms,out_first,out_last,out_atoms,complete,best_trial,in_sample_score,"
      "out_of_sample_score,spearman\n";
  for (std::uint64_t f = 0; f < parent.walk_forward.folds; ++f) {
    io::Json row = {{"fold", f + 1},
                    {"dir", fold_dir(parent_dir, f).filename().string()},
                    {"in_sample", window_json(strategy, windows[f])},
                    {"out_of_sample", window_json(strategy, windows[f + 1])},
                    {"complete", false},
                    {"best_trial", nullptr},
                    {"in_sample_score", nullptr},
                    {"out_of_sample_score", nullptr},
                    {"spearman", nullptr}};
    const auto summary = read_json_if(fold_dir(parent_dir, f) / "summary.json");
    const auto top = read_json_if(fold_dir(parent_dir, f) / "top.json");
    if (summary && top) {
      row["complete"] = summary->value("complete", false);
      if (summary->contains("holdout")) row["spearman"] = (*summary)["holdout"].value("spearman", io::Json(nullptr));
      if (top->is_array() && !top->empty()) {
        const io::Json& best = (*top)[0];
        row["best_trial"] = best.value("trial", io::Json(nullptr));
        row["in_sample_score"] = best.value("score", io::Json(nullptr));
        if (best.contains("out_of_sample")) row["out_of_sample_score"] = best["out_of_sample"].value("score", io::Json(nullptr));
      }
    }
    csv += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{}\n", f + 1, cell(row["in_sample"]["first"]),
                       cell(row["in_sample"]["last"]), cell(row["in_sample"]["atoms"]),
                       cell(row["out_of_sample"]["first"]), cell(row["out_of_sample"]["last"]),
                       cell(row["out_of_sample"]["atoms"]), row["complete"].get<bool>() ? 1 : 0,
                       cell(row["best_trial"]), cell(row["in_sample_score"]), cell(row["out_of_sample_score"]),
                       cell(row["spearman"]));
    folds.push_back(row);
  }
  io::Json table = {{"folds", parent.walk_forward.folds},
                    {"unit", strategy.atoms_are_slices() ? "trading days" : "bars"},
                    {"fold_results", folds}};
  write_file_atomically(parent_dir / "walk_forward.json", table.dump(2) + "\n", true);
  write_file_atomically(parent_dir / "walk_forward.csv", csv, true);
  return table;
}

std::string render_walk_forward_html(const io::Json& table, const std::string& title) {
  using svg::escape;
  const io::Json& folds = table.at("fold_results");
  std::string html = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>tpeopt "
                     "walk-forward: " +
                     escape(title) +
                     "</title>\n<style>body{font-family:sans-serif;margin:24px}table{border-collapse:collapse}"
                     "th,td{border-bottom:1px solid #ddd;padding:3px 8px;text-align:right}th{background:#f2f2f2}"
                     "</style>\n</head>\n<body>\n<h1>Walk-forward: " +
                     escape(title) + "</h1>\n";
  html += fmt::format("<p>{} folds; each optimizes on its window and scores its best trials on the next window "
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
  html += "<section id=\"folds\">\n<h2>Folds</h2>\n<table>\n<tr><th>fold</th><th>in-sample window</th><th>out-of-sample "
          "window</th><th>complete</th><th>best trial</th><th>in-sample score</th><th>out-of-sample score</th>"
          "<th>Spearman (top K)</th></tr>\n";
  for (const auto& f : folds) {
    auto window = [](const io::Json& w) {
      return fmt::format("{} .. {} ({})", w.value("first", std::string()), w.value("last", std::string()),
                         w.value("atoms", 0));
    };
    html += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}"
                        "</td></tr>\n",
                        f.value("fold", 0), escape(window(f["in_sample"])), escape(window(f["out_of_sample"])),
                        f.value("complete", false) ? "yes" : "no", escape(cell(f["best_trial"])),
                        escape(cell(f["in_sample_score"])), escape(cell(f["out_of_sample_score"])),
                        escape(cell(f["spearman"])));
  }
  html += "</table>\n</section>\n</body>\n</html>\n";
  return html;
}

}  // namespace tpeopt::engine
