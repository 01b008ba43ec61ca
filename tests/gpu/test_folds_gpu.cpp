// [folds] on the GPU: studies with data.folds (and a hold-out, an embargo) run by the CUDA
// executor give the CPU executor's bits for every trial's score, violation and metrics (the
// fold columns included), under every objective.across_folds rule, for each strategy whose
// twin scores folds: the long/short walk (bollinger, donchian; also cut into forced numbers of
// segments, strategies/device/signal_segments.hpp), ema_cross (one warp per trial) and
// exhaustion (whose kernels differ by launch: one walk, blocks split over warps, segmented
// walks; each path is run); over a data set of three symbols of different spans, every
// objective.aggregate (the per-symbol rows with their fold columns, then the aggregation kernel);
// atc (per-bar returns: its grouped kernel and its blocked thread kernel), over one series
// and over three symbols; and trade_filter (trading days as atoms; one thread or one warp per
// trial and chunk of trades, each adding its runs of a fold's trades with integer atomics).
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include "common/error.hpp"
#include "gpu/cuda_executor.hpp"
#include "strategies/device/signal_segments.hpp"
#include "study/study.hpp"
#include "support/bits.hpp"
#include "support/conformance.hpp"
#include "support/paths.hpp"
#include "support/trade_filter_fixture.hpp"

using namespace tpeopt;

namespace {

using tpeopt::testing::same_bits;

io::StudyConfig folded_config(const std::string& strategy, const std::string& objective_extra, int folds,
                              const std::string& holdout = R"("holdout": 0.2)", int batch = 150,
                              const std::string& candles = "backtesting-py/EURUSD.csv",
                              const std::string& data_entry = "") {
  const std::string params =
      strategy == "exhaustion"
          ? R"("ema_fast": {"type": "int", "low": 5, "high": 60}, "ema_slow": {"type": "int", "low": 20, "high": 100},
               "z_window": {"type": "int", "low": 10, "high": 100}, "atr_window": {"type": "int", "low": 5, "high": 50},
               "vol_z": {"type": "float", "low": 0.0, "high": 3.0}, "tr_z": {"type": "float", "low": 0.0, "high": 3.0},
               "cloc_min": 0.0, "atr_stop_mult": {"type": "float", "low": 0.5, "high": 4.0},
               "reward_r": {"type": "float", "low": 0.5, "high": 6.0}, "max_hold": {"type": "int", "low": 4, "high": 96},
               "fee_bp": 1.0)"
      : strategy == "ema_cross"
          ? R"("ema_fast": {"type": "int", "low": 5, "high": 60}, "ema_slow": {"type": "int", "low": 20, "high": 100},
               "sl_pct": {"type": "float", "low": 0.0, "high": 3.0}, "tp_pct": {"type": "float", "low": 0.0, "high": 6.0},
               "fee_bp": 1.0)"
      : strategy == "atc"
          ? R"("ema_len": {"type": "int", "low": 5, "high": 60}, "hma_len": {"type": "int", "low": 5, "high": 60},
               "long_threshold": {"type": "float", "low": 0.0, "high": 0.5}, "fee_bp": 1.0)"
      : strategy == "bollinger"
          ? R"("window": {"type": "int", "low": 10, "high": 80}, "num_std": {"type": "float", "low": 1.0, "high": 3.0},
               "atr_window": 14, "atr_stop": {"type": "float", "low": 0.0, "high": 4.0}, "fee_bp": 1.0)"
          : R"("channel": {"type": "int", "low": 10, "high": 80}, "exit_channel": {"type": "int", "low": 5, "high": 40},
               "atr_window": 14, "atr_stop": {"type": "float", "low": 0.0, "high": 4.0}, "fee_bp": 1.0)";
  const std::string text = fmt::format(
      R"({{"strategy": "{}", "data": {{{}, {}"folds": {}, "embargo": 4}},
           "objective": {{"name": "sharpe", "min_trades": 5{}}},
           "search": {{"sampler": "tpe", "trials": 600, "batch": {}, "depth": 2, "seed": 9, "top_k": 5,
                       "tpe": {{"n_startup_trials": 40}}}},
           "params": {{{}}}}})",
      strategy, data_entry.empty() ? fmt::format(R"("candles": "{}/{}")", testing::data_dir(), candles) : data_entry,
      holdout.empty() ? "" : holdout + ", ", folds, objective_extra, batch, params);
  return io::parse_study_config(io::Json::parse(text), "folds_gpu.json", ".");
}

