// Data subsets in the engine (docs/strategies.md, "Data subsets"): slicing, rungs, the told outcomes of pruned
// trials, successive halving inside a batch (exact survivors, determinism, resume) and the
// hold-out (the optimizer sees only the in-sample part).
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>

#include "common/error.hpp"
#include "engine/halving_executor.hpp"
#include "engine/param_binding.hpp"
#include "io/candles_generator.hpp"
#include "storage/journal.hpp"
#include "storage/run_directory.hpp"
#include "storage/walk_forward.hpp"
#include "strategies/exhaustion/exhaustion_strategy.hpp"
#include "strategies/trade_filter/trade_filter.hpp"
#include "strategies/trade_filter/trade_filter_cache.hpp"
#include "strategies/trade_filter/trade_filter_strategy.hpp"
#include "study/data_subsets.hpp"
#include "study/study.hpp"
#include "support/bits.hpp"
#include "support/identical_runs.hpp"
#include "support/process.hpp"
#include "support/trade_filter_fixture.hpp"
#include "tpe/parzen_estimator.hpp"

using namespace tpeopt;
using strategies::AtomRange;

namespace {

using tpeopt::testing::same_bits;

io::StudyConfig tf_config(std::uint64_t trials, std::uint64_t batch, std::uint64_t depth, std::uint64_t seed,
                          int days = 12) {
  const auto cache = testing::trade_filter_cache(days, 900, 9);
  return testing::trade_filter_config(
      cache, testing::trade_filter_continuous_params(0.2, 3.0),
      fmt::format(R"({{"sampler": "tpe", "trials": {}, "batch": {}, "depth": {}, "seed": {}, "top_k": 8,
                     "tpe": {{"n_startup_trials": 10}}}})",
                  trials, batch, depth, seed),
      2);
}

engine::StudyRun run(const io::StudyConfig& c, const strategies::Strategy& s, bool serial,
                     std::vector<engine::ReplayedBatch> replay = {}) {
  engine::RunOptions o;
  o.serial = serial;
  o.executor = "cpu";
  o.cpu_threads = 2;
  o.keep_trials = true;
  return engine::run_study(c, s, o, nullptr, std::move(replay));
}

using tpeopt::testing::require_identical;

/// Scores a trial's parameters on `s` directly (the CPU reference).
strategies::TrialScore score_on(const strategies::Strategy& s, const io::StudyConfig& c,
                                const std::vector<double>& params) {
  const engine::ParamBinding binding(s, c.space, c.fixed);
  std::vector<double> slots(binding.n_slots()), metrics(s.metric_names().size());
  binding.fill(params.data(), slots.data());
  return s.evaluate(slots.data(), metrics.data());
}

}  // namespace

TEST_CASE("subsets: equal slices cut the atoms into consecutive groups of almost equal size", "[cpu][subsets]") {
  const std::size_t total = GENERATE(1u, 2u, 7u, 16u, 100u);
  const std::size_t n = GENERATE(1u, 3u, 16u);
  CAPTURE(total, n);
  // Two input ranges with a gap between them.
  const std::size_t first = total / 2;
  std::vector<AtomRange> ranges;
  if (first > 0) ranges.push_back({0, first});
  ranges.push_back({first + 5, total + 5});
  const auto slices = engine::equal_slices(ranges, n);
  REQUIRE(slices.size() == std::min(n, total));
  std::vector<std::size_t> atoms;
  std::size_t smallest = total, largest = 0;
  for (const auto& s : slices) {
    const std::size_t c = engine::atom_count(s);
    smallest = std::min(smallest, c);
    largest = std::max(largest, c);
    for (const auto& r : s)
      for (std::size_t k = r.begin; k < r.end; ++k) atoms.push_back(k);
  }
  REQUIRE(largest - smallest <= 1);
  REQUIRE(smallest >= 1);
  std::vector<std::size_t> expected;
  for (const auto& r : ranges)
    for (std::size_t k = r.begin; k < r.end; ++k) expected.push_back(k);
  REQUIRE(atoms == expected);  // consecutive, in order, every atom once, none from the gap
}

