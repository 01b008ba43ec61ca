// [bench] `tpeopt report RUN_DIR`: one self-contained HTML page (no network, no external
// scripts) whose three figures render: each is screenshotted alone by headless Chromium
// (Debian's `chromium`, installed by scripts/setup.sh; its absence fails the test) and a
// figure whose screenshot has no data pixels fails. Interrupted runs get a report too;
// missing or corrupt files are named.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "io/json_fields.hpp"
#include "config/study_config.hpp"
#include "reports/run_report_data.hpp"
#include "support/files.hpp"
#include "support/paths.hpp"
#include "support/process.hpp"
#include "support/trade_filter_fixture.hpp"

using namespace tpeopt;
namespace fs = std::filesystem;

namespace {

using testing::read_text;
using testing::run_cli;

std::string write_config(const std::string& dir) {
  io::Json j = {{"strategy", "functions"},
                {"function", "styblinski_tang"},
                {"search", {{"sampler", "tpe"}, {"trials", 600}, {"batch", 30}, {"depth", 2}, {"seed", 5}}}};
  io::Json params = io::Json::object();
  params["x0"] = {{"type", "float"}, {"low", -5.0}, {"high", 5.0}};
  params["x1"] = {{"type", "float"}, {"low", 0.01}, {"high", 5.0}, {"log", true}};
  params["x2"] = {{"type", "int"}, {"low", -5}, {"high", 5}};
  params["x3"] = {{"values", {-2.5, 0.0, 2.5}}};
  j["params"] = params;
  const std::string path = dir + "/study.json";
  std::ofstream(path) << j.dump(2);
  return path;
}

/// The executable `name` on PATH, or "".
std::string find_program(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/local/bin:/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const fs::path p = fs::path(dir.empty() ? "." : dir) / name;
    if (::access(p.c_str(), X_OK) == 0) return p.string();
  }
  return "";
}

/// A copy of the report that shows only the svg of the element `id` (everything else hidden).
std::string one_figure_page(const std::string& html, const std::string& id) {
  const std::string style = "<style>body{margin:0 !important}body>*:not(#" + id + "){display:none !important}#" + id +
                            ">:not(svg){display:none !important}</style>";
  std::string page = html;
  const auto head_end = page.find("</head>");
  REQUIRE(head_end != std::string::npos);
  page.insert(head_end, style);
  return page;
}

struct Pixels {
  long width = 0, height = 0, nonbackground = 0, colored = 0;
};

/// Headless Chromium screenshot of `page` (1000x900 window), decoded by tests/apps/png_pixels.py.
Pixels screenshot(const std::string& chromium, const std::string& python, const fs::path& page, const fs::path& png) {
  const auto shot = testing::run_process({chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                                          "--no-first-run", "--disable-extensions", "--window-size=1000,900",
                                          "--screenshot=" + png.string(), "file://" + page.string()});
  INFO(shot.output);
  REQUIRE(shot.exit_code == 0);
  REQUIRE(fs::exists(png));
  const auto count = testing::run_process({python, testing::source_dir() + "/tests/apps/png_pixels.py", png.string()});
  INFO(count.output);
  REQUIRE(count.exit_code == 0);
  Pixels px;
  std::istringstream(count.output) >> px.width >> px.height >> px.nonbackground >> px.colored;
  REQUIRE(px.width == 1000);
  return px;
}

}  // namespace

