// [long-runs]: runs survive SIGKILL and SIGINT and resume to the very same run; the
// journal's torn tail is dropped, corruption earlier is refused, and so is a resume
// with a changed config.
#include <catch2/catch.hpp>

#include <signal.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "io/json_fields.hpp"
#include "storage/journal.hpp"
#include "support/files.hpp"
#include "support/paths.hpp"
#include "support/process.hpp"

using namespace tpeopt;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

using testing::read_json;
using testing::run_cli;

// A TPE study with the default (batch) preset, or with Optuna's TPE in "auto" mode.
std::string write_config(const std::string& dir, std::uint64_t trials = 400, std::uint64_t batch = 16,
                         bool optuna = false) {
  io::Json j = {{"strategy", "functions"},
                {"function", "styblinski_tang"},
                {"search", {{"sampler", "tpe"}, {"trials", trials}, {"batch", batch}, {"depth", 2}, {"seed", 8}}}};
  // Optuna's "auto" with a budget that moves from the joint model to the per-axis one at 150
  // observations (24 candidates x 150 x (4 float axes + the int axis, which counts 20)), so
  // runs, kills and resumes cross the switch.
  if (optuna)
    j["search"]["tpe"] = {{"preset", "optuna"}, {"multivariate", "auto"}, {"multivariate_budget", 24 * 150 * (4 + 20)}};
  io::Json params = io::Json::object();
  for (int i = 0; i < 4; ++i) params["x" + std::to_string(i)] = {{"type", "float"}, {"low", -5.0}, {"high", 5.0}};
  params["x4"] = {{"type", "int"}, {"low", -3}, {"high", 3}};
  j["params"] = params;
  const std::string path = dir + "/study.json";
  std::ofstream(path) << j.dump(2);
  return path;
}

std::string digest_of(const fs::path& run_dir) { return read_json(run_dir / "summary.json").at("digest"); }

/// Resumes until the run completes (a resume may itself be killed by the caller's plan).
void resume_to_completion(const std::string& run_dir, bool serial) {
  std::vector<std::string> args = {"resume", run_dir, "--executor", "cpu", "-q"};
  if (serial) args.push_back("--serial");
  const auto r = run_cli(args);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
}

}  // namespace

TEST_CASE("a run killed with SIGKILL at 20 random points resumes to the same digest", "[cpu][long-runs][slow]") {
  const std::string tmp = testing::make_temp_dir("kill");
  const std::string config = write_config(tmp);
  const std::string reference_dir = tmp + "/reference";
  const auto reference = run_cli({"run", "-c", config, "--executor", "cpu", "-q", "--out", reference_dir});
  INFO(reference.output);
  REQUIRE(reference.exit_code == 0);
  const std::string expected = digest_of(reference_dir);
  // Kill points are set by how far the journal has grown, not by time: a point drawn as a
  // fraction of the run's duration lands before the start or after the end on a loaded machine.
  const auto journal_bytes = fs::file_size(reference_dir + "/journal.bin");

  std::mt19937_64 rng(2026);
  std::uniform_real_distribution<double> where(0.02, 0.98);
  int resumed_from_journal = 0;
  for (int point = 0; point < 20; ++point) {
    const double fraction = where(rng);
    const bool serial_first = point % 2 == 1, serial_resume = point % 3 == 0;
    CAPTURE(point, fraction, serial_first, serial_resume);
    const std::string dir = tmp + "/killed" + std::to_string(point);
    std::vector<std::string> args = {testing::cli_path(), "run", "-c", config, "--executor", "cpu", "-q", "--out", dir};
    if (serial_first) args.push_back("--serial");
    const auto at = static_cast<std::uintmax_t>(fraction * static_cast<double>(journal_bytes));
    const auto killed = testing::run_and_kill_at_size(args, dir + "/journal.bin", at);
    INFO(killed.output);
    REQUIRE_FALSE(killed.timed_out);
    if (killed.signal != SIGKILL) {  // it finished before a poll saw the journal reach the point: still must match
      REQUIRE(killed.exit_code == 0);
      REQUIRE(digest_of(dir) == expected);
      continue;
    }
    // Every third point: kill the resume too, once its journal has grown halfway from where
    // the first kill left it.
    if (point % 3 == 2) {
      const auto left = fs::file_size(dir + "/journal.bin");
      const auto resumed =
          testing::run_and_kill_at_size({testing::cli_path(), "resume", dir, "--executor", "cpu", "-q"},
                                        dir + "/journal.bin", left + (journal_bytes - left) / 2);
      REQUIRE_FALSE(resumed.timed_out);
    }
    resume_to_completion(dir, serial_resume);
    ++resumed_from_journal;
    REQUIRE(digest_of(dir) == expected);
    // trials.csv was rebuilt from the journal: one row per trial, no duplicates.
    std::ifstream trials(dir + "/trials.csv");
    std::size_t lines = 0;
    for (std::string line; std::getline(trials, line);) ++lines;
    REQUIRE(lines == 401);
  }
  // The points must really have exercised resuming (a run may at most rarely end between the
  // poll that saw its journal reach the point and the kill).
  REQUIRE(resumed_from_journal >= 18);
  fs::remove_all(tmp);
}

