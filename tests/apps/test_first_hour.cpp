// [first-hour]: what a new user meets in the first hour. The repository is self-sufficient
// (examples and tests read nothing outside it; a generated data set's command is exact), a
// study without a feasible trial is not a success, memory is checked before it is spent,
// CSV files load as people have them, and the command line keeps its contracts (exit
// codes, messages, Ctrl-C within about a second, the resume hint on its own line).
#include <catch2/catch.hpp>

#include <signal.h>
#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "study/memory_check.hpp"
#include "study/study.hpp"
#include "io/candles_cache.hpp"
#include "io/candles_csv.hpp"
#include "io/study_config.hpp"
#include "support/files.hpp"
#include "support/paths.hpp"
#include "support/process.hpp"

using namespace tpeopt;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

std::string fixtures() { return testing::source_dir() + "/tests/apps/fixtures/first_hour"; }

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (std::size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size())) s.replace(p, from.size(), to);
  return s;
}

/// Sets environment variables for the life of the object (the tests spawn tpeopt, which
/// inherits them).
class ScopedEnv {
 public:
  explicit ScopedEnv(const io::Json& vars) {
    for (const auto& [k, v] : vars.items()) {
      names_.push_back(k);
      ::setenv(k.c_str(), v.get<std::string>().c_str(), 1);
    }
  }
  ~ScopedEnv() {
    for (const auto& k : names_) ::unsetenv(k.c_str());
  }

 private:
  std::vector<std::string> names_;
};

/// Waits until `path` exists (at most `limit`).
bool wait_for(const fs::path& path, std::chrono::milliseconds limit) {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (!fs::exists(path)) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(10ms);
  }
  return true;
}

}  // namespace

// ---- the fixtures: bad configs and files, with their messages and exit codes ------------

TEST_CASE("first-hour fixtures: each config or command line gets its exit code and message, and a run directory "
          "only when it runs",
          "[cpu][cli][first-hour]") {
  const io::Json doc = testing::read_json(fixtures() + "/cases.json");
  const std::string tmp = testing::make_temp_dir("first-hour");
  std::size_t n = 0;
  for (const auto& c : doc.at("cases")) {
    const std::string name = c.at("name");
    const std::string out = tmp + "/run" + std::to_string(n++);
    std::vector<std::string> args;
    for (const auto& a : c.at("args")) args.push_back(replace_all(a.get<std::string>(), "{fixtures}", fixtures()));
    const bool has_out = std::find(args.begin(), args.end(), "--out") != args.end();
    if (!args.empty() && args[0] == "run" && !has_out) args.insert(args.end(), {"--executor", "cpu", "-q", "--out", out});
    const ScopedEnv env(c.value("env", io::Json::object()));
    const auto r = testing::run_cli(args);
    CAPTURE(name, r.output);
    CHECK(r.exit_code == c.at("exit").get<int>());
    for (const auto& expected : c.at("output"))
      CHECK_THAT(r.output, Catch::Contains(replace_all(expected.get<std::string>(), "{fixtures}", fixtures())));
    CHECK(fs::exists(out) == c.at("run_dir").get<bool>());
  }
  CHECK(n >= 30);
  fs::remove_all(tmp);
}

// ---- item 5: CSV data as people have it -----------------------------------------------------