engine::StudyRun run_on(const io::StudyConfig& config, const strategies::Strategy& strategy,
                        const std::string& executor, bool serial) {
  engine::RunOptions o;
  o.executor = executor;
  o.serial = serial;
  o.keep_trials = true;
  return engine::run_study(config, strategy, o);
}

/// The CPU run (serial) and the CUDA run (pipelined) of a folded study, trial by trial, metrics
/// included; `base`: the strategy's metrics before the fold columns (0: 5 for atc, else 7, the
/// strategies that trade; trade_filter passes 3).
void require_cuda_equals_cpu(const io::StudyConfig& config, int folds, std::size_t base = 0) {
  const auto s = engine::make_strategy(config);
  const std::size_t M = base > 0 ? base : (config.strategy == "atc" ? 5u : 7u);
  REQUIRE(s->metric_names().size() == M + 4 * static_cast<std::size_t>(folds));
  REQUIRE(s->metric_names()[M] == "fold0_score");
  const auto cpu = run_on(config, *s, "cpu", true);
  const auto cuda = run_on(config, *s, "cuda", false);
  REQUIRE(cuda.executor == "cuda");
  REQUIRE(cpu.result.trials().size() == cuda.result.trials().size());
  std::size_t traded_folds = 0;
  for (std::size_t i = 0; i < cpu.result.trials().size(); ++i) {
    const auto& a = cpu.result.trials()[i];
    const auto& b = cuda.result.trials()[i];
    CAPTURE(i);
    REQUIRE(same_bits(a.score, b.score));
    REQUIRE(same_bits(a.violation, b.violation));
    REQUIRE(same_bits(a.metrics, b.metrics));
    for (int k = 0; k < folds; ++k) traded_folds += a.metrics[M + 4 * static_cast<std::size_t>(k) + 1] > 0 ? 1 : 0;
  }
  REQUIRE(traded_folds > cpu.result.trials().size());
  REQUIRE(cpu.result.digest_hex() == cuda.result.digest_hex());
  REQUIRE(cpu.holdout.has_value() == cuda.holdout.has_value());
  if (cpu.holdout) REQUIRE(same_bits(cpu.holdout->spearman, cuda.holdout->spearman));
}

const char* const kRules[] = {"", R"(, "across_folds": "mean")", R"(, "across_folds": "min")",
                              R"(, "across_folds": "quantile", "q": 0.3)",
                              R"(, "across_folds": "mean_minus_std", "lambda": 0.7)"};

}  // namespace

TEST_CASE("folds GPU: folded studies of the long/short strategies equal the CPU runs, every rule", "[gpu][folds]") {
  REQUIRE(gpu::cuda_available());
  const std::string strategy = GENERATE("bollinger", "donchian");
  const std::string rule = GENERATE(from_range(std::begin(kRules), std::end(kRules)));
  const int folds = GENERATE(2, 8, 33);
  CAPTURE(strategy, rule, folds);
  require_cuda_equals_cpu(folded_config(strategy, rule, folds), folds);
}