TEST_CASE("tpeopt report: a self-contained page whose three figures render in headless Chromium", "[cpu][report]") {
  const std::string tmp = testing::make_temp_dir("report");
  const std::string run_dir = tmp + "/run";
  const auto run = run_cli({"run", "-c", write_config(tmp), "--executor", "cpu", "-q", "--out", run_dir});
  INFO(run.output);
  REQUIRE(run.exit_code == 0);

  const auto report = run_cli({"report", run_dir});
  INFO(report.output);
  REQUIRE(report.exit_code == 0);
  const fs::path html_path = fs::path(run_dir) / "report.html";
  REQUIRE(fs::exists(html_path));
  REQUIRE(testing::temporaries_beside(html_path).empty());
  const std::string html = read_text(html_path);

  // Self-contained: nothing fetched from anywhere.
  CHECK(html.find("http://") == std::string::npos);
  CHECK(html.find("https://") == std::string::npos);
  CHECK(html.find("<script src") == std::string::npos);
  CHECK(html.find("<link") == std::string::npos);
  CHECK(html.find("@import") == std::string::npos);
  const std::vector<std::string> figures = {"fig-history", "fig-params", "fig-timeline"};
  for (const auto& id : figures) {
    CAPTURE(id);
    const auto at = html.find("id=\"" + id + "\"");
    REQUIRE(at != std::string::npos);
    CHECK(html.find("<svg", at) < html.find("</section>", at));
  }
  CHECK(html.find("status complete\">complete<") != std::string::npos);

  // --out and --last-batches
  const std::string other = tmp + "/other.html";
  const auto custom = run_cli({"report", run_dir, "--out", other, "--last-batches", "5"});
  INFO(custom.output);
  REQUIRE(custom.exit_code == 0);
  CHECK(read_text(other).find("The last 5 evaluated batches") != std::string::npos);

  // Each figure alone in headless Chromium: it must draw data (saturated pixels: the
  // series are colored, axes and text grey), not just a frame.
  const std::string chromium = find_program("chromium");
  INFO("Debian's chromium is required for this test: scripts/setup.sh installs it");
  REQUIRE_FALSE(chromium.empty());
  const std::string python = find_program("python3");
  REQUIRE_FALSE(python.empty());
  for (const auto& id : figures) {
    CAPTURE(id);
    const fs::path page = fs::path(tmp) / (id + ".html"), png = fs::path(tmp) / (id + ".png");
    std::ofstream(page) << one_figure_page(html, id);
    const Pixels px = screenshot(chromium, python, page, png);
    CAPTURE(px.nonbackground, px.colored);
    CHECK(px.nonbackground >= 5000);
    CHECK(px.colored >= 1000);
  }
  // The check can fail: a page showing no figure has nothing to count.
  const fs::path empty_page = fs::path(tmp) / "none.html", empty_png = fs::path(tmp) / "none.png";
  std::ofstream(empty_page) << one_figure_page(html, "fig-none");
  const Pixels none = screenshot(chromium, python, empty_page, empty_png);
  CHECK(none.nonbackground == 0);
  CHECK(none.colored == 0);
  if (!std::getenv("TPEOPT_KEEP_REPORT")) fs::remove_all(tmp);
}

TEST_CASE("tpeopt report: an interrupted run is reported from its CSVs, bad files are named", "[cpu][report]") {
  const std::string tmp = testing::make_temp_dir("report-int");
  const std::string run_dir = tmp + "/run";
  const auto run = run_cli({"run", "-c", write_config(tmp), "--executor", "cpu", "-q", "--out", run_dir});
  INFO(run.output);
  REQUIRE(run.exit_code == 0);

  // As after a SIGKILL: no summary.json or top.json, a torn last line in both CSVs.
  fs::remove(fs::path(run_dir) / "summary.json");
  fs::remove(fs::path(run_dir) / "top.json");
  std::ofstream(fs::path(run_dir) / "trials.csv", std::ios::app) << "600,20,1.5";
  std::ofstream(fs::path(run_dir) / "timings.csv", std::ios::app) << "20,600,30,1.";
  const auto report = run_cli({"report", run_dir});
  INFO(report.output);
  REQUIRE(report.exit_code == 0);
  const std::string html = read_text(fs::path(run_dir) / "report.html");
  CHECK(html.find("interrupted: no summary.json") != std::string::npos);
  CHECK(html.find("ranked from trials.csv") != std::string::npos);
  CHECK(html.find("600 of 600") != std::string::npos);

  // Corrupt and missing files are named.
  std::ofstream(fs::path(run_dir) / "timings.csv", std::ios::app)
      << "\n20,600,thirty,1,2,3,4,5,6,7,8,9,10,11,12,13,0\n";
  const auto corrupt = run_cli({"report", run_dir});
  CHECK(corrupt.exit_code == 2);
  CHECK(corrupt.output.find("timings.csv") != std::string::npos);
  fs::remove(fs::path(run_dir) / "trials.csv");
  const auto missing = run_cli({"report", run_dir});
  CHECK(missing.exit_code == 2);
  CHECK(missing.output.find("trials.csv") != std::string::npos);
  const auto no_dir = run_cli({"report", tmp + "/nowhere"});
  CHECK(no_dir.exit_code == 2);
  CHECK(no_dir.output.find("nowhere") != std::string::npos);
  fs::remove_all(tmp);
}

