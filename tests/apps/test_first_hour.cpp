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

#include "io/candles_cache.hpp"
#include "io/candles_csv.hpp"
#include "config/study_config.hpp"
#include "strategies/registry.hpp"
#include "study/memory_check.hpp"
#include "study/study.hpp"
#include "support/files.hpp"
#include "support/paths.hpp"
#include "support/process.hpp"
#include "support/trade_filter_fixture.hpp"

using namespace tpeopt;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

std::string fixtures() { return testing::source_dir() + "/tests/apps/fixtures/first_hour"; }

/// The peak memory of the command line refusing a small file with a bad header: what any
/// refusal costs in this build (a sanitizer build's shadow memory alone is about 200 MB), to
/// which the refusal of a big file is compared.
long small_refusal_rss_kb(const std::string& tmp) {
  { std::ofstream(tmp + "/small.csv") << "Datum;Kurs\n19.04.2017;1,07\n"; }
  std::ofstream(tmp + "/small.json") << R"({"strategy": "ema_cross", "data": {"candles": "small.csv"},
    "params": {"ema_fast": {"type": "int", "low": 2, "high": 5}, "ema_slow": 10}})";
  const auto r = testing::run_cli({"run", "-c", tmp + "/small.json", "--executor", "cpu", "--out", tmp + "/small-run"});
  INFO(r.output);
  REQUIRE(r.exit_code == 2);
  return r.max_rss_kb;
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (std::size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size()))
    s.replace(p, from.size(), to);
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

