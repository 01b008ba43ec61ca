// exhaustion over several symbols (docs/strategies.md, "Candle data sets of many symbols"): each symbol's results
// equal the one-symbol strategy's on that symbol alone (the concatenation of single-symbol runs), the
// score is their aggregate, and a one-file config is the one-series strategy, bit for bit.
#include <catch2/catch.hpp>

#include "support/paths.hpp"

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "io/candle_set.hpp"
#include "io/candles_csv.hpp"
#include "config/study_config.hpp"
#include "strategies/candle_checksum.hpp"
#include "strategies/exhaustion/exhaustion_strategy.hpp"
#include "strategies/exhaustion/exhaustion_symbols_strategy.hpp"
#include "study/study.hpp"
#include "support/bits.hpp"
#include "support/exhaustion_params.hpp"

using namespace tpeopt;
namespace ex = strategies::exhaustion;
namespace sym = strategies::symbols;

namespace {

using tpeopt::testing::same_bits;

const std::string kPy = tpeopt::testing::data_dir() + "/backtesting-py";

io::StudyConfig config(const std::string& data, const std::string& objective_extra) {
  const std::string text = R"({"strategy": "exhaustion", "data": )" + data +
                           R"(, "objective": {"name": "total_return")" + objective_extra +
                           R"(}, "params": {"ema_fast": {"type": "int", "low": 5, "high": 50}, "ema_slow": 100,
      "z_window": 20, "atr_window": 14, "vol_z": 1.0, "tr_z": 1.0, "cloc_min": 0.5, "atr_stop_mult": 1.0,
      "reward_r": 2.0, "max_hold": 20}})";
  return io::parse_study_config(io::parse_json_text(text, "t.json"), "t.json", kPy);
}

}  // namespace

TEST_CASE("exhaustion over three real symbols equals three one-symbol runs, every aggregate",
          "[cpu][exhaustion][multi]") {
  const CandleSet set = io::load_candle_set_data(io::Json{{"candles_dir", kPy}, {"cache_dir", ""}}, kPy);
  REQUIRE(set.symbols == std::vector<std::string>{"BTCUSD", "EURUSD", "GOOG"});
  std::vector<std::unique_ptr<strategies::ExhaustionStrategy>> singles;
  for (const auto& name : set.symbols) {
    strategies::ExhaustionOptions o;
    o.objective = ex::Objective::Sharpe;
    o.min_trades = 0;
    singles.push_back(
        std::make_unique<strategies::ExhaustionStrategy>(io::read_candles_csv(kPy + "/" + name + ".csv"), o));
  }
  const std::size_t S = 3, M = ex::kNumMetrics;
  const auto params = tpeopt::testing::random_exhaustion_params(40, 5);
  for (const auto aggregate :
       {sym::Aggregate::Sum, sym::Aggregate::Mean, sym::Aggregate::Worst, sym::Aggregate::Portfolio}) {
    CAPTURE(static_cast<int>(aggregate));
    strategies::ExhaustionOptions o;
    o.objective = ex::Objective::Sharpe;
    o.min_trades = 25;
    const strategies::ExhaustionSymbolsStrategy multi(set, o, aggregate, true);
    std::size_t traded = 0;
    for (std::size_t i = 0; i < 40; ++i) {
      const double* p = &params[i * ex::kNumSlots];
      std::vector<double> obj(S), eq(S), met(S * M), m(M);
      multi.evaluate_symbols(p, obj.data(), eq.data(), met.data());
      double want = 0, trades = 0;
      std::vector<double> agg(M);
      for (std::size_t s = 0; s < S; ++s) {
        std::vector<double> m1(M);
        const auto r1 = singles[s]->evaluate(p, m1.data());
        const ex::Summary sum = singles[s]->summarize(p);
        CHECK(same_bits(obj[s], ex::sharpe(sum)));
        CHECK(same_bits(obj[s], r1.score));
        CHECK(same_bits(eq[s], sum.equity));
        for (std::size_t k = 0; k < M; ++k) CHECK(same_bits(met[s * M + k], m1[k]));
        const double v = aggregate == sym::Aggregate::Portfolio ? sum.equity - 1.0 : r1.score;
        if (aggregate == sym::Aggregate::Worst) want = s == 0 ? v : std::min(want, v);
        else want = s == 0 ? v : want + v;
        trades += m1[ex::kMTrades];
        for (std::size_t k = 0; k < M; ++k) {
          if (aggregate == sym::Aggregate::Worst && k == ex::kMMaxDrawdown)
            agg[k] = s == 0 ? m1[k] : std::max(agg[k], m1[k]);
          else if (aggregate == sym::Aggregate::Worst && k != ex::kMTrades && k != ex::kMWins)
            agg[k] = s == 0 ? m1[k] : std::min(agg[k], m1[k]);
          else agg[k] = s == 0 ? m1[k] : agg[k] + m1[k];
        }
      }
      if (aggregate == sym::Aggregate::Mean || aggregate == sym::Aggregate::Portfolio) want = want / 3.0;
      // Under sum only total_return is summed (and the counts); under worst the worst
      // symbol's; else every other metric is the mean over symbols.
      if (aggregate != sym::Aggregate::Worst)
        for (std::size_t k = 2; k < M; ++k)
          if (!(aggregate == sym::Aggregate::Sum && k == ex::kMTotalReturn)) agg[k] = agg[k] / 3.0;
      const auto r = multi.evaluate(p, m.data());
      CHECK(same_bits(r.score, want));
      CHECK(r.violation == (trades < 25 ? 25 - trades : 0.0));
      for (std::size_t k = 0; k < M; ++k) CHECK(same_bits(m[k], agg[k]));
      traded += trades > 0 ? 1 : 0;
    }
    CHECK(traded > 20);
  }
}