TEST_CASE("tpeopt report: the top trials with their metrics, the data, and the best trial's equity curve",
          "[cpu][report][first-hour]") {
  const std::string tmp = testing::make_temp_dir("report-equity");
  const std::string run_dir = tmp + "/run";
  const std::string fixtures = testing::source_dir() + "/tests/apps/fixtures/first_hour";
  io::Json j = testing::read_json(fixtures + "/load_reference.json");
  j["data"]["candles"] = fixtures + "/reference.csv";
  j["search"]["top_k"] = 12;
  j["params"]["sl_pct"] = {{"type", "float"}, {"low", 0.0}, {"high", 1.0}};
  j["params"]["fee_bp"] = 1.0;
  std::ofstream(tmp + "/study.json") << j.dump(2);
  const auto run = run_cli({"run", "-c", tmp + "/study.json", "--executor", "cpu", "-q", "--out", run_dir});
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  const auto report = run_cli({"report", run_dir});
  INFO(report.output);
  REQUIRE(report.exit_code == 0);
  const std::string html = read_text(fs::path(run_dir) / "report.html");
  const io::Json top = testing::read_json(run_dir + "/top.json");
  REQUIRE(top.size() == 12);

  // The table: every top trial (not the first 10), its metrics, nothing clipped.
  const auto table = html.find("<section id=\"top\">");
  REQUIRE(table != std::string::npos);
  const std::string section = html.substr(table, html.find("</section>", table) - table);
  for (const char* column : {"<th>trades</th>", "<th>sharpe</th>", "<th>max_drawdown</th>", "<th>profit_factor</th>",
                             "<th>ema_fast</th>", "<th>sl_pct</th>", "<th>fee_bp</th>"})
    CHECK_THAT(section, Catch::Contains(column));
  std::size_t rows = 0;
  for (auto at = section.find("<tr><td>"); at != std::string::npos; at = section.find("<tr><td>", at + 1)) ++rows;
  CHECK(rows == 12);
  CHECK_THAT(section, Catch::Contains("tpeopt backtest --run " + run_dir + " --top-rank N"));
  const auto body = html.find("\nbody {");
  REQUIRE(body != std::string::npos);
  CHECK_THAT(html.substr(body, html.find('\n', body + 1) - body),
             !Catch::Contains("max-width"));  // as wide as its table
  CHECK_THAT(html, !Catch::Contains("overflow"));

  // The data: what config.json names, what it holds, and that it is the run's.
  CHECK_THAT(html, Catch::Contains("reference.csv: 60 bars, 2017-04-19 09:00:00 .. 2017-04-21 20:00:00"));
  CHECK_THAT(html, Catch::Contains("The same data as when the run started"));

  // The equity curve: the best trial's trades compounded; its end is the trial's compound return.
  const auto data = engine::load_run_report_data(run_dir);
  REQUIRE(data.equity_note.empty());
  REQUIRE(data.equity.size() == 1);
  CHECK(data.equity[0].trades == top[0]["metrics"]["trades"].get<std::size_t>());
  CHECK(data.equity[0].points.back().second - 1.0 == top[0]["metrics"]["compound_return"].get<double>());
  const auto fig = html.find("id=\"fig-equity\"");
  REQUIRE(fig != std::string::npos);
  CHECK(html.find("<polyline", fig) < html.find("</section>", fig));

  // A changed data file is said so.
  fs::copy_file(fixtures + "/reference.csv", tmp + "/reference.csv");
  std::ofstream(tmp + "/reference.csv", std::ios::app) << "2017-04-21 21:00:00,1.07,1.08,1.06,1.07,100\n";
  io::Json config = testing::read_json(run_dir + "/config.json");
  config["data"]["candles"] = tmp + "/reference.csv";
  std::ofstream(run_dir + "/config.json") << config.dump(2);
  REQUIRE(run_cli({"report", run_dir}).exit_code == 0);
  CHECK_THAT(read_text(fs::path(run_dir) / "report.html"), Catch::Contains("<p id=\"data-changed\">"));

  // The equity figure alone in headless Chromium draws its line.
  const std::string chromium = find_program("chromium");
  REQUIRE_FALSE(chromium.empty());
  const std::string python = find_program("python3");
  REQUIRE_FALSE(python.empty());
  const fs::path page = fs::path(tmp) / "equity.html", png = fs::path(tmp) / "equity.png";
  std::ofstream(page) << one_figure_page(html, "fig-equity");
  const Pixels px = screenshot(chromium, python, page, png);
  CAPTURE(px.nonbackground, px.colored);
  CHECK(px.nonbackground >= 3000);
  CHECK(px.colored >= 300);
  fs::remove_all(tmp);
}