TEST_CASE(
    "first-hour fixtures: each config or command line gets its exit code and message, and a run directory "
    "only when it runs",
    "[cpu][cli][first-hour]") {
  const io::Json doc = testing::read_json(fixtures() + "/cases.json");
  const std::string tmp = testing::make_temp_dir("first-hour");
  std::size_t n = 0;
  for (const auto& c : doc.at("cases")) {
    const std::string name = c.at("name");
    const std::string out = tmp + "/run" + std::to_string(n++);
    std::vector<std::string> args;
    for (const auto& a : c.at("args"))
      args.push_back(replace_all(replace_all(a.get<std::string>(), "{fixtures}", fixtures()), "{out}", out));
    const bool has_out = std::find(args.begin(), args.end(), "--out") != args.end();
    if (!args.empty() && args[0] == "run" && !has_out)
      args.insert(args.end(), {"--executor", "cpu", "-q", "--out", out});
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
    const auto q = layout(
        "\"time\",\"open\",\"high\",\"low\",\"close\",\"volume\"\n\"2020-01-01\",\"1\",\"2\",\"0.5\",\"1\",\"3\"\n",
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
  { std::ofstream(tmp + "/big.csv") << "Datum;Kurs\n19.04.2017;1,07\n"; }
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
  CHECK(seconds < 1.0);  // reading 2 GB takes seconds
  // and 2 GB of memory: the refusal costs what a small file's does, give or take 50 MB
  CHECK(r.max_rss_kb < small_refusal_rss_kb(tmp) + 50'000);
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
  CHECK(r.max_rss_kb < small_refusal_rss_kb(tmp) + 50'000);
  fs::remove_all(tmp);
  // The bar estimate: lines at the head's mean length; exact when the head is the file.
  CHECK(io::estimate_bar_count("a\nbb\nccc\n", 9) == 3);
  CHECK(io::estimate_bar_count("time\n0123456789\n", 1600) == 200);
}

// ---- item 2: every config error before anything starts, all at once ----------------------------

namespace {

/// The errors of a config as one message (empty when it loads).
std::string config_errors(const std::string& text) {
  try {
    io::parse_study_config(io::parse_json_text(text, "cfg.json"), "cfg.json", fixtures());
  } catch (const Error& e) {
    return e.what();
  }
  return {};
}

/// An ema_cross config over the fixtures' reference bars with these params.
std::string ema_cross_with(const std::string& params) {
  return R"({"strategy": "ema_cross", "data": {"candles": "reference.csv"}, "params": )" + params + "}";
}

}  // namespace

TEST_CASE("config errors: the whole file is checked and every error reported in one message, each naming its key",
          "[cpu][config][first-hour]") {
  // Errors in every part at once: root, executor, objective, search, params, data.
  const std::string all = config_errors(R"({
    "strategy": "ema_cross", "colour": 1, "executor": "gpu",
    "data": {"candles": "reference.csv", "cache": 1},
    "objective": {"direction": "up", "min_trades": 1.5},
    "search": {"sampler": "cmaes", "depth": 0, "tpe": {"gamma": 1}},
    "params": {"ema_fast": {"type": "int", "low": 5, "high": 2}, "ema_slow": {"type": "float", "low": 1, "high": 3, "step": 0.7},
               "sl_pct": "x", "tp_pct": 1e7}})");
  CAPTURE(all);
  for (const char* expected :
       {"cfg.json: 12 errors:", "\n  colour: unknown key", "\n  executor: \"gpu\" is not one of: auto, cpu, cuda",
        "\n  objective.direction: \"up\" is not one of", "\n  objective.min_trades: expected an integer, got 1.5",
        "\n  search.sampler: \"cmaes\" is not one of", "\n  search.depth: expected an integer in [1, 64], got 0",
        "\n  search.tpe.gamma: unknown key", "\n  params.ema_fast: low (5) is greater than high (2)",
        "\n  params.ema_slow: step 0.7 does not divide the range",
        "\n  params.sl_pct: expected a number, a list of values",
        "\n  params.tp_pct: 10000000 is above tp_pct's domain [0, 1000000)", "\n  data.cache: unknown key"})
    CHECK_THAT(all, Catch::Contains(expected));
  // A refused parameter definition is not also reported missing.
  CHECK_THAT(all, !Catch::Contains("params: missing"));

  // An unknown strategy: what can be checked without it still is.
  const std::string unknown = config_errors(
      R"({"strategy": "magic", "search": {"batch": 0}, "params": {"x": {"type": "float", "low": 1, "high": 0}}})");
  CAPTURE(unknown);
  CHECK_THAT(unknown, Catch::StartsWith("cfg.json: 3 errors:\n  strategy: \"magic\" is not one of"));
  CHECK_THAT(unknown, Catch::Contains("\n  search.batch: expected an integer in [1,"));
  CHECK_THAT(unknown, Catch::Contains("\n  params.x: low (1) is greater than high (0)"));
  // One error keeps the form "file: key: what".
  CHECK(config_errors(ema_cross_with(R"({"ema_fast": 3, "ema_slow": 8, "fee_bp": -1})")) ==
        "cfg.json: params.fee_bp: -1 is below fee_bp's domain [0, 10000): must be >= 0 basis points (and below 10000)");
  CHECK(config_errors(ema_cross_with(R"({"ema_fast": 3, "ema_slow": 8})")).empty());
}

TEST_CASE("config domains: every value a sampler can propose is checked, an integer's as the strategy rounds it",
          "[cpu][config][first-hour]") {
  struct Case {
    std::string params, expected;  // expected: "" = accepted
  };
  const std::vector<Case> cases = {
      // Ranges: both ends; an int axis, a float axis, stepped, log.
      {R"({"ema_fast": {"type": "int", "low": 1, "high": 10}, "ema_slow": 20})", ""},
      {R"({"ema_fast": {"type": "int", "low": 0, "high": 10}, "ema_slow": 20})",
       "params.ema_fast.low: 0 is below ema_fast's domain [1, 99999999]"},
      {R"({"ema_fast": {"type": "float", "low": 0.5, "high": 10}, "ema_slow": 20})", ""},  // 0.5 is read as 1
      {R"({"ema_fast": {"type": "float", "low": 0.45, "high": 10}, "ema_slow": 20})",
       "params.ema_fast.low: 0.45 (read as 0) is below ema_fast's domain [1, 99999999]"},
      {R"({"ema_fast": {"type": "float", "low": 2, "high": 99999999.4}, "ema_slow": 20})", ""},
      {R"({"ema_fast": {"type": "float", "low": 2, "high": 99999999.5}, "ema_slow": 20})",
       "params.ema_fast.high: 99999999.5 (read as 100000000) is above ema_fast's domain [1, 99999999]"},
      {R"({"ema_fast": {"type": "float", "low": 0.4, "high": 2, "step": 0.4}, "ema_slow": 20})",
       "params.ema_fast.low: 0.4 (read as 0) is below"},
      {R"({"ema_fast": {"type": "int", "low": 1, "high": 100000000, "log": true}, "ema_slow": 20})",
       "params.ema_fast.high: 100000000 is above ema_fast's domain [1, 99999999]"},
      {R"({"ema_fast": 3, "ema_slow": 20, "sl_pct": {"type": "float", "low": 0.01, "high": 100, "log": true}})",
       "params.sl_pct.high: 100 is above sl_pct's domain [0, 100)"},
      // Lists: each value, by its index; a bare list, "values" and "choices".
      {R"({"ema_fast": [3, 0, 5], "ema_slow": 20})", "params.ema_fast[1]: 0 is below"},
      {R"({"ema_fast": {"values": [3, 5, -7]}, "ema_slow": 20})", "params.ema_fast.values[2]: -7 is below"},
      {R"({"ema_fast": 3, "ema_slow": {"type": "categorical", "choices": [20, 0.2]}})",
       "params.ema_slow.choices[1]: 0.2 (read as 0) is below"},
      // Fixed numbers.
      {R"({"ema_fast": 3, "ema_slow": 20, "tp_pct": -0.5})",
       "params.tp_pct: -0.5 is below tp_pct's domain [0, 1000000)"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.params);
    const std::string errors = config_errors(ema_cross_with(c.params));
    if (c.expected.empty()) CHECK(errors.empty());
    else CHECK_THAT(errors, Catch::Contains(c.expected));
  }
  // A domain with an extra test (trade_filter's take profit must stay > 0 as float32).
  const strategies::ParamList& tf = strategies::registry().at("trade_filter").params;
  CHECK_THROWS_WITH(tf.check(tf.find("target_pct"), 1e-50, 1.0),
                    Catch::StartsWith("params.target_pct.low: 1e-50 is not a value of target_pct: the take profit must "
                                      "be > 0 percent as float32"));
  CHECK_NOTHROW(tf.check(tf.find("target_pct"), 0.001, 1.0));
  // The intervals in words.
  CHECK(strategies::closed_open(0.5, 1e8, "").interval_text(true) == "[1, 99999999]");
  CHECK(strategies::closed_open(-0.5, 250.5, "").interval_text(true) == "[0, 250]");
  CHECK(strategies::above(0.0, "").interval_text(false) == "(0, inf)");
  CHECK(strategies::closed(0.0, 1.0, "").interval_text(false) == "[0, 1]");
}

TEST_CASE("duplicate JSON keys are an error naming the file, line and column of each", "[cpu][config][first-hour]") {
  CHECK_THROWS_WITH(io::parse_json_text("{\"a\": 1,\n \"b\": {\"c\": 1, \"\\u0063\": 2},\n \"a\": 3}", "x.json"),
                    Catch::Equals(
                        "x.json: 2 duplicate keys:\n"
                        "  x.json:2:16: duplicate key \"c\" (first at line 2, column 8); a key may appear once "
                        "in an object\n"
                        "  x.json:3:2: duplicate key \"a\" (first at line 1, column 2); a key may appear once "
                        "in an object"));
  // The same key in different objects, and strings that look like keys, are fine.
  CHECK_NOTHROW(io::parse_json_text(R"({"a": {"a": 1}, "b": ["a", "a"], "c": {"x": "a,\"a\": 1"}})", "x.json"));
}

TEST_CASE("a config that cannot run creates nothing: resume refuses an edited config.json before it writes",
          "[cpu][cli][first-hour]") {
  const std::string tmp = testing::make_temp_dir("resume-bad-config");
  const std::string dir = tmp + "/run";
  const auto r =
      testing::run_cli({"run", "-c", fixtures() + "/load_reference.json", "--executor", "cpu", "-q", "--out", dir});
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  // config.json edited into one that cannot run: an unknown parameter and a value out of its domain.
  io::Json config = testing::read_json(dir + "/config.json");
  config["params"]["fee_bp"] = -3;
  config["params"]["bogus"] = 1;
  std::ofstream(dir + "/config.json") << config.dump(2);
  std::vector<std::pair<std::string, std::string>> before;
  for (const auto& e : fs::directory_iterator(dir))
    before.emplace_back(e.path().filename(), testing::read_text(e.path()));
  std::sort(before.begin(), before.end());
  const auto resumed = testing::run_cli({"resume", dir, "--executor", "cpu", "-q"});
  INFO(resumed.output);
  CHECK(resumed.exit_code == 2);
  CHECK_THAT(resumed.output, Catch::Contains(dir + "/config.json: 2 errors:\n  params.fee_bp: -3 is below"));
  CHECK_THAT(resumed.output, Catch::Contains("\n  params.bogus: not a parameter of strategy ema_cross"));
  std::vector<std::pair<std::string, std::string>> after;
  for (const auto& e : fs::directory_iterator(dir))
    after.emplace_back(e.path().filename(), testing::read_text(e.path()));
  std::sort(after.begin(), after.end());
  CHECK(after == before);  // not a byte written, not a file added
  fs::remove_all(tmp);
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

// ---- item 6: results a user can act on ---------------------------------------------------------

namespace {

/// The number after "key: " on a line of `output`.
double printed(const std::string& output, const std::string& key) {
  const auto at = output.find("\n" + key + ": ");
  REQUIRE(at != std::string::npos);
  return std::stod(output.substr(at + key.size() + 3));
}

std::vector<std::string> csv_lines(const std::string& path) {
  std::istringstream in(testing::read_text(path));
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace

TEST_CASE("backtest re-runs a trial of a run directory: --top-rank N --run DIR, or a top.json entry as --params",
          "[cpu][cli][first-hour]") {
  const std::string tmp = testing::make_temp_dir("top-rank");
  const std::string dir = tmp + "/run";
  io::Json config = testing::read_json(fixtures() + "/load_reference.json");
  config["data"]["candles"] = fixtures() + "/reference.csv";
  config["search"]["top_k"] = 5;
  config["params"]["sl_pct"] = {{"type", "float"}, {"low", 0.0}, {"high", 1.0}};
  std::ofstream(tmp + "/study.json") << config.dump(2);
  const auto r = testing::run_cli({"run", "-c", tmp + "/study.json", "--executor", "cpu", "-q", "--out", dir});
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const io::Json top = testing::read_json(dir + "/top.json");
  REQUIRE(top.size() == 5);
  for (std::size_t rank = 1; rank <= 3; ++rank) {
    CAPTURE(rank);
    const io::Json& entry = top[rank - 1];
    const std::string trades = tmp + fmt::format("/trades{}.csv", rank);
    const auto b =
        testing::run_cli({"backtest", "--run", dir, "--top-rank", std::to_string(rank), "--trades-out", trades});
    INFO(b.output);
    REQUIRE(b.exit_code == 0);
    // The run's score and metrics, bit for bit (the shortest decimal of a double reads back to it).
    CHECK(printed(b.output, "score") == entry.at("score").get<double>());
    for (const auto& [name, value] : entry.at("metrics").items()) {
      CAPTURE(name);
      CHECK(printed(b.output, name) == value.get<double>());
    }
    CHECK_THAT(b.output, Catch::Contains(fmt::format("recorded: {}/top.json, rank {}: trial {}, score ", dir, rank,
                                                     entry.at("trial").get<std::uint64_t>())));
    // The trades, with bar indices and times: as many as the trades metric.
    const auto lines = csv_lines(trades);
    REQUIRE_FALSE(lines.empty());
    CHECK(lines[0] == "signal_bar,entry_bar,exit_bar,entry_price,exit_price,reason,return,entry_time,exit_time");
    CHECK(lines.size() - 1 == entry.at("metrics").at("trades").get<std::size_t>());
    const std::regex row(R"(\d+,\d+,\d+,[^,]+,[^,]+,\w+,[^,]+,2017-04-\d\d \d\d:00:00,2017-04-\d\d \d\d:00:00)");
    for (std::size_t i = 1; i < lines.size(); ++i) CHECK(std::regex_match(lines[i], row));
    // The same entry as a file given to --params, with the config given as --config.
    const std::string entry_file = tmp + fmt::format("/entry{}.json", rank);
    std::ofstream(entry_file) << entry.dump(2);
    const auto p = testing::run_cli({"backtest", "-c", dir + "/config.json", "--params", entry_file});
    INFO(p.output);
    REQUIRE(p.exit_code == 0);
    CHECK(printed(p.output, "score") == entry.at("score").get<double>());
  }
  const auto too_far = testing::run_cli({"backtest", "--run", dir, "--top-rank", "6"});
  CHECK(too_far.exit_code == 2);
  CHECK_THAT(too_far.output,
             Catch::Contains(fmt::format("--top-rank 6: {}/top.json holds 5 trials (ranks 1 to 5)", dir)));
  const auto both = testing::run_cli({"backtest", "--run", dir, "-c", tmp + "/study.json", "--top-rank", "1"});
  CHECK(both.exit_code == 2);
  const auto neither = testing::run_cli({"backtest", "--run", dir});
  CHECK(neither.exit_code == 2);
  CHECK_THAT(neither.output, Catch::Contains("give the parameters with --params P.json, or a trial of a run with "
                                             "--top-rank N --run DIR"));
  fs::remove_all(tmp);
}

TEST_CASE("backtest --trades-out: atc and trade_filter write their trades too, with times", "[cpu][cli][first-hour]") {
  const std::string tmp = testing::make_temp_dir("trades-out");
  // atc over the fixtures' reference bars.
  const io::Json atc = {{"strategy", "atc"},
                        {"data", {{"candles", fixtures() + "/reference.csv"}}},
                        {"params",
                         {{"ema_len", 5},
                          {"hma_len", 5},
                          {"wma_len", 5},
                          {"dema_len", 5},
                          {"lsma_len", 5},
                          {"kama_len", 5},
                          {"long_threshold", 0.0},
                          {"short_threshold", 0.0}}}};
  std::ofstream(tmp + "/atc.json") << atc.dump(2);
  std::ofstream(tmp + "/none.json") << "{}";
  const auto a = testing::run_cli(
      {"backtest", "-c", tmp + "/atc.json", "-p", tmp + "/none.json", "--trades-out", tmp + "/atc.csv"});
  INFO(a.output);
  REQUIRE(a.exit_code == 0);
  const auto lines = csv_lines(tmp + "/atc.csv");
  REQUIRE(lines.size() >= 3);
  // atc reads a data set of symbols: a first symbol column, as over several.
  CHECK(lines[0] == "symbol,entry_bar,exit_bar,side,entry_price,exit_price,bars,return,entry_time,exit_time");
  CHECK(static_cast<double>(lines.size() - 1) == printed(a.output, "trades"));
  const std::regex row(
      R"(reference,\d+,\d+,(long|short),[^,]+,[^,]+,\d+,[^,]+,2017-04-\d\d \d\d:00:00,2017-04-\d\d \d\d:00:00)");
  for (std::size_t i = 1; i < lines.size(); ++i) CHECK(std::regex_match(lines[i], row));
  // trade_filter: the kept trades of a log, the filters it leaves out at their default (none).
  const fs::path cache = testing::trade_filter_cache(4, 3000, 17);
  const io::Json tf = {{"strategy", "trade_filter"},
                       {"data", {{"cache", cache.string()}}},
                       {"params", {{"min_volatility", 0.4}, {"target_pct", 1.0}, {"stop_pct", -0.4}}}};
  std::ofstream(tmp + "/tf.json") << tf.dump(2);
  const auto t =
      testing::run_cli({"backtest", "-c", tmp + "/tf.json", "-p", tmp + "/none.json", "--trades-out", tmp + "/tf.csv"});
  INFO(t.output);
  REQUIRE(t.exit_code == 0);
  const auto kept = csv_lines(tmp + "/tf.csv");
  REQUIRE(kept.size() > 100);
  CHECK(kept[0] == "trade,ticker,entry_price,exit,percent,return,entry_time,exit_time");
  CHECK(static_cast<double>(kept.size() - 1) == printed(t.output, "kept"));
  const std::regex kept_row(
      R"(\d+,[A-Z]+,[^,]+,(target|stop|logged),[^,]+,[^,]+,2024-01-0\d \d\d:\d\d:\d\d,2024-01-0\d \d\d:\d\d:\d\d)");
  // Their outcomes add up to the score (a sum of percents; exact in fixed point, here in doubles).
  double percent = 0.0;
  for (std::size_t i = 1; i < kept.size(); ++i) {
    CHECK(std::regex_match(kept[i], kept_row));
    std::vector<std::string> fields;
    std::stringstream row(kept[i]);
    for (std::string f; std::getline(row, f, ',');) fields.push_back(f);
    REQUIRE(fields.size() == 8);
    percent += std::stod(fields[4]);
    CHECK(std::stod(fields[5]) == std::stod(fields[4]) / 100.0);
  }
  CHECK(std::fabs(percent - printed(t.output, "score")) < 1e-6);
  // Not from the GPU: said so (in a build without CUDA, that there is none).
  const auto cuda = testing::run_cli({"backtest", "-c", tmp + "/atc.json", "-p", tmp + "/none.json", "--trades-out",
                                      tmp + "/atc_gpu.csv", "--executor", "cuda"});
  CHECK(cuda.exit_code == 2);
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

TEST_CASE("no test, example, benchmark or script names a path outside the repository", "[cpu][first-hour]") {
  // A user's clone has nothing beside it: every path these files name that climbs with
  // "../" must land inside the repository. A config's paths are relative to its own folder
  // (examples/x.json's "../data/..." is data/); the code's run from the repository root.
  const fs::path root = fs::path(testing::source_dir()).lexically_normal();
  const std::regex climbing(R"((\.\./)+[A-Za-z_][\w.-]*)");
  const auto inside = [&](const fs::path& p) {
    const auto rel = p.lexically_normal().lexically_relative(root);
    return !rel.empty() && *rel.begin() != "..";
  };
  std::size_t files = 0, paths = 0;
  for (const char* dir : {"tests", "examples", "bench", "scripts", ".ci"}) {
    for (const auto& entry : fs::recursive_directory_iterator(root / dir)) {
      // Skipped: raw benchmark outputs (records of runs, read by nothing) and this file,
      // whose own examples of such paths check the check below.
      if (!entry.is_regular_file() || entry.path().filename() == "test_first_hour.cpp" ||
          entry.path().parent_path().filename() == "results")
        continue;
      ++files;
      const fs::path base = entry.path().extension() == ".json" ? entry.path().parent_path() : root;
      std::ifstream in(entry.path());
      std::string line;
      for (std::size_t n = 1; std::getline(in, line); ++n) {
        for (std::sregex_iterator m(line.begin(), line.end(), climbing), end; m != end; ++m) {
          ++paths;
          if (!inside(base / m->str())) FAIL_CHECK(entry.path().string() << ":" << n << ": " << m->str());
        }
      }
    }
  }
  CHECK(files > 50);
  CHECK(paths >= 10);  // the examples' "../data/..." at least: the scan sees paths
  // The check itself: a path beside the repository is outside, the examples' data inside.
  CHECK_FALSE(inside(root / "../elsewhere/data"));
  CHECK(inside(root / "examples" / "../data/EURUSD.csv"));
}

TEST_CASE("generated data: the run refuses before its directory exists and prints the exact command",
          "[cpu][first-hour]") {
  const std::string tmp = testing::make_temp_dir("generate-hint");
  io::Json config = testing::read_json(testing::source_dir() + "/examples/trade_filter_tpe.json");
  config["data"]["market_dir"] = "tf/market";
  config["data"]["trades"] = "tf/trades.csv";
  config["data"]["generate"] = {{"days", 2}, {"trades", 300}, {"seed", 5}};
  config["data"]["cache_dir"] = "cache";
  config["objective"]["min_trades"] = 1;
  std::ofstream(tmp + "/study.json") << config.dump(2);
  std::vector<std::string> run = {"run", "-c",    tmp + "/study.json", "--trials", "64", "--executor", "cpu",
                                  "-q",  "--out", tmp + "/run"};
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
    const auto p =
        testing::start_process({testing::cli_path(), "run", "-c", study, "--executor", "cpu", "-q", "--out", dir});
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
                                         "tpeopt resume " +
                                         dir + "\n"));
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
                                         "Continue with:\ntpeopt resume " +
                                         dir + "\n"));
  }
  CHECK(second_seen);
  fs::remove_all(tmp);
}