TEST_CASE("SIGINT stops after the batch being told, says how to resume, and the resume matches", "[cpu][long-runs]") {
  const std::string tmp = testing::make_temp_dir("sigint");
  const std::string config = write_config(tmp, 600, 8);
  REQUIRE(run_cli({"run", "-c", config, "--executor", "cpu", "-q", "--out", tmp + "/ref"}).exit_code == 0);
  const std::string dir = tmp + "/run";
  // Send SIGINT from a thread after a while; the process handles it and exits 130.
  std::vector<std::string> args = {testing::cli_path(), "run", "-c", config, "--executor", "cpu", "-q", "--out", dir};
  std::thread interrupter([&] {
    std::this_thread::sleep_for(300ms);
    // pkill-free: find our child by its unique --out directory through /proc.
    for (const auto& entry : fs::directory_iterator("/proc")) {
      std::ifstream cmdline(entry.path() / "cmdline");
      std::string text((std::istreambuf_iterator<char>(cmdline)), {});
      if (text.find(dir) != std::string::npos && text.find("run") != std::string::npos) {
        ::kill(std::stoi(entry.path().filename().string()), SIGINT);
      }
    }
  });
  const auto r = testing::run_process(args);
  interrupter.join();
  INFO(r.output);
  if (r.exit_code == 0) {
    WARN("the run finished before SIGINT arrived; nothing interrupted");
  } else {
    REQUIRE(r.exit_code == 130);
    REQUIRE_THAT(r.output, Catch::Contains("tpeopt resume " + dir));
    REQUIRE(read_json(fs::path(dir) / "summary.json").at("complete") == false);
    resume_to_completion(dir, false);
  }
  REQUIRE(digest_of(dir) == digest_of(tmp + "/ref"));
  fs::remove_all(tmp);
}

TEST_CASE("a journal with a torn last record resumes, corruption earlier is refused", "[cpu][long-runs]") {
  const std::string tmp = testing::make_temp_dir("journal");
  const std::string config = write_config(tmp, 160, 16);
  const std::string dir = tmp + "/run";
  REQUIRE(run_cli({"run", "-c", config, "--executor", "cpu", "-q", "--out", dir}).exit_code == 0);
  const std::string expected = digest_of(dir);
  const fs::path journal = fs::path(dir) / "journal.bin";
  const auto full = engine::read_journal(journal);
  REQUIRE(full.records.size() == 10);
  REQUIRE_FALSE(full.dropped_torn_tail);
  const auto size = fs::file_size(journal);

  SECTION("torn: the last record cut short") {
    fs::resize_file(journal, size - 100);
    const auto torn = engine::read_journal(journal);
    REQUIRE(torn.records.size() == 9);
    REQUIRE(torn.dropped_torn_tail);
    const auto r = run_cli({"resume", dir, "--executor", "cpu", "-q"});
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    REQUIRE_THAT(r.output, Catch::Contains("torn last record was dropped"));
    REQUIRE(digest_of(dir) == expected);
    REQUIRE(fs::file_size(journal) == size);
  }
  SECTION("torn: zeros after the last record (blocks allocated, never written)") {
    std::ofstream(journal, std::ios::binary | std::ios::app) << std::string(4096, '\0');
    const auto torn = engine::read_journal(journal);
    REQUIRE(torn.records.size() == 10);
    REQUIRE(torn.dropped_torn_tail);
  }
  SECTION("corrupt: a byte flipped in the third record") {
    {
      std::fstream f(journal, std::ios::binary | std::ios::in | std::ios::out);
      // Flip a byte in the middle of the file, well inside record 2 of 10.
      f.seekp(static_cast<std::streamoff>(size * 3 / 10));
      char c = 0;
      f.seekg(static_cast<std::streamoff>(size * 3 / 10));
      f.get(c);
      f.seekp(static_cast<std::streamoff>(size * 3 / 10));
      f.put(static_cast<char>(c ^ 0x5a));
    }
    REQUIRE_THROWS_WITH(engine::read_journal(journal),
                        Catch::Contains("is corrupt and is not the last one") && Catch::Contains("byte offset"));
    const auto r = run_cli({"resume", dir, "--executor", "cpu", "-q"});
    REQUIRE(r.exit_code == 2);
    REQUIRE_THAT(r.output, Catch::Contains("is corrupt"));
  }
  fs::remove_all(tmp);
}