TEST_CASE("tpeopt report works on an exact grid's run directory", "[cpu][report][grid][first-hour]") {
  const std::string tmp = testing::make_temp_dir("report-grid");
  const fs::path cache = testing::trade_filter_cache(4, 3000, 17);
  const io::Json j = {{"strategy", "trade_filter"},
                      {"data", {{"cache", cache.string()}}},
                      {"objective", {{"min_trades", 20}}},
                      {"search", {{"sampler", "grid"}}},
                      {"params",
                       {{"min_volatility", {{"values", {0.0, 0.4, 0.8}}}},
                        {"min_adx28", {{"values", {0, 25}}}},
                        {"target_pct", {{"values", {0.2, 0.6, 1.0}}}},
                        {"stop_pct", {{"values", {-0.6, -0.4}}}}}}};
  std::ofstream(tmp + "/grid.json") << j.dump(2);
  const std::string dir = tmp + "/grid";
  const auto grid = run_cli({"grid", "-c", tmp + "/grid.json", "--executor", "cpu", "-q", "--top", "7", "-o", dir});
  INFO(grid.output);
  REQUIRE(grid.exit_code == 0);
  REQUIRE(fs::exists(fs::path(dir) / "grid_journal.bin"));
  REQUIRE_FALSE(fs::exists(fs::path(dir) / "trials.csv"));
  const auto report = run_cli({"report", dir});
  INFO(report.output);
  REQUIRE(report.exit_code == 0);
  CHECK_THAT(report.output, Catch::Contains("(exact grid: 36 combinations, 1 segment, top 7)"));
  const std::string html = read_text(fs::path(dir) / "report.html");
  const io::Json summary = testing::read_json(dir + "/summary.json");
  CHECK_THAT(html, Catch::Contains("status complete\">complete<"));
  CHECK_THAT(html, Catch::Contains("exact grid (every combination of the value lists)"));
  CHECK_THAT(html, Catch::Contains("<code>" + summary["digest"].get<std::string>() + "</code>"));
  CHECK_THAT(html, Catch::Contains("<th>combination</th>"));
  for (const char* column : {"<th>kept</th>", "<th>wins</th>", "<th>losses</th>", "<th>target_pct</th>"})
    CHECK_THAT(html, Catch::Contains(column));
  CHECK_THAT(html, !Catch::Contains("id=\"fig-history\""));
  CHECK_THAT(html, Catch::Contains(" trades, 20"));  // the trade log, loaded again: "N trades, FIRST .. LAST"
  const auto data = engine::load_run_report_data(dir);
  CHECK(data.grid);
  REQUIRE(data.equity_note.empty());
  REQUIRE(data.equity.size() == 1);
  const io::Json top = testing::read_json(dir + "/top.json");
  CHECK(data.equity[0].trades == top[0]["metrics"]["kept"].get<std::size_t>());
  CHECK(html.find("<polyline", html.find("id=\"fig-equity\"")) != std::string::npos);
  fs::remove_all(tmp);
}