TEST_CASE("candle CSV layouts: every fixture loads the reference bars bit for bit", "[cpu][io][first-hour]") {
  const Candles ref = io::read_candles_csv(fixtures() + "/reference.csv");
  REQUIRE(ref.size() == 60);
  struct Case {
    const char* file;
    std::string time_format;
    bool volume = true;
  };
  for (const Case& c : {Case{"semicolon_date_time.csv", ""}, Case{"binance_klines_ms.csv", ""},
                        Case{"binance_klines_us.csv", ""}, Case{"us_dates.csv", ""}, Case{"metatrader.csv", ""},
                        Case{"tab_epoch_seconds.csv", ""}, Case{"named_months.csv", "%d-%b-%Y %I:%M %p"},
                        Case{"day_first.csv", "%d/%m/%Y %H:%M"}, Case{"no_volume.csv", "", false}}) {
    CAPTURE(c.file);
    io::CandlesCsvOptions o;
    o.time_format = c.time_format;
    o.require_volume = c.volume;
    const Candles got = io::read_candles_csv(fixtures() + "/" + c.file, o);
    CHECK(got.time_ms == ref.time_ms);
    CHECK(got.open == ref.open);
    CHECK(got.high == ref.high);
    CHECK(got.low == ref.low);
    CHECK(got.close == ref.close);
    CHECK(got.volume == (c.volume ? ref.volume : std::vector<double>(60, 0.0)));
  }
  // A file loaded without its volume by ema_cross is cached; exhaustion, which reads
  // volume, is still refused (the layout is checked before the cache is looked up).
  const std::string cache = testing::make_temp_dir("novolume-cache");
  io::CandlesCsvOptions no_volume;
  no_volume.require_volume = false;
  CHECK(io::load_candles(fixtures() + "/no_volume.csv", fs::path(cache), no_volume).size() == 60);
  CHECK(std::distance(fs::directory_iterator(cache), fs::directory_iterator()) == 1);
  CHECK_THROWS_WITH(io::load_candles(fixtures() + "/no_volume.csv", fs::path(cache)),
                    Catch::Contains("the header has no volume column"));
  fs::remove_all(cache);
}

TEST_CASE("candle CSV layouts: what is detected", "[cpu][io][first-hour]") {
  const io::CandlesCsvOptions defaults;
  auto layout = [&](const std::string& text, const io::CandlesCsvOptions& o) {
    return io::detect_candles_layout(text, "t.csv", o, true);
  };
  SECTION("delimiters and decimal commas") {
    const auto L = layout("Date;Time;Open;High;Low;Close;Volume\n19.04.2017;09:00;1,07;1,08;1,06;1,07;5\n", defaults);
    CHECK(L.delimiter == ';');
    CHECK(L.header);
    CHECK(L.time == 0);
    CHECK(L.time_of_day == 1);
    CHECK(L.volume == 6);
    CHECK(layout("time\topen\thigh\tlow\tclose\tvolume\n", defaults).delimiter == '\t');
    CHECK(layout("time|open|high|low|close|volume\n", defaults).delimiter == '|');
    // As many commas as semicolons: decimal commas, not a comma delimiter.
    CHECK(layout("2017-04-19 09:00;1,5;2,5;0,5;1,5;3,5\n2017-04-19 10:00;1,5;2,5;0,5;1,5;3,5\n", defaults).delimiter ==
          ';');
    // A comma inside quotes does not split.
    const auto q = layout("\"time\",\"open\",\"high\",\"low\",\"close\",\"volume\"\n\"2020-01-01\",\"1\",\"2\",\"0.5\",\"1\",\"3\"\n",
                          defaults);
    CHECK(q.delimiter == ',');
    CHECK(q.n_columns == 6);
  }
  SECTION("a time column holding date and time beside a date column") {
    const auto L = layout("date,time,open,high,low,close,volume\n2020-01-01,2020-01-01 10:00,1,2,0.5,1,3\n", defaults);
    CHECK(L.time == 1);
    CHECK(L.time_of_day == -1);
  }
  SECTION("headerless: klines and MetaTrader") {
    const auto k = layout("1492592400000,1.07,1.08,1.06,1.07,1413,1492595999999,1000.5,50,1.0,2.0,0\n", defaults);
    CHECK_FALSE(k.header);
    CHECK(k.time == 0);
    CHECK(k.close == 4);
    CHECK(k.volume == 5);
    const auto m = layout("2017.04.19,09:00,1.07,1.08,1.06,1.07,1413,0,0\n", defaults);
    CHECK(m.time_of_day == 1);
    CHECK(m.open == 2);
    CHECK(m.volume == 6);
  }
  SECTION("refusals say what was read and what is expected") {
    io::CandlesCsvOptions o;
    CHECK_THROWS_WITH(layout("Zeit;Kurs\n1;2\n", o),
                      Catch::Contains("t.csv:1:1: the header has no open column; read: delimiter ';' (decimal commas "
                                      "allowed), header on line 1: Zeit, Kurs; time from Zeit") &&
                          Catch::Contains("expected: a header naming a time column"));
    CHECK_THROWS_WITH(layout("time,open,high,low,close\n", o), Catch::Contains("the header has no volume column"));
    o.require_volume = false;
    CHECK(layout("time,open,high,low,close\n", o).volume == -1);
    CHECK_THROWS_WITH(layout("1492592400000,1.07,1.08,1.06,1.07\n", io::CandlesCsvOptions{}),
                      Catch::Contains("no volume column (a headerless file has time, open, high, low, close, volume)"));
    CHECK_THROWS_WITH(layout("", defaults), Catch::Contains("t.csv:1:1: empty file"));
  }
}