TEST_CASE("resume refuses a changed config or an older sampler's run, and output errors are clear",
          "[cpu][long-runs]") {
  const std::string tmp = testing::make_temp_dir("refuse");
  const std::string config = write_config(tmp, 64, 16);
  const std::string dir = tmp + "/run";
  REQUIRE(run_cli({"run", "-c", config, "--executor", "cpu", "-q", "--out", dir}).exit_code == 0);

  io::Json cfg = read_json(fs::path(dir) / "config.json");
  cfg["search"]["seed"] = 9;
  std::ofstream(fs::path(dir) / "config.json") << cfg.dump(2);
  const auto r = run_cli({"resume", dir, "--executor", "cpu"});
  REQUIRE(r.exit_code == 2);
  REQUIRE_THAT(r.output, Catch::Contains("refusing to resume: config.json was changed"));

  // Resuming a run whose run.json records `recorded` (nullopt: no field, i.e. version 1) is
  // refused by a tpeopt whose draws are version `current`.
  auto require_refused = [](const std::string& run_dir, std::optional<int> recorded, int current) {
    io::Json run = read_json(fs::path(run_dir) / "run.json");
    if (recorded) run["sampler_draws"] = *recorded;
    else run.erase("sampler_draws");
    std::ofstream(fs::path(run_dir) / "run.json") << run.dump(2);
    const auto refused = run_cli({"resume", run_dir, "--executor", "cpu"});
    REQUIRE(refused.exit_code == 2);
    REQUIRE_THAT(refused.output, Catch::Contains(fmt::format("proposed by sampler draws version {} and this tpeopt's "
                                                             "are version {}",
                                                             recorded.value_or(1), current)));
  };
  // The default (batch TPE) records version 9; a run recorded by an earlier sampler (version 7:
  // batch TPE before evolve was on by default) is refused.
  REQUIRE(read_json(fs::path(dir) / "run.json").at("sampler_draws") == 9);
  require_refused(dir, 7, 9);
  // A batch TPE run of version 8 was started before distinct trials, and its config.json names
  // no "distinct": it resumes with them off (version 8's draws), to the digest of the
  // uninterrupted run.
  {
    io::Json study = read_json(config);
    study["search"]["tpe"] = {{"distinct", false}};
    const std::string v8_config = tmp + "/v8.json", v8_dir = tmp + "/v8";
    std::ofstream(v8_config) << study.dump(2);
    REQUIRE(run_cli({"run", "-c", v8_config, "--executor", "cpu", "-q", "--out", v8_dir}).exit_code == 0);
    REQUIRE(read_json(fs::path(v8_dir) / "run.json").at("sampler_draws") == 8);
    // Its journal's config digest is the one version 8's tpeopt wrote: over the settings without
    // the key, those of the default run of the same study (`dir`, started from `config`).
    REQUIRE(engine::read_journal(fs::path(v8_dir) / "journal.bin").header.config_digest ==
            engine::read_journal(fs::path(dir) / "journal.bin").header.config_digest);
    io::Json cfg = read_json(fs::path(v8_dir) / "config.json");
    REQUIRE(cfg["search"]["tpe"].at("distinct") == false);
    cfg["search"]["tpe"].erase("distinct");  // as version 8's tpeopt wrote it
    std::ofstream(fs::path(v8_dir) / "config.json") << cfg.dump(2);
    const std::string uninterrupted = digest_of(v8_dir);
    const auto journal = fs::path(v8_dir) / "journal.bin";
    fs::resize_file(journal, fs::file_size(journal) / 2);  // a torn tail: resume replays, then continues
    const auto resumed = run_cli({"resume", v8_dir, "--executor", "cpu", "-q"});
    INFO(resumed.output);
    REQUIRE(resumed.exit_code == 0);
    REQUIRE(digest_of(v8_dir) == uninterrupted);
  }
  // Optuna's TPE: a run whose trials an older sampler proposed: without sampler_draws
  // (version 1), the fast sampler of version 2 (g rebuilt by every ask), 3 (running sums on
  // continuous axes only; this study has an int axis) or 5 (one estimator per axis throughout;
  // this study is "auto").
  fs::create_directories(tmp + "/optuna");
  const std::string optuna_config = write_config(tmp + "/optuna", 64, 16, true);
  const std::string old_dir = tmp + "/old";
  REQUIRE(run_cli({"run", "-c", optuna_config, "--executor", "cpu", "-q", "--out", old_dir}).exit_code == 0);
  REQUIRE(read_json(fs::path(old_dir) / "run.json").at("sampler_draws") == 6);
  for (const std::optional<int> recorded :
       {std::optional<int>{}, std::optional<int>{2}, std::optional<int>{3}, std::optional<int>{5}})
    require_refused(old_dir, recorded, 6);
  // The study run with `search.tpe.multivariate` set to `model`, in run directory tmp/name.
  auto run_with_model = [&](const std::string& name, bool model) {
    io::Json study = read_json(optuna_config);
    study["search"]["tpe"] = {{"preset", "optuna"}, {"multivariate", model}};
    const std::string study_config = tmp + "/" + name + ".json", run_dir = tmp + "/" + name;
    std::ofstream(study_config) << study.dump(2);
    REQUIRE(run_cli({"run", "-c", study_config, "--executor", "cpu", "-q", "--out", run_dir}).exit_code == 0);
    return run_dir;
  };
  // `multivariate: false` (the default) proposes as version 5 did: its runs made before
  // "auto" existed resume.
  const std::string per_axis_dir = run_with_model("per_axis", false);
  REQUIRE(read_json(fs::path(per_axis_dir) / "run.json").at("sampler_draws") == 5);
  // A run started before presets existed names none in its config.json: it was Optuna's TPE
  // and resumes as the "optuna" preset, to the same digest (its config digest is unchanged).
  {
    const std::string legacy = tmp + "/legacy";
    fs::copy(per_axis_dir, legacy);
    io::Json cfg = read_json(fs::path(legacy) / "config.json");
    cfg["search"]["tpe"].erase("preset");
    std::ofstream(fs::path(legacy) / "config.json") << cfg.dump(2);
    io::Json summary = read_json(fs::path(legacy) / "summary.json");
    const auto journal = fs::path(legacy) / "journal.bin";
    fs::resize_file(journal, fs::file_size(journal) * 2 / 3);  // a torn tail: resume replays, then continues
    const auto resumed = run_cli({"resume", legacy, "--executor", "cpu", "-q"});
    INFO(resumed.output);
    REQUIRE(resumed.exit_code == 0);
    REQUIRE(digest_of(legacy) == summary.at("digest").get<std::string>());
  }
  require_refused(per_axis_dir, 3, 5);
  // Multivariate TPE's trials are version 4 (Optuna 4.9's bandwidths); a multivariate run
  // proposed with the earlier rule (recorded as 3, or as 1 with the exact acquisition) is refused.
  const std::string mv_dir = run_with_model("multivariate", true);
  REQUIRE(read_json(fs::path(mv_dir) / "run.json").at("sampler_draws") == 4);
  for (const int recorded : {1, 3}) require_refused(mv_dir, recorded, 4);

  // An existing non-empty run directory is not overwritten.
  const auto again = run_cli({"run", "-c", config, "--executor", "cpu", "--out", dir});
  REQUIRE(again.exit_code == 2);
  REQUIRE_THAT(again.output, Catch::Contains("exists and is not empty"));
  // An output directory that cannot be created.
  const auto bad = run_cli({"run", "-c", config, "--executor", "cpu", "--out", config + "/inside-a-file"});
  REQUIRE(bad.exit_code == 2);
  REQUIRE_THAT(bad.output, Catch::Contains("cannot create the directory"));
  fs::remove_all(tmp);
}