TEST_CASE("subsets: rungs grow by eta and end with every slice, the slice order is a seeded permutation",
          "[cpu][subsets]") {
  io::HalvingConfig h;
  h.eta = 3;
  h.min_slices = 2;
  REQUIRE(engine::rung_slice_counts(20, h) == std::vector<std::size_t>{2, 6, 18, 20});
  REQUIRE(engine::rung_slice_counts(18, h) == std::vector<std::size_t>{2, 6, 18});
  REQUIRE(engine::rung_slice_counts(2, h) == std::vector<std::size_t>{2});
  h.eta = 2;
  h.min_slices = 1;
  REQUIRE(engine::rung_slice_counts(5, h) == std::vector<std::size_t>{1, 2, 4, 5});

  const auto a = engine::shuffled_slice_order(30, 7), b = engine::shuffled_slice_order(30, 7);
  const auto c = engine::shuffled_slice_order(30, 8);
  REQUIRE(a == b);
  REQUIRE(a != c);
  auto sorted = a;
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t i = 0; i < sorted.size(); ++i) REQUIRE(sorted[i] == i);
  REQUIRE(engine::scaled_min_trades(10, 3, 20) == 2);
  REQUIRE(engine::scaled_min_trades(10, 20, 20) == 10);
  REQUIRE(engine::scaled_min_trades(1, 1, 365) == 1);
}

TEST_CASE("subsets: Spearman's rank correlation", "[cpu][subsets]") {
  REQUIRE(engine::spearman_correlation({1, 2, 3, 4}, {10, 20, 30, 40}) == Approx(1.0));
  REQUIRE(engine::spearman_correlation({1, 2, 3, 4}, {4, 3, 2, 1}) == Approx(-1.0));
  // x = ranks 1..5, y ranks 2,1,4,3,5: 1 - 6 * 4 / (5 * 24) = 0.8
  REQUIRE(engine::spearman_correlation({1, 2, 3, 4, 5}, {0.2, 0.1, 0.4, 0.3, 0.5}) == Approx(0.8));
  REQUIRE(std::isnan(engine::spearman_correlation({1}, {2})));
  REQUIRE(std::isnan(engine::spearman_correlation({1, 1, 1}, {1, 2, 3})));
}

TEST_CASE("halving: pruned trials are told after complete ones, deeper rungs and better scores first",
          "[cpu][subsets][halving]") {
  const auto direction = GENERATE(tpe::Direction::Maximize, tpe::Direction::Minimize);
  const double sign = direction == tpe::Direction::Maximize ? 1.0 : -1.0;
  engine::BatchResult r;
  r.n_rungs = 3;
  // trial: score, violation, rung
  struct T {
    double score, violation;
    int rung;
  };
  const std::vector<T> trials = {
      {sign * 1.0, 0, 2},  {sign * -5.0, 0, 2},  // complete, feasible
      {sign * 50.0, 0, 0}, {sign * 2.0, 0, 1},  {sign * 1.0, 0, 1}, {sign * 1e300, 0, 0},
      {NAN, 0, 1},         {sign * 3.0, 2, 1},  {sign * 3.0, 1, 2},  // NaN pruned, infeasible pruned / complete
  };
  for (const auto& t : trials) {
    r.scores.push_back(t.score);
    r.violations.push_back(t.violation);
    r.rung.push_back(t.rung);
  }
  r.n_trials = trials.size();
  std::vector<double> score, violation;
  for (std::size_t i = 0; i < trials.size(); ++i) {
    // The sampler is told the state and the rung, not a code.
    const tpe::TrialOutcome told = engine::told_outcome(r, i);
    CAPTURE(i);
    REQUIRE(told.rung == trials[i].rung);
    REQUIRE(told.pruned() == (trials[i].rung < 2));
    REQUIRE(testing::same_bits(told.score, trials[i].score));
    REQUIRE(told.violation == trials[i].violation);
    const tpe::RankedOutcome o = tpe::ranked(told, direction);
    REQUIRE_FALSE(std::isnan(o.score));
    score.push_back(o.score);
    violation.push_back(o.violation);
  }
  // The order TPE's split uses: take the best k for every k and check which are below.
  const std::vector<std::size_t> expected = {0, 1, 3, 4, 6, 5, 2, 8, 7};
  for (std::size_t k = 1; k <= trials.size(); ++k) {
    CAPTURE(k);
    const auto below = tpe::detail::split_below(score, violation, direction, k);
    for (std::size_t j = 0; j < trials.size(); ++j) {
      const bool in = std::find(expected.begin(), expected.begin() + static_cast<std::ptrdiff_t>(k), j) !=
                      expected.begin() + static_cast<std::ptrdiff_t>(k);
      CAPTURE(j);
      REQUIRE(static_cast<bool>(below[j]) == in);
    }
  }
  // Without halving the outcome is the result itself: complete, no rung, ranked as it is.
  engine::BatchResult plain = r;
  plain.rung.clear();
  plain.n_rungs = 0;
  for (std::size_t i : {2, 6, 7}) {
    const tpe::TrialOutcome told = engine::told_outcome(plain, i);
    CAPTURE(i);
    REQUIRE_FALSE(told.pruned());
    REQUIRE(told.rung == -1);
    const tpe::RankedOutcome o = tpe::ranked(told, direction);
    REQUIRE(testing::same_bits(o.score, trials[i].score));
    REQUIRE(o.violation == trials[i].violation);
  }
}