TEST_CASE("candle CSV times: formats, Unix times by magnitude, and data.time_format", "[cpu][io][first-hour]") {
  std::int64_t t = 0;
  const std::int64_t expected = 1492592400000;  // 2017-04-19 09:00:00 UTC
  for (const char* s : {"2017-04-19 09:00", "2017.04.19 09:00:00", "2017/04/19T09:00", "04/19/2017 09:00",
                        "19.04.2017 09:00", "2017-04-19 11:00:00+02:00", "1492592400", "1492592400000",
                        "1492592400000000", "1492592400000000000", "1492592400.000"}) {
    CAPTURE(s);
    REQUIRE(io::parse_time_ms(s, t));
    CHECK(t == expected);
  }
  REQUIRE(io::parse_time_ms("1492592400.25", t));
  CHECK(t == expected + 250);
  CHECK_FALSE(io::parse_time_ms("19/04/2017", t));  // month 19
  CHECK(io::time_parse_hint("19/04/2017").find("data.time_format") != std::string::npos);
  CHECK(io::time_parse_hint("04/19/2017").empty());
  CHECK_FALSE(io::parse_time_ms("2017-02-29", t));
  CHECK_FALSE(io::parse_time_ms("2017-04-19 24:00", t));

  REQUIRE(io::parse_time_with_format("19-Apr-2017 09:00 AM", "%d-%b-%Y %I:%M %p", t));
  CHECK(t == expected);
  REQUIRE(io::parse_time_with_format("19-April-17 09:00:00.5", "%d-%b-%y %H:%M:%S.%f", t));
  CHECK(t == expected + 500);
  REQUIRE(io::parse_time_with_format("20170419 1100 +0200", "%Y%m%d %H%M %z", t));
  CHECK(t == expected);
  REQUIRE(io::parse_time_with_format("t=1492592400", "t=%s", t));
  CHECK(t == expected);
  REQUIRE(io::parse_time_with_format("12:30 PM 04/19/2017", "%I:%M %p %m/%d/%Y", t));
  CHECK(t == expected + (3 * 3600 + 30 * 60) * 1000);
  CHECK_FALSE(io::parse_time_with_format("19-Apr-2017", "%d-%b-%Y %H", t));  // more pattern than text
  CHECK_FALSE(io::parse_time_with_format("31/02/2017", "%d/%m/%Y", t));      // no such day
  CHECK_THROWS_WITH(io::check_time_format("%d-%Q", "data.time_format"), Catch::Contains("unknown directive %Q"));
  CHECK_THROWS_WITH(io::check_time_format("abc", "data.time_format"), Catch::Contains("has no directive"));
  CHECK_THROWS_WITH(io::check_time_format("%Y%", "data.time_format"), Catch::Contains("ends with a lone %"));
  double v = 0;
  CHECK(io::parse_candle_number("1,0716", true, v));
  CHECK(v == 1.0716);
  CHECK_FALSE(io::parse_candle_number("1,0716", false, v));
  CHECK_FALSE(io::parse_candle_number("1.071,6", true, v));  // thousands separators are refused, not guessed
}