TEST_CASE("an executor failure mid-run leaves a resumable journal, resume --executor cpu ends identical",
          "[cpu][long-runs]") {
  const std::string tmp = testing::make_temp_dir("fault");
  const std::string config = write_config(tmp, 160, 16);
  REQUIRE(run_cli({"run", "-c", config, "--executor", "cpu", "-q", "--out", tmp + "/ref"}).exit_code == 0);
  const std::string dir = tmp + "/run";
  ::setenv("TPEOPT_FAIL_AT_BATCH", "6", 1);
  const auto failed = run_cli({"run", "-c", config, "--executor", "cpu", "-q", "--out", dir});
  ::unsetenv("TPEOPT_FAIL_AT_BATCH");
  INFO(failed.output);
  REQUIRE(failed.exit_code == 2);
  REQUIRE_THAT(failed.output, Catch::Contains("injected failure at batch 6") &&
                                  Catch::Contains("continue with: tpeopt resume " + dir));
  REQUIRE(engine::read_journal(fs::path(dir) / "journal.bin").records.size() == 6);
  resume_to_completion(dir, false);
  REQUIRE(digest_of(dir) == digest_of(tmp + "/ref"));
  fs::remove_all(tmp);
}

TEST_CASE("resume refuses changed data", "[cpu][long-runs][exhaustion]") {
  const std::string tmp = testing::make_temp_dir("data-changed");
  // A real slice: the first 600 bars of EURUSD.
  {
    std::ifstream in(testing::data_dir() + "/backtesting-py/EURUSD.csv");
    std::ofstream out(tmp + "/bars.csv");
    std::string line;
    for (int i = 0; i < 601 && std::getline(in, line); ++i) out << line << '\n';
  }
  io::Json j = {{"strategy", "exhaustion"},
                {"data", {{"candles", "bars.csv"}}},
                {"objective", {{"min_trades", 1}}},
                {"search", {{"sampler", "random"}, {"trials", 64}, {"batch", 16}, {"seed", 3}}},
                {"params",
                 {{"ema_fast", {{"type", "int"}, {"low", 3}, {"high", 20}}},
                  {"ema_slow", {{"type", "int"}, {"low", 10}, {"high", 60}}},
                  {"z_window", 20},
                  {"atr_window", 14},
                  {"vol_z", {{"type", "float"}, {"low", 0.0}, {"high", 2.0}}},
                  {"tr_z", 0.5},
                  {"cloc_min", 0.3},
                  {"atr_stop_mult", 1.5},
                  {"reward_r", 2.0},
                  {"max_hold", 24}}}};
  std::ofstream(tmp + "/study.json") << j.dump(2);
  const std::string dir = tmp + "/run";
  const auto first = run_cli({"run", "-c", tmp + "/study.json", "--executor", "cpu", "-q", "--out", dir});
  INFO(first.output);
  REQUIRE(first.exit_code == 0);
  // The same file, the last bar's volume (its last field) changed: still valid data.
  {
    std::ifstream in(tmp + "/bars.csv");
    std::stringstream text;
    text << in.rdbuf();
    std::string s = text.str();
    REQUIRE(s.back() == '\n');
    s.insert(s.size() - 1, "7");
    std::ofstream(tmp + "/bars.csv") << s;
  }
  const auto r = run_cli({"resume", dir, "--executor", "cpu"});
  INFO(r.output);
  REQUIRE(r.exit_code == 2);
  REQUIRE_THAT(r.output, Catch::Contains("refusing to resume: the data changed"));
  fs::remove_all(tmp);
}
