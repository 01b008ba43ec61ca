// The property test of `tpeopt run` over random small configs (support/random_config.hpp):
// the real program, CPU executor, one process per config, so that a crash is seen as the
// signal it is. Each run exits 0 or 4 (it ran to its end, no trial feasible: the user
// guide's exit codes), its run directory holding every trial asked for, or 2 (a refusal
// whose message names a config key); never a signal, never past its time limit.
//
// CI runs TPEOPT_FUZZ_CASES configs (40 by default) from TPEOPT_FUZZ_SEED (1 by default);
// TPEOPT_FUZZ_SECONDS=N runs configs from that seed on for N seconds instead (the long
// mode: scripts/fuzz_configs.sh). A failure prints its seed and config; TPEOPT_FUZZ_SEED=<seed>
// TPEOPT_FUZZ_CASES=1 runs that one again.
#include <catch2/catch.hpp>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <regex>

#include "support/files.hpp"
#include "support/process.hpp"
#include "support/random_config.hpp"

namespace fs = std::filesystem;
using namespace tpeopt::testing;

namespace {

std::uint64_t env_count(const char* name, std::uint64_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtoull(v, nullptr, 10) : fallback;
}

// Whether a refusal names a key of the config: `key:` or `key.sub...:` for one of its
// top-level keys (params.x0: ..., search.batch: ..., data.candles: ...).
bool names_a_key(const std::string& output, const tpeopt::io::Json& config) {
  for (const auto& item : config.items()) {
    const std::regex key("(^|[^A-Za-z0-9_.])" + item.key() + "(\\.[A-Za-z0-9_\\[\\]]+)*:");
    if (std::regex_search(output, key)) return true;
  }
  return false;
}

std::string tail(const std::string& text, std::size_t n = 2000) {
  return text.size() <= n ? text : "..." + text.substr(text.size() - n);
}

}  // namespace

TEST_CASE("tpeopt run: random small configs exit 0, 4 or 2 (a key named), never by a signal", "[cpu][apps][fuzz]") {
  const std::uint64_t first = env_count("TPEOPT_FUZZ_SEED", 1);
  const std::uint64_t seconds = env_count("TPEOPT_FUZZ_SECONDS", 0);
  const std::uint64_t cases = env_count("TPEOPT_FUZZ_CASES", 40);
  const std::chrono::seconds limit(env_count("TPEOPT_FUZZ_RUN_LIMIT", 120));  // one run's wall time at most
  const fs::path dir = make_process_temp_dir("random_configs");
  const auto start = std::chrono::steady_clock::now();
  const auto elapsed = [&] { return std::chrono::steady_clock::now() - start; };
  std::uint64_t ran = 0, refused = 0, failed = 0;
  for (std::uint64_t seed = first;; ++seed) {
    if (seconds > 0 ? elapsed() >= std::chrono::seconds(seconds) : ran >= cases) break;
    const RandomConfig rc = random_study_config(seed);
    const fs::path config = dir / ("config_" + std::to_string(seed) + ".json");
    const fs::path out = dir / ("run_" + std::to_string(seed));
    std::ofstream(config) << rc.config.dump(2) << '\n';
    const ProcessResult r =
        run_process_within({cli_path(), "run", "--config", config.string(), "--executor", "cpu", "--out", out.string()},
                           limit);
    ++ran;
    INFO("seed " << seed << ": " << rc.label << " (TPEOPT_FUZZ_SEED=" << seed << " TPEOPT_FUZZ_CASES=1 runs it again)\n"
                 << "config: " << rc.config.dump(2) << "\nexit " << r.exit_code << ", signal " << r.signal
                 << (r.timed_out ? " (killed at the time limit)" : "") << ", output:\n"
                 << tail(r.output));
    const bool ran_to_end = r.exit_code == 0 || r.exit_code == 4;
    bool ok = !r.timed_out && r.signal == 0 && (ran_to_end || r.exit_code == 2);
    CHECK_FALSE(r.timed_out);
    CHECK(r.signal == 0);
    CHECK((ran_to_end || r.exit_code == 2));
    if (r.exit_code == 2) {
      ++refused;
      ok = ok && names_a_key(r.output, rc.config);
      CHECK(names_a_key(r.output, rc.config));
    }
    if (ran_to_end) {
      // Every trial asked for was told: search.trials, or every point of a grid.
      const auto summary = read_json(out / "summary.json");
      const auto told = summary.at("trials").get<std::uint64_t>();
      if (rc.config["search"]["sampler"] == "grid") {
        CHECK(told >= 1);
      } else {
        ok = ok && told == rc.config["search"]["trials"].get<std::uint64_t>();
        CHECK(told == rc.config["search"]["trials"].get<std::uint64_t>());
      }
    }
    failed += ok ? 0 : 1;
    if (ok) fs::remove(config);  // a failing config stays for the failure report's duration
    fs::remove_all(out);
  }
  std::cout << "random configs: " << ran << " run from seed " << first << " (" << ran - refused << " ran, " << refused
            << " refused with a key named, " << failed << " failed) in "
            << std::chrono::duration_cast<std::chrono::seconds>(elapsed()).count() << " s\n";
}