TEST_CASE("device occupancy: not measured on the CPU, read back from timings.csv by the report",
          "[cpu][report][occupancy]") {
  const std::string tmp = testing::make_temp_dir("report-occ");
  const std::string run_dir = tmp + "/run";
  const auto run = run_cli({"run", "-c", write_config(tmp), "--executor", "cpu", "-q", "--out", run_dir});
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  CHECK(run.output.find("device occupancy") == std::string::npos);  // printed only when measured
  // The CPU executor has no figure: null in summary.json, empty cells in timings.csv, and
  // the report says it was not measured.
  const io::Json summary = io::parse_json_text(read_text(fs::path(run_dir) / "summary.json"), "summary.json");
  REQUIRE(summary.contains("device_occupancy"));
  CHECK(summary["device_occupancy"].is_null());
  std::istringstream timings(read_text(fs::path(run_dir) / "timings.csv"));
  std::string header, row;
  REQUIRE(std::getline(timings, header));
  CHECK(header.size() > 25);
  CHECK(header.substr(header.size() - 25) == ",busy_ms,device_occupancy");
  REQUIRE(std::getline(timings, row));
  CHECK(row.back() == ',');  // the last cell is empty
  REQUIRE(run_cli({"report", run_dir}).exit_code == 0);
  CHECK(read_text(fs::path(run_dir) / "report.html").find("device occupancy</td><td>&ndash; (not measured") !=
        std::string::npos);
  // A run whose batches were measured (as the CUDA executor writes them), interrupted before
  // summary.json: the report weighs the batches' figures by their executor time.
  fs::remove(fs::path(run_dir) / "summary.json");
  std::istringstream all(read_text(fs::path(run_dir) / "timings.csv"));
  std::ostringstream rewritten;
  std::getline(all, row);
  rewritten << row << "\n";
  int k = 0;
  while (std::getline(all, row)) {
    if (row.empty()) continue;
    // exec_ms (the 5th column) set to 1 ms, the occupancy (the last) to 0.5 and 1.0 in turn.
    std::vector<std::string> cells;
    std::stringstream fields(row);
    for (std::string c; std::getline(fields, c, ',');) cells.push_back(c);
    if (row.back() == ',') cells.push_back("");
    REQUIRE(cells.size() == 19u);
    cells[4] = "1";
    cells[18] = k++ % 2 == 0 ? "0.5" : "1.0";
    for (std::size_t i = 0; i < cells.size(); ++i) rewritten << (i ? "," : "") << cells[i];
    rewritten << "\n";
  }
  CHECK(k == 20);
  std::ofstream(fs::path(run_dir) / "timings.csv") << rewritten.str();
  const auto report = run_cli({"report", run_dir});
  INFO(report.output);
  REQUIRE(report.exit_code == 0);
  CHECK(read_text(fs::path(run_dir) / "report.html").find("device occupancy</td><td>75.0% of SM time") !=
        std::string::npos);
  fs::remove_all(tmp);
}