// ---- item 4: memory is checked before it is spent -------------------------------------------

TEST_CASE("memory: the estimate of a batch and of the sampler, and the largest batch that fits", "[cpu][first-hour]") {
  io::StudyConfig config = io::load_study_config(fixtures() + "/memory_batch.json");
  const auto strategy = engine::make_strategy(config);
  engine::RunOptions options;
  options.executor = "cpu";
  // 2 axes, no metrics, 2 batches in flight: values 2 x 2 x 2 x 8, results 3 x 2 x 8 + 16,
  // journal 5 x 8, trials.csv 6 x 24 = 312 bytes per trial; random keeps nothing per trial.
  engine::MemoryEstimate e = engine::estimate_memory(config, *strategy, options);
  CHECK(e.per_batch_trial == 312);
  CHECK(e.per_told_trial == 0);
  CHECK(e.batch_trials == 100000);
  CHECK(e.largest_batch(1 << 20) == 3360);
  CHECK_NOTHROW(engine::check_memory(config, *strategy, options, 0, std::nullopt));  // nothing known: not checked
  CHECK_THROWS_WITH(engine::check_memory(config, *strategy, options, 0, std::uint64_t{1} << 20),
                    Catch::Contains("the largest batch that fits is 3360"));
  config.search.batch = 3360;
  CHECK_NOTHROW(engine::check_memory(config, *strategy, options, 0, std::uint64_t{1} << 20));
  // The batch TPE keeps 16 bytes per trial told, Optuna's TPE 40 per axis and 32; verify
  // keeps every trial of two runs.
  config.search.sampler = "tpe";
  CHECK(engine::estimate_memory(config, *strategy, options).per_told_trial == 16);
  config.search.tpe.preset = tpe::Preset::Optuna;
  e = engine::estimate_memory(config, *strategy, options);
  CHECK(e.per_told_trial == 2 * 40 + 32);
  options.keep_trials = true;
  CHECK(engine::estimate_memory(config, *strategy, options).per_told_trial > e.per_told_trial);
  // The sampler's record alone too large: no batch fits, and the message says to lower trials.
  CHECK_THROWS_WITH(engine::check_memory(config, *strategy, options, 0, 1000),
                    Catch::Contains("no batch fits: lower search.trials"));
}

TEST_CASE("memory: a 2 GB file is refused for its header without reading its body", "[cpu][first-hour]") {
  const std::string tmp = testing::make_temp_dir("big-header");
  {
    std::ofstream(tmp + "/big.csv") << "Datum;Kurs\n19.04.2017;1,07\n";
  }
  fs::resize_file(tmp + "/big.csv", std::uint64_t{2} << 30);  // sparse: no disk used
  std::ofstream(tmp + "/study.json") << R"({"strategy": "ema_cross", "data": {"candles": "big.csv"},
    "params": {"ema_fast": {"type": "int", "low": 2, "high": 5}, "ema_slow": 10}})";
  const auto start = std::chrono::steady_clock::now();
  const auto r = testing::run_cli({"run", "-c", tmp + "/study.json", "--executor", "cpu", "--out", tmp + "/run"});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  INFO(r.output);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains(tmp + "/big.csv:1:1: the header has no open column; read: delimiter ';'"));
  CHECK_FALSE(fs::exists(tmp + "/run"));
  CHECK(seconds < 1.0);           // reading 2 GB takes seconds
  CHECK(r.max_rss_kb < 100'000);  // and 2 GB of memory
  fs::remove_all(tmp);
}

