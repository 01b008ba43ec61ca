#include "support/conformance.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "common/error.hpp"

#include "io/candle_set.hpp"
#include "io/candles_csv.hpp"
#include "support/paths.hpp"
#include "support/process.hpp"
#include "tpe/random_sampler.hpp"

namespace tpeopt::testing {

namespace fs = std::filesystem;

namespace {

/// Bars [begin, end) of `all` as symbol `name`.
void append_slice(CandleSet& set, const Candles& all, const std::string& name, std::size_t begin, std::size_t end) {
  Candles c;
  c.source = all.source;
  for (std::size_t i = begin; i < end; ++i) {
    c.time_ms.push_back(all.time_ms[i]);
    c.open.push_back(all.open[i]);
    c.high.push_back(all.high[i]);
    c.low.push_back(all.low[i]);
    c.close.push_back(all.close[i]);
    c.volume.push_back(all.volume[i]);
  }
  set.append(name, all.source, c);
}

}  // namespace

const strategies::SampleData& conformance_data() {
  static const strategies::SampleData data = [] {
    strategies::SampleData d;
    d.candles_csv = fs::path(source_dir()) / "data" / "backtesting-py" / "EURUSD.csv";
    d.scratch = make_process_temp_dir("conformance");
    d.candles_dir = d.scratch / "three_symbols";
    const Candles eurusd = io::read_candles_csv(d.candles_csv);
    CandleSet three;
    append_slice(three, eurusd, "A", 0, 2500);
    append_slice(three, eurusd, "B", 1000, 4000);
    append_slice(three, eurusd, "C", 2500, eurusd.size());
    io::write_candle_set_dir(three, d.candles_dir);
    return d;
  }();
  return data;
}

std::vector<ConformanceCase> conformance_cases() {
  std::vector<ConformanceCase> out;
  for (const auto& entry : strategies::registry().entries()) {
    // A strategy scored by its caller (StrategyEntry::scored_by_caller: a Python function)
    // cannot be evaluated by tpeopt's executors, which is all this harness does; it has no
    // samples, and tests/engine/test_caller_scored.cpp runs it through a caller's executor.
    if (!entry.scored_by_caller.empty()) continue;
    REQUIRE(entry.samples);  // every strategy tpeopt scores offers samples to the harness
    for (const auto& sample : entry.samples(conformance_data())) {
      io::Json config = sample.config;
      config["strategy"] = entry.name;
      config["search"] = {{"sampler", "random"}, {"trials", 64}, {"batch", 16},
                          {"depth", 2},          {"seed", 3},    {"top_k", 5}};
      if (!config.contains("params")) {
        io::Json params = io::Json::object();
        for (const auto& p : entry.params.specs()) {
          if (p.typical_low == p.typical_high) {
            params[p.name] = p.typical_low;
            continue;
          }
          params[p.name] = {{"type", p.integer ? "int" : "float"}, {"low", p.typical_low}, {"high", p.typical_high}};
        }
        config["params"] = params;
      }
      out.push_back({&entry, entry.name + ": " + sample.label, config});
    }
  }
  return out;
}

io::StudyConfig conformance_study(const ConformanceCase& c, const io::Json& patch) {
  io::Json config = c.config;
  config.merge_patch(patch);
  return io::parse_study_config(config, c.label, conformance_data().scratch);
}

engine::BatchRequest random_batch(const io::StudyConfig& config, std::size_t n, std::uint64_t seed) {
  tpe::RandomSampler sampler(config.space, seed);
  engine::BatchRequest r;
  r.n_trials = n;
  r.n_axes = config.space.size();
  r.values.resize(std::max<std::size_t>(1, n * r.n_axes));
  sampler.ask(0, n, r.values.data());
  return r;
}

strategies::FoldSpec equal_folds(std::size_t begin, std::size_t end, std::size_t K, std::size_t embargo) {
  strategies::FoldSpec f;
  f.embargo = embargo;
  for (std::size_t k = 0; k <= K; ++k) f.edges.push_back(begin + (end - begin) * k / K);
  return f;
}

std::unique_ptr<strategies::Strategy> folded_or_null(const strategies::Strategy& strategy, std::size_t K,
                                                     std::size_t embargo, const strategies::AcrossFolds& rule) {
  if (strategy.n_atoms() == 0) return nullptr;  // no time atoms: nothing to cut
  try {
    return strategy.with_folds(equal_folds(0, strategy.n_atoms(), K, embargo), rule);
  } catch (const Error& e) {
    if (std::string(e.what()).find("cannot be split into folds") == std::string::npos) throw;
    return nullptr;
  }
}

}  // namespace tpeopt::testing