TEST_CASE("folds GPU: folded studies of the long/short strategies through segmented walks equal the CPU runs",
          "[gpu][folds][segments]") {
  REQUIRE(gpu::cuda_available());
  const std::string strategy = GENERATE("bollinger", "donchian");
  // Walks on one thread: auto over the 30,240 bars of BTCUSDT 1m (cut into 7), no segments,
  // 2 to 64 segments over EURUSD's in-sample bars (some shorter than a trade), records with
  // room for 2. On one warp: auto over both series, no segments and 16 with room for 2.
  using Walk = gpu::SignalSegments::Walk;
  struct Cut {
    int segments, room;
    const char* candles;
    Walk walk = Walk::Thread;
  };
  const Cut cut =
      GENERATE(Cut{0, 0, "binance-1m/BTCUSDT_1m_2023-03.csv"}, Cut{1, 0, "backtesting-py/EURUSD.csv"},
               Cut{2, 0, "backtesting-py/EURUSD.csv"}, Cut{16, 0, "backtesting-py/EURUSD.csv"},
               Cut{64, 0, "backtesting-py/EURUSD.csv"}, Cut{16, 2, "backtesting-py/EURUSD.csv"},
               Cut{0, 0, "backtesting-py/EURUSD.csv", Walk::Warp},
               Cut{0, 0, "binance-1m/BTCUSDT_1m_2023-03.csv", Walk::Warp},
               Cut{1, 0, "backtesting-py/EURUSD.csv", Walk::Warp}, Cut{16, 2, "backtesting-py/EURUSD.csv", Walk::Warp});
  const std::string rule = GENERATE(as<std::string>{}, "", R"(, "across_folds": "mean")");
  CAPTURE(strategy, cut.segments, cut.room, cut.candles, static_cast<int>(cut.walk), rule);
  const gpu::ScopedSignalSegments forced({cut.segments, cut.room, cut.walk});
  require_cuda_equals_cpu(folded_config(strategy, rule, 8, R"("holdout": 0.2)", 150, cut.candles), 8);
}

TEST_CASE("folds GPU: folded studies of exhaustion equal the CPU runs, every rule and kernel path",
          "[gpu][folds][exhaustion]") {
  REQUIRE(gpu::cuda_available());
  const std::string rule = GENERATE(from_range(std::begin(kRules), std::end(kRules)));
  const int folds = GENERATE(3, 8, 20);
  // One block (a fraction held out), two blocks (a date range held out: few trials per batch
  // split the blocks over warps), the whole series in small batches (segmented walks).
  const std::string holdout =
      GENERATE(as<std::string>{}, R"("holdout": 0.2)", R"("holdout": {"ranges": [["2017-09-01", "2017-10-15"]]})", "");
  const int batch = holdout.empty() || holdout.find("ranges") != std::string::npos ? 40 : 150;
  CAPTURE(rule, folds, holdout, batch);
  require_cuda_equals_cpu(folded_config("exhaustion", rule, folds, holdout, batch), folds);
}

TEST_CASE("folds GPU: folded studies of ema_cross equal the CPU runs, every rule", "[gpu][folds][ema_cross]") {
  REQUIRE(gpu::cuda_available());
  const std::string rule = GENERATE(from_range(std::begin(kRules), std::end(kRules)));
  const int folds = GENERATE(2, 8, 33);
  // A fraction held out (one block), a date range held out (two blocks), the whole series.
  const std::string holdout =
      GENERATE(as<std::string>{}, R"("holdout": 0.2)", R"("holdout": {"ranges": [["2017-09-01", "2017-10-15"]]})", "");
  CAPTURE(rule, folds, holdout);
  require_cuda_equals_cpu(folded_config("ema_cross", rule, folds, holdout), folds);
}