TEST_CASE("memory: data larger than the memory is refused before it is read", "[cpu][first-hour]") {
  const std::string tmp = testing::make_temp_dir("big-data");
  {
    std::ofstream out(tmp + "/big.csv");
    out << "time,open,high,low,close\n";
    for (int i = 0; i < 100; ++i) out << fmt::format("{},1.5,2,1,1.5\n", 1700000000 + 60 * i);
  }
  fs::resize_file(tmp + "/big.csv", std::uint64_t{1} << 40);  // 1 TB, sparse
  std::ofstream(tmp + "/study.json") << R"({"strategy": "ema_cross", "data": {"candles": "big.csv"},
    "params": {"ema_fast": {"type": "int", "low": 2, "high": 5}, "ema_slow": 10}})";
  const auto r = testing::run_cli({"run", "-c", tmp + "/study.json", "--executor", "cpu", "--out", tmp + "/run"});
  INFO(r.output);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains(tmp + "/big.csv: 1.0 TB of CSV (about ") &&
                           Catch::Contains("bars) needs about ") && Catch::Contains("of memory to load") &&
                           Catch::Contains("is available (MemAvailable in /proc/meminfo)"));
  CHECK_FALSE(fs::exists(tmp + "/run"));
  CHECK(r.max_rss_kb < 100'000);
  fs::remove_all(tmp);
  // The bar estimate: lines at the head's mean length; exact when the head is the file.
  CHECK(io::estimate_bar_count("a\nbb\nccc\n", 9) == 3);
  CHECK(io::estimate_bar_count("time\n0123456789\n", 1600) == 200);
}

// ---- item 3: a study with no valid trial is not a success -------------------------------------

TEST_CASE("no feasible trial: exit 4, counted in summary.json and shown in the report", "[cpu][first-hour]") {
  const std::string tmp = testing::make_temp_dir("infeasible");
  const std::string dir = tmp + "/run";
  const auto r = testing::run_cli(
      {"run", "-c", fixtures() + "/infeasible_min_trades.json", "--executor", "cpu", "-q", "--out", dir});
  INFO(r.output);
  REQUIRE(r.exit_code == 4);
  CHECK_THAT(r.output, !Catch::Contains("best: trial"));
  const io::Json summary = testing::read_json(dir + "/summary.json");
  CHECK(summary.at("complete") == true);
  const io::Json& o = summary.at("outcomes");
  CHECK(o.at("feasible") == 0);
  CHECK(o.at("too_few_trades") == 40);
  CHECK(o.at("failed") == 0);
  CHECK(o.at("min_trades") == 1000);
  const auto report = testing::run_cli({"report", dir});
  INFO(report.output);
  REQUIRE(report.exit_code == 0);
  const std::string html = testing::read_text(dir + "/report.html");
  CHECK_THAT(html, Catch::Contains("<span class=\"status interrupted\">no feasible trial</span>"));
  CHECK_THAT(html, Catch::Contains("<p id=\"no-feasible\"><strong>No feasible trial:</strong> none of the 40 trials"));
  CHECK_THAT(html, Catch::Contains("0 feasible, 40 with too few trades (fewer than min_trades = 1000), 0 failed"));

  // A feasible run says its counts too, and exits 0.
  const auto ok = testing::run_cli(
      {"run", "-c", fixtures() + "/load_reference.json", "--executor", "cpu", "-q", "--out", tmp + "/ok"});
  REQUIRE(ok.exit_code == 0);
  const io::Json fine = testing::read_json(tmp + "/ok/summary.json").at("outcomes");
  CHECK(fine.at("feasible").get<int>() + fine.at("too_few_trades").get<int>() == 40);
  CHECK(fine.at("feasible").get<int>() > 0);
  fs::remove_all(tmp);
}

// ---- item 1: the repository is self-sufficient -------------------------------------------------