TEST_CASE("halving: survivors' final scores equal their all-slice evaluations", "[cpu][subsets][halving]") {
  auto config = tf_config(120, 40, 2, 5);
  config.search.halving.enabled = true;
  config.search.halving.eta = 3;
  config.search.halving.min_slices = 1;
  const auto full = engine::make_strategy(config);
  const auto result = run(config, *full, false);
  const std::size_t n_days = full->n_atoms();
  const auto counts = engine::rung_slice_counts(n_days, config.search.halving);
  REQUIRE(counts.size() >= 3);
  const auto order = engine::shuffled_slice_order(n_days, config.search.seed);
  // Rung r's strategy, built independently: the days of the first counts[r] shuffled slices.
  auto rung_strategy = [&](std::size_t r) {
    std::vector<AtomRange> ranges;
    for (std::size_t k = 0; k < counts[r]; ++k) ranges.push_back({order[k], order[k] + 1});
    return full->subset(ranges, engine::scaled_min_trades(2, counts[r], n_days));
  };
  std::vector<std::unique_ptr<strategies::Strategy>> rungs;
  for (std::size_t r = 0; r < counts.size(); ++r) rungs.push_back(rung_strategy(r));

  std::map<std::uint64_t, std::size_t> survivors_per_batch, evaluated_per_rung;
  for (const auto& t : result.result.trials()) {
    CAPTURE(t.trial);
    REQUIRE(t.rung >= 0);
    REQUIRE(t.rung < static_cast<int>(counts.size()));
    REQUIRE(t.pruned == (t.rung + 1 < static_cast<int>(counts.size())));
    // Every trial's recorded result is its evaluation on its last rung's slices.
    const auto s = score_on(*rungs[static_cast<std::size_t>(t.rung)], config, t.params);
    REQUIRE(same_bits(s.score, t.score));
    REQUIRE(s.violation == t.violation);
    if (!t.pruned) {
      ++survivors_per_batch[t.batch];
      // The final score is the all-slice (= whole in-sample data) score.
      const auto all = score_on(*full, config, t.params);
      REQUIRE(same_bits(all.score, t.score));
    }
  }
  // 40 trials, eta 3: 40 -> 14 -> 5 -> 2 -> ... survive each rung.
  std::size_t expect = 40;
  for (std::size_t r = 0; r + 1 < counts.size(); ++r) expect = (expect + 2) / 3;
  for (std::uint64_t b = 0; b < 3; ++b) REQUIRE(survivors_per_batch[b] == expect);
  // The top K holds survivors only.
  for (const auto& t : result.result.top()) REQUIRE_FALSE(t.pruned);
}