TEST_CASE("folds GPU: folded studies of trade_filter equal the CPU runs, every rule and both kernels",
          "[gpu][folds][trade_filter]") {
  REQUIRE(gpu::cuda_available());
  const std::string rule = GENERATE(from_range(std::begin(kRules), std::end(kRules)));
  const int folds = GENERATE(2, 5, 8);
  // Batches of 150 trials (a thread per trial and chunk of trades) and of 40 (a warp per trial
  // and chunk); a fraction held out and none.
  const int batch = GENERATE(150, 40);
  const std::string holdout = GENERATE(as<std::string>{}, R"(, "holdout": 0.2)", "");
  CAPTURE(rule, folds, batch, holdout);
  const auto cache = testing::trade_filter_cache(24, 6000, 31);
  const std::string text = fmt::format(
      R"({{"strategy": "trade_filter", "data": {{"cache": "{}", "folds": {}, "embargo": 1{}}},
           "objective": {{"min_trades": 5{}}},
           "search": {{"sampler": "tpe", "trials": 600, "batch": {}, "depth": 2, "seed": 9, "top_k": 5,
                       "tpe": {{"n_startup_trials": 40}}}},
           "params": {}}})",
      cache.string(), folds, holdout, rule, batch, testing::trade_filter_continuous_params(0.05, 2.0));
  require_cuda_equals_cpu(io::parse_study_config(io::Json::parse(text), "folds_gpu.json", "."), folds, 3);
}

TEST_CASE("folds GPU: folded studies over three symbols equal the CPU runs, every aggregate and rule",
          "[gpu][folds][symbols]") {
  REQUIRE(gpu::cuda_available());
  const std::string strategy = GENERATE("bollinger", "donchian", "exhaustion", "atc");
  const std::string aggregate = GENERATE("sum", "mean", "worst", "portfolio");
  const std::string rule = GENERATE(from_range(std::begin(kRules), std::end(kRules)));
  const int folds = GENERATE(3, 8);
  CAPTURE(strategy, aggregate, rule, folds);
  // Three symbols of different spans (bars 0-2499, 1000-3999, 2500-4999 of EURUSD): each
  // symbol's folds lie at its own bars. A fraction held out (the subset keeps the folds).
  const std::string data =
      fmt::format(R"("candles_dir": "{}")", testing::conformance_data().candles_dir.generic_string());
  const auto config = folded_config(strategy, fmt::format(R"(, "aggregate": "{}"{})", aggregate, rule), folds,
                                    R"("holdout": 0.2)", 100, "", data);
  require_cuda_equals_cpu(config, folds);
}

TEST_CASE("folds GPU: folded studies of atc equal the CPU runs, every aggregate, rule and kernel",
          "[gpu][folds][atc]") {
  REQUIRE(gpu::cuda_available());
  const std::string aggregate = GENERATE("sum", "worst", "portfolio");
  const std::string rule = GENERATE(from_range(std::begin(kRules), std::end(kRules)));
  // The whole series (the grouped kernel, six lanes per trial and symbol), a fraction held
  // out (one block per symbol: the blocked thread kernel).
  const std::string holdout = GENERATE(as<std::string>{}, "", R"("holdout": 0.2)");
  const bool three = GENERATE(true, false);
  CAPTURE(aggregate, rule, holdout, three);
  const std::string data =
      three ? fmt::format(R"("candles_dir": "{}")", testing::conformance_data().candles_dir.generic_string()) : "";
  const auto config = folded_config("atc", fmt::format(R"(, "aggregate": "{}"{})", aggregate, rule), 6, holdout, 60,
                                    "backtesting-py/EURUSD.csv", data);
  require_cuda_equals_cpu(config, 6);
}

TEST_CASE("folds GPU: a folded signal strategy over three symbols cut into segments equals the CPU run",
          "[gpu][folds][symbols][segments]") {
  REQUIRE(gpu::cuda_available());
  const std::string strategy = GENERATE("bollinger", "donchian");
  const int segments = GENERATE(2, 16);
  const auto walk = GENERATE(gpu::SignalSegments::Walk::Thread, gpu::SignalSegments::Walk::Warp);
  CAPTURE(strategy, segments, static_cast<int>(walk));
  const gpu::ScopedSignalSegments forced({segments, 0, walk});
  const std::string data =
      fmt::format(R"("candles_dir": "{}")", testing::conformance_data().candles_dir.generic_string());
  const auto config = folded_config(strategy, R"(, "aggregate": "mean", "across_folds": "min")", 8, "", 100, "", data);
  require_cuda_equals_cpu(config, 8);
}