TEST_CASE("every example's data lies inside the repository", "[cpu][first-hour]") {
  const fs::path root = fs::weakly_canonical(testing::source_dir());
  std::size_t examples = 0, paths = 0;
  for (const auto& entry : fs::directory_iterator(root / "examples")) {
    if (entry.path().extension() != ".json") continue;
    ++examples;
    CAPTURE(entry.path().string());
    const io::Json data = testing::read_json(entry.path().string()).value("data", io::Json::object());
    for (const char* key : {"candles", "candles_dir", "market_dir", "trades", "cache"}) {
      if (!data.contains(key)) continue;
      ++paths;
      const fs::path p = (entry.path().parent_path() / data[key].get<std::string>()).lexically_normal();
      CAPTURE(key, p.string());
      const std::string rel = p.lexically_relative(root).string();
      CHECK((!rel.empty() && rel.rfind("..", 0) != 0));
      if (!data.contains("generate")) CHECK(fs::exists(p));  // shipped, not generated
    }
  }
  CHECK(examples >= 13);
  CHECK(paths >= 10);
}

TEST_CASE("no test, example, benchmark or script reads ../shared/data", "[cpu][first-hour]") {
  const fs::path root = testing::source_dir();
  const std::regex shared(R"(shared/data|SHARED_DATA)");
  std::size_t files = 0;
  for (const char* dir : {"tests", "examples", "bench", "scripts", ".ci"}) {
    for (const auto& entry : fs::recursive_directory_iterator(root / dir)) {
      if (!entry.is_regular_file() || entry.path().filename() == "test_first_hour.cpp") continue;
      ++files;
      std::ifstream in(entry.path());
      std::string line;
      for (std::size_t n = 1; std::getline(in, line); ++n) {
        // The GPU tests' comments name where their data was copied from (a parallel change
        // moves those files); code there reads testing::shared_data_dir(), the repository's data/.
        if (std::regex_search(line, shared) && line.find("//") == std::string::npos)
          FAIL_CHECK(entry.path().string() << ":" << n << ": " << line);
      }
    }
  }
  CHECK(files > 50);
}

TEST_CASE("generated data: the run refuses before its directory exists and prints the exact command", "[cpu][first-hour]") {
  const std::string tmp = testing::make_temp_dir("generate-hint");
  io::Json config = testing::read_json(testing::source_dir() + "/examples/trade_filter_tpe.json");
  config["data"]["market_dir"] = "tf/market";
  config["data"]["trades"] = "tf/trades.csv";
  config["data"]["generate"] = {{"days", 2}, {"trades", 300}, {"seed", 5}};
  config["data"]["cache_dir"] = "cache";
  config["objective"]["min_trades"] = 1;
  std::ofstream(tmp + "/study.json") << config.dump(2);
  std::vector<std::string> run = {"run", "-c", tmp + "/study.json", "--trials", "64", "--executor", "cpu", "-q",
                                  "--out", tmp + "/run"};
  const auto first = testing::run_cli(run);
  INFO(first.output);
  REQUIRE(first.exit_code == 2);
  CHECK_FALSE(fs::exists(tmp + "/run"));
  // The command on a line of its own; --out as typed from the current directory.
  std::smatch m;
  REQUIRE(std::regex_search(first.output, m, std::regex("\ntpeopt data generate ([^\n]*)\n")));
  const std::string out = fs::path(tmp + "/tf").lexically_relative(fs::current_path()).string();
  CHECK(m[1].str() == "--out " + out + " --days 2 --trades 300 --seed 5 --tickers SOXL,IONQ,MARA");
  std::vector<std::string> generate;
  std::istringstream words("data generate " + m[1].str());
  for (std::string w; words >> w;) generate.push_back(w);
  const auto g = testing::run_cli(generate);
  INFO(g.output);
  REQUIRE(g.exit_code == 0);
  const auto second = testing::run_cli(run);
  INFO(second.output);
  CHECK(second.exit_code == 0);
  CHECK_THAT(second.output, Catch::Contains("tpeopt: loaded " + tmp + "/tf/trades.csv: 300 trades, "));
  // A data.generate whose paths are not the generator's layout is a config error.
  config["data"]["trades"] = "elsewhere.csv";
  std::ofstream(tmp + "/bad.json") << config.dump(2);
  const auto bad = testing::run_cli({"run", "-c", tmp + "/bad.json", "--executor", "cpu", "--out", tmp + "/bad"});
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.output, Catch::Contains("data.generate: `tpeopt data generate --out DIR` writes DIR/market and "
                                         "DIR/trades.csv"));
  fs::remove_all(tmp);
}