TEST_CASE("halving: pipelined and serial runs are identical, and so is a resumed run",
          "[cpu][subsets][halving][determinism]") {
  const std::uint64_t depth = GENERATE(1u, 3u);
  CAPTURE(depth);
  auto config = tf_config(150, 24, depth, 17);
  config.search.halving.enabled = true;
  config.search.halving.eta = 2;
  config.search.halving.min_slices = 2;
  const auto full = engine::make_strategy(config);
  const auto pipelined = run(config, *full, false);
  const auto serial = run(config, *full, true);
  require_identical(pipelined.result, serial.result);

  // A run recorded into a directory, then "resumed" from the first batches of its journal.
  const std::string dir = testing::make_process_temp_dir("halving_resume") + "/run";
  {
    auto recorder = engine::RunRecorder::create(dir, config, *full, "cpu");
    engine::RunOptions o;
    o.executor = "cpu";
    o.cpu_threads = 2;
    o.keep_trials = true;
    const auto recorded = engine::run_study(config, *full, o, recorder.get());
    recorder->finish(recorded.result, recorded.summary);
    require_identical(recorded.result, pipelined.result);
  }
  auto journal = engine::read_journal(std::filesystem::path(dir) / "journal.bin");
  REQUIRE(journal.records.size() == 7);
  std::vector<engine::ReplayedBatch> replay;
  for (std::size_t k = 0; k < 3; ++k) {
    REQUIRE(journal.records[k].batch.result.rung.size() == journal.records[k].batch.result.n_trials);
    replay.push_back(journal.records[k].batch);
  }
  const auto resumed = run(config, *full, false, std::move(replay));
  require_identical(resumed.result, pipelined.result);

  std::size_t pruned = 0;
  for (const auto& t : pipelined.result.trials()) pruned += t.pruned ? 1 : 0;
  REQUIRE(pruned > 50);
}

TEST_CASE("hold-out: the optimizer sees only the in-sample part, the top K is scored out of sample",
          "[cpu][subsets][holdout]") {
  auto config = tf_config(80, 20, 2, 3, 10);
  config.holdout.fraction = 0.3;
  const auto full = engine::make_strategy(config);
  const auto split = engine::split_holdout(*full, config.holdout);
  REQUIRE(split.in_sample.size() == 1);
  REQUIRE(split.out_of_sample.size() == 1);
  REQUIRE(split.in_sample.front().begin == 0);
  REQUIRE(split.in_sample.front().end == split.out_of_sample.front().begin);
  REQUIRE(split.out_of_sample.front().end == full->n_atoms());
  // The last 30% of the time span: days starting at or after t0 + 0.7 (t1 - t0).
  const double t0 = static_cast<double>(full->atom_time_s(0)),
               t1 = static_cast<double>(full->atom_time_s(full->n_atoms() - 1));
  for (std::size_t k = 0; k < full->n_atoms(); ++k)
    REQUIRE((k >= split.out_of_sample.front().begin) == (full->atom_time_s(k) >= t0 + 0.7 * (t1 - t0)));

  const auto in = full->subset(split.in_sample, 2);
  const std::int64_t oos_min =
      engine::scaled_min_trades(2, engine::atom_count(split.out_of_sample), engine::atom_count(split.in_sample));
  const auto out = full->subset(split.out_of_sample, oos_min);
  const auto r = run(config, *full, false);
  REQUIRE(r.holdout.has_value());
  const auto& h = *r.holdout;
  REQUIRE(h.scores.size() == r.result.top().size());
  REQUIRE(h.in_sample_atoms + h.out_of_sample_atoms == full->n_atoms());
  namespace tf = strategies::trade_filter;
  int differs = 0;
  for (const auto& t : r.result.trials()) {
    const auto s_in = score_on(*in, config, t.params);
    REQUIRE(same_bits(s_in.score, t.score));  // what the optimizer saw: the in-sample score
    const auto s_full = score_on(*full, config, t.params);
    const auto s_out = score_on(*out, config, t.params);
    REQUIRE(tf::fixed_point(s_in.score) + tf::fixed_point(s_out.score) == tf::fixed_point(s_full.score));
    differs += same_bits(s_full.score, t.score) ? 0 : 1;
  }
  REQUIRE(differs > 0);
  std::vector<double> a, b;
  for (std::size_t i = 0; i < r.result.top().size(); ++i) {
    const auto s = score_on(*out, config, r.result.top()[i].params);
    REQUIRE(same_bits(s.score, h.scores[i]));
    REQUIRE(s.violation == h.violations[i]);
    a.push_back(r.result.top()[i].score);
    b.push_back(s.score);
  }
  REQUIRE(same_bits(h.spearman, engine::spearman_correlation(a, b)));
}