TEST_CASE("exhaustion: one symbol through the multi-symbol path gives the one-series bits",
          "[cpu][exhaustion][multi]") {
  const std::string file = tpeopt::testing::data_dir() + "/backtesting-py/EURUSD.csv";
  strategies::ExhaustionOptions o;
  o.min_trades = 10;
  const strategies::ExhaustionStrategy plain(io::read_candles_csv(file), o);
  CandleSet one;
  one.append("EURUSD", file, io::read_candles_csv(file));
  CHECK(strategies::candle_set_checksum(one) == plain.data_checksums()[0]);
  for (const auto aggregate : {sym::Aggregate::Sum, sym::Aggregate::Mean, sym::Aggregate::Worst}) {
    const strategies::ExhaustionSymbolsStrategy multi(one, o, aggregate, true);
    const auto params = tpeopt::testing::random_exhaustion_params(30, 8);
    for (std::size_t i = 0; i < 30; ++i) {
      std::vector<double> a(ex::kNumMetrics), b(ex::kNumMetrics);
      const auto ra = plain.evaluate(&params[i * ex::kNumSlots], a.data());
      const auto rb = multi.evaluate(&params[i * ex::kNumSlots], b.data());
      CHECK(same_bits(ra.score, rb.score));
      CHECK(same_bits(ra.violation, rb.violation));
      for (std::size_t k = 0; k < a.size(); ++k) CHECK(same_bits(a[k], b[k]));
    }
  }
}

TEST_CASE("exhaustion configs: one file is the one-series strategy, a folder or a portfolio the multi-symbol one",
          "[cpu][exhaustion][multi]") {
  auto one = engine::make_strategy(config(R"({"candles": "EURUSD.csv"})", ""));
  CHECK(dynamic_cast<const strategies::ExhaustionStrategy*>(one.get()) != nullptr);
  auto many = engine::make_strategy(config(R"({"candles_dir": "."})", R"(, "aggregate": "worst")"));
  const auto* m = dynamic_cast<const strategies::ExhaustionSymbolsStrategy*>(many.get());
  REQUIRE(m != nullptr);
  CHECK(m->n_symbols() == 3);
  CHECK(m->aggregate_spec().aggregate == sym::Aggregate::Worst);
  auto port = engine::make_strategy(config(R"({"candles": "EURUSD.csv"})", R"(, "aggregate": "portfolio")"));
  CHECK(dynamic_cast<const strategies::ExhaustionSymbolsStrategy*>(port.get()) != nullptr);
  auto picked = engine::make_strategy(config(R"({"candles": ["GOOG.csv", "EURUSD.csv"], "symbols": ["GOOG"]})", ""));
  CHECK(dynamic_cast<const strategies::ExhaustionStrategy*>(picked.get()) != nullptr);
  CHECK_THROWS_WITH(config(R"({"candles": "EURUSD.csv"})", R"(, "aggregate": "median")"),
                    Catch::Contains("objective.aggregate"));
  const std::string fn = R"({"strategy": "functions", "function": "sphere", "objective": {"aggregate": "sum"},
      "params": {"x": {"type": "float", "low": -1, "high": 1}}})";
  CHECK_THROWS_WITH(engine::make_strategy(io::parse_study_config(io::parse_json_text(fn, "f.json"), "f.json", ".")),
                    Catch::Contains("objective.aggregate") && Catch::Contains("functions"));
  // The resolved config keeps the aggregate (and says nothing when there is none).
  CHECK(config(R"({"candles_dir": "."})", R"(, "aggregate": "mean")").resolved()["objective"]["aggregate"] == "mean");
  CHECK_FALSE(config(R"({"candles_dir": "."})", "").resolved()["objective"].contains("aggregate"));
}