// ---- item 7: Ctrl-C within about a second, the resume hint on its own line -------------------------

namespace {

/// A study whose 4096-trial CPU batches take many seconds: exhaustion over 300,000 bars.
std::string slow_study(const std::string& tmp) {
  const auto g = testing::run_cli({"data", "generate-candles", "-o", tmp + "/bars", "--symbols", "1", "--bars",
                                   "300000", "--interval-s", "60", "--seed", "4"});
  REQUIRE(g.exit_code == 0);
  io::Json j = testing::read_json(testing::source_dir() + "/examples/exhaustion_eurusd.json");
  j["data"] = {{"candles", "bars/SYM0000.csv"}, {"cache_dir", ""}};
  j["search"]["trials"] = 3 * 4096;
  j["search"]["batch"] = 4096;
  const std::string path = tmp + "/study.json";
  std::ofstream(path) << j.dump(2);
  return path;
}

}  // namespace

TEST_CASE("a signal stops a run of 4096-trial CPU batches within about a second, the hint on its own line",
          "[cpu][cli][first-hour]") {
  const std::string tmp = testing::make_temp_dir("signal");
  const std::string study = slow_study(tmp);
  for (const int sig : {SIGTERM, SIGINT}) {
    CAPTURE(sig);
    const std::string dir = tmp + "/run" + std::to_string(sig);
    const auto p = testing::start_process({testing::cli_path(), "run", "-c", study, "--executor", "cpu", "-q",
                                           "--out", dir});
    REQUIRE(wait_for(dir + "/journal.bin", 60s));
    std::this_thread::sleep_for(1s);  // well inside the first batch
    const auto sent = std::chrono::steady_clock::now();
    ::kill(p.pid, sig);
    const auto r = testing::finish_process(p);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - sent).count();
    INFO(r.output);
    CHECK(r.exit_code == 130);
    CHECK(seconds < 1.5);
    CHECK_THAT(r.output, Catch::Contains("interrupted after 0 trials; the journal is consistent. Continue with:\n"
                                         "tpeopt resume " + dir + "\n"));
    CHECK(testing::read_json(dir + "/summary.json").at("complete") == false);
  }
  // A second signal exits at once, with the hint too. It is sent once the first one was
  // handled (signals sent together may arrive as one); the run may rarely finish stopping
  // before it arrives: then try again.
  bool second_seen = false;
  for (int attempt = 0; attempt < 5 && !second_seen; ++attempt) {
    const std::string dir = tmp + "/twice" + std::to_string(attempt);
    const auto p =
        testing::start_process({testing::cli_path(), "run", "-c", study, "--executor", "cpu", "-q", "--out", dir});
    REQUIRE(wait_for(dir + "/journal.bin", 60s));
    std::this_thread::sleep_for(500ms);
    ::kill(p.pid, SIGINT);
    const auto until = std::chrono::steady_clock::now() + 2s;
    while (testing::read_text(p.output_file).find("tpeopt: interrupt:") == std::string::npos &&
           std::chrono::steady_clock::now() < until)
      std::this_thread::sleep_for(100us);
    ::kill(p.pid, SIGINT);
    const auto r = testing::finish_process(p);
    INFO(r.output);
    second_seen = r.output.find("second interrupt") != std::string::npos;
    if (!second_seen) continue;
    CHECK(r.exit_code == 130);
    CHECK_THAT(r.output, Catch::Contains("tpeopt: second interrupt: stopping now (the journal is consistent)\n"
                                         "Continue with:\ntpeopt resume " + dir + "\n"));
  }
  CHECK(second_seen);
  fs::remove_all(tmp);
}