TEST_CASE("subsets: config errors name the key", "[cpu][subsets][config]") {
  auto parse = [](const std::string& data_extra, const std::string& search_extra) {
    const std::string text =
        R"({"strategy": "trade_filter", "data": {"cache": "x.tfc")" + data_extra + R"(}, "search": {"trials": 10)" +
        search_extra +
        R"(}, "params": {"target_pct": 1.0, "stop_pct": -1.0, "min_adx7": {"type": "float", "low": 0, "high": 1}}})";
    return io::parse_study_config(io::Json::parse(text), "c.json", ".");
  };
  auto error_of = [&](const std::string& d, const std::string& s) -> std::string {
    try {
      parse(d, s);
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  };
  REQUIRE_THAT(error_of(R"(, "holdout": 1.5)", ""), Catch::Contains("data.holdout: expected a fraction in (0, 1)"));
  REQUIRE_THAT(error_of(R"(, "holdout": {"fraction": 0})", ""), Catch::Contains("data.holdout.fraction"));
  REQUIRE_THAT(error_of(R"(, "holdout": {"ranges": [["2024-02-30", "2024-03-01"]]})", ""),
               Catch::Contains("data.holdout.ranges[0][0]"));
  REQUIRE_THAT(error_of(R"(, "holdout": {"ranges": [["2024-03-02", "2024-03-01"]]})", ""),
               Catch::Contains("data.holdout.ranges[0]: the range ends before it starts"));
  REQUIRE_THAT(error_of(R"(, "holdout": {"fraction": 0.2, "ranges": []})", ""),
               Catch::Contains("data.holdout: give either"));
  REQUIRE_THAT(error_of(R"(, "holdout": {"share": 0.2})", ""), Catch::Contains("data.holdout.share: unknown key"));
  REQUIRE_THAT(error_of("", R"(, "halving": {"eta": 1})"), Catch::Contains("search.halving.eta"));
  REQUIRE_THAT(error_of("", R"(, "halving": {"min_slices": 0})"), Catch::Contains("search.halving.min_slices"));
  REQUIRE_THAT(error_of("", R"(, "halving": {"rungs": 3})"), Catch::Contains("search.halving.rungs: unknown key"));

  const auto c = parse(R"(, "holdout": {"ranges": [["2024-01-01", "2024-01-31"]]})", R"(, "halving": true)");
  REQUIRE(c.holdout.ranges.size() == 1);
  REQUIRE(c.holdout.ranges[0].first == io::parse_date_days("2024-01-01", "x") * 86400);
  REQUIRE(c.holdout.ranges[0].second == (io::parse_date_days("2024-01-31", "x") + 1) * 86400);
  REQUIRE(io::parse_date_days("1970-01-01", "x") == 0);
  REQUIRE(io::parse_date_days("2024-03-01", "x") - io::parse_date_days("2024-02-28", "x") == 2);  // leap year
  REQUIRE_FALSE(c.settings->data_json().contains("holdout"));  // not passed to the data loader
  REQUIRE(c.search.halving.enabled);
  REQUIRE(c.search.halving.eta == 3);
  // The resolved config parses back to the same subsets (config.json of a run directory).
  const auto back = io::parse_study_config(c.resolved(), "resolved", ".");
  REQUIRE(back.holdout.ranges == c.holdout.ranges);
  REQUIRE(back.search.halving.enabled);
  REQUIRE(back.resolved() == c.resolved());
  // A config without subsets resolves without their keys, so its config digest does not depend on them.
  const auto plain = parse("", "");
  REQUIRE_FALSE(plain.resolved()["data"].contains("holdout"));
  REQUIRE_FALSE(plain.resolved()["search"].contains("halving"));
}

TEST_CASE("walk-forward: fold f optimizes on window f and is scored on window f + 1", "[cpu][subsets][walk_forward]") {
  auto parent = tf_config(40, 20, 2, 6, 12);
  parent.walk_forward.folds = 3;
  const auto full = engine::make_strategy(parent);
  const auto windows = engine::walk_forward_windows(*full, parent.walk_forward);
  REQUIRE(windows.size() == 4);
  REQUIRE(windows.front().front().begin == 0);
  REQUIRE(windows.back().back().end == full->n_atoms());
  for (std::size_t w = 0; w + 1 < windows.size(); ++w) REQUIRE(windows[w].back().end == windows[w + 1].front().begin);
  {
    engine::RunOptions o;
    o.executor = "cpu";
    REQUIRE_THROWS_WITH(engine::run_study(parent, *full, o), Catch::Contains("data.walk_forward"));
  }
  const std::uint64_t f = GENERATE(0u, 2u);
  CAPTURE(f);
  const auto config = engine::fold_config(parent, f);
  REQUIRE(config.has_parts());
  // The fold's resolved config names its fold and parses back to it (its run directory).
  REQUIRE(io::parse_study_config(config.resolved(), "r", ".").walk_forward.fold == static_cast<std::int64_t>(f));
  const auto in = full->subset(windows[f], 2);
  const auto out = full->subset(windows[f + 1], engine::scaled_min_trades(2, engine::atom_count(windows[f + 1]),
                                                                          engine::atom_count(windows[f])));
  const auto r = run(config, *full, false);
  for (const auto& t : r.result.trials()) REQUIRE(same_bits(score_on(*in, config, t.params).score, t.score));
  REQUIRE(r.holdout.has_value());
  for (std::size_t i = 0; i < r.result.top().size(); ++i)
    REQUIRE(same_bits(score_on(*out, config, r.result.top()[i].params).score, r.holdout->scores[i]));
}

TEST_CASE("halving: exhaustion slices are blocks of the in-sample bars, each trial scored on its rung's blocks",
          "[cpu][subsets][halving][exhaustion]") {
  io::CandleSetGeneratorOptions g;
  g.symbols = 1;
  g.bars = 1600;
  g.seed = 12;
  strategies::ExhaustionOptions options;
  options.min_trades = 6;  // as the config says (make_strategy would do this)
  const strategies::ExhaustionStrategy full(io::generate_candle_set(g).symbol(0), options);
  const std::string text = R"({"strategy": "exhaustion", "data": {"candles": "in-memory.csv", "holdout": 0.25},
      "objective": {"min_trades": 6},
      "search": {"trials": 60, "batch": 30, "seed": 3, "halving": {"eta": 2, "slices": 8}},
      "params": {"ema_fast": {"type": "int", "low": 3, "high": 20}, "ema_slow": {"type": "int", "low": 10, "high": 60},
                 "z_window": {"type": "int", "low": 5, "high": 40}, "atr_window": {"type": "int", "low": 3, "high": 30},
                 "vol_z": {"type": "float", "low": -1, "high": 2}, "tr_z": {"type": "float", "low": -1, "high": 2},
                 "cloc_min": {"type": "float", "low": 0, "high": 0.8}, "atr_stop_mult": {"type": "float", "low": 0.5, "high": 3},
                 "reward_r": {"type": "float", "low": 0.5, "high": 5}, "max_hold": {"type": "int", "low": 2, "high": 80}}})";
  const auto config = io::parse_study_config(io::Json::parse(text), "exhaustion test", ".");
  const auto split = engine::split_holdout(full, config.holdout);
  REQUIRE(split.in_sample.size() == 1);
  const auto slices = engine::halving_slices(full, split.in_sample, config.search.halving);
  REQUIRE(slices.size() == 8);
  const auto order = engine::shuffled_slice_order(8, 3);
  const auto counts = engine::rung_slice_counts(8, config.search.halving);
  REQUIRE(counts == std::vector<std::size_t>{1, 2, 4, 8});
  const std::size_t whole = engine::atom_count(split.in_sample);
  std::vector<std::unique_ptr<strategies::Strategy>> rungs;
  for (std::size_t c : counts) {
    std::vector<strategies::BarBlock> blocks;
    std::size_t atoms = 0;
    for (std::size_t k = 0; k < c; ++k)
      for (const auto& r : slices[order[k]]) {
        blocks.push_back({static_cast<int>(r.begin), static_cast<int>(r.end)});
        atoms += r.end - r.begin;
      }
    std::sort(blocks.begin(), blocks.end(), [](const auto& a, const auto& b) { return a.begin < b.begin; });
    rungs.push_back(full.with_blocks(blocks, static_cast<int>(engine::scaled_min_trades(6, atoms, whole))));
  }
  const auto r = run(config, full, true);
  std::size_t survivors = 0;
  for (const auto& t : r.result.trials()) {
    CAPTURE(t.trial, t.rung);
    const auto s = score_on(*rungs.at(static_cast<std::size_t>(t.rung)), config, t.params);
    REQUIRE(same_bits(s.score, t.score));
    REQUIRE(s.violation == t.violation);
    survivors += t.pruned ? 0 : 1;
  }
  REQUIRE(survivors == 2 * 4);  // 30 -> 15 -> 8 -> 4 per batch
  REQUIRE(r.holdout.has_value());
}
