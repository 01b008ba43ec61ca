// The atc strategy (adaptive trend classification) on the CPU: each moving average against values worked out by
// hand on a short series, the crossover signal, the two layers and the position rules on
// crafted inputs, parameter checks, and multi-symbol results equal to the concatenation of
// one-symbol runs under every aggregate.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "common/error.hpp"
#include "io/candles_generator.hpp"
#include "strategies/atc/atc.hpp"
#include "strategies/atc/atc_strategy.hpp"
#include "support/bits.hpp"

using namespace tpeopt;
namespace atc = strategies::atc;

namespace {

using tpeopt::testing::same_bits;

// x_0 .. x_7. Every value below is worked out by hand from it.
const std::vector<double> kX = {3, 6, 9, 6, 3, 6, 9, 12};

std::vector<double> ma(int type, int L) {
  std::vector<double> out(kX.size());
  atc::ma_series(type, kX.data(), static_cast<int>(kX.size()), L, out.data());
  return out;
}

/// Random atc parameter rows (lengths 1..120, robustness 0..6, the rest over their ranges).
std::vector<double> random_params(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto u = [&](double a, double b) { return std::uniform_real_distribution<double>(a, b)(rng); };
  auto k = [&](int a, int b) { return static_cast<double>(std::uniform_int_distribution<int>(a, b)(rng)); };
  std::vector<double> p;
  for (std::size_t i = 0; i < n; ++i) {
    const double row[atc::kNumSlots] = {k(1, 120), k(1, 120), k(1, 120),    k(1, 120),    k(1, 120), k(1, 120), k(0, 6),
                                        u(0, 1),   u(0, 1),   u(-0.2, 0.6), u(-0.6, 0.2), k(0, 60),  u(0, 10)};
    p.insert(p.end(), row, row + atc::kNumSlots);
  }
  return p;
}

CandleSet generated(int symbols, int bars, int min_bars, std::uint64_t seed) {
  io::CandleSetGeneratorOptions o;
  o.symbols = symbols;
  o.bars = bars;
  o.min_bars = min_bars;
  o.seed = seed;
  return io::generate_candle_set(o);
}

CandleSet only(const CandleSet& set, std::size_t s) {
  CandleSet one;
  one.source = set.source;
  one.append(set.symbols[s], set.sources[s], set.symbol(s));
  return one;
}

}  // namespace

TEST_CASE("atc moving averages equal hand-computed values on a short series", "[cpu][atc]") {
  const double nan = NAN;
  auto check = [](const std::vector<double>& got, const std::vector<double>& want) {
    REQUIRE(got.size() == want.size());
    for (std::size_t t = 0; t < want.size(); ++t) {
      CAPTURE(t, got[t], want[t]);
      if (std::isnan(want[t])) CHECK(std::isnan(got[t]));
      else CHECK(got[t] == Approx(want[t]).epsilon(1e-12));
    }
  };
  SECTION("EMA, L = 3: SMA seed (3 + 6 + 9) / 3 = 6, then alpha = 1/2 (exact)") {
    const std::vector<double> want = {nan, nan, 6, 6, 4.5, 5.25, 7.125, 9.5625};
    check(ma(atc::kEma, 3), want);
    CHECK(ma(atc::kEma, 3)[7] == 9.5625);
  }
  SECTION("WMA, L = 3: weights 1, 2, 3 over 6 (exact)") {
    // t=2: (3 + 12 + 27) / 6 = 7; t=3: (6 + 18 + 18) / 6 = 7; t=4: (9 + 12 + 9) / 6 = 5;
    // t=5: (6 + 6 + 18) / 6 = 5; t=6: (3 + 12 + 27) / 6 = 7; t=7: (6 + 18 + 36) / 6 = 10.
    const std::vector<double> want = {nan, nan, 7, 7, 5, 5, 7, 10};
    check(ma(atc::kWma, 3), want);
  }
  SECTION("LSMA, L = 3: the least-squares line's end point (3 WMA - 2 SMA)") {
    // (3,6,9): line 3 + 3x -> 9; (6,9,6): flat at 7; (9,6,3): 9 - 3x -> 3; (6,3,6): 5;
    // (3,6,9): 9; (6,9,12): 12.
    const std::vector<double> want = {nan, nan, 9, 7, 3, 5, 9, 12};
    check(ma(atc::kLsma, 3), want);
  }
  SECTION("DEMA, L = 3: 2 e1 - e2, e2 seeded by e1 at t = 2 (exact)") {
    // e1 = 6, 6, 4.5, 5.25, 7.125, 9.5625; e2 = 6, 6, 5.25, 5.25, 6.1875, 7.875.
    const std::vector<double> want = {nan, nan, 6, 6, 3.75, 5.25, 8.0625, 11.25};
    check(ma(atc::kDema, 3), want);
  }
  SECTION("HMA, L = 4: WMA over 2 of 2 WMA_2 - WMA_4") {
    // WMA_2 = 7, 4, 5, 8, 11 at t = 3..7; WMA_4 = 6.6, 5.4, 5.4, 6.6, 9; y = 7.4, 2.6, 4.6, 9.4, 13;
    // HMA_t = (y_{t-1} + 2 y_t) / 3 from t = 4.
    const std::vector<double> want = {nan, nan, nan, nan, 12.6 / 3, 11.8 / 3, 23.4 / 3, 35.4 / 3};
    check(ma(atc::kHma, 4), want);
  }
  SECTION("KAMA, L = 2: k_1 = 6, then sc = (er (2/3 - 2/31) + 2/31)^2") {
    const double fast = 2.0 / 3.0, slow = 2.0 / 31.0;
    auto sc = [&](double er) { return (er * (fast - slow) + slow) * (er * (fast - slow) + slow); };
    // |dx| = 3 at every bar, so vol = 6 over two bars. t=2: change |9 - 3| = 6, er = 1;
    // t=3: |6 - 6| = 0, er = 0; t=4: |3 - 9| = 6, er = 1; t=5: |6 - 6|, 0; t=6: |9 - 3|, 1; t=7: |12 - 6|, 1.
    double k = 6;
    std::vector<double> want = {nan, 6};
    const double er[] = {1, 0, 1, 0, 1, 1};
    for (int t = 2; t < 8; ++t) {
      k = k + sc(er[t - 2]) * (kX[static_cast<std::size_t>(t)] - k);
      want.push_back(k);
    }
    check(ma(atc::kKama, 2), want);
  }
  SECTION("length 1: every average but KAMA is the close itself (from the first bar)") {
    for (int type = 0; type < atc::kNumTypes; ++type) {
      if (type == atc::kKama) continue;  // at most 4/9 of the way to the close per bar
      CAPTURE(type);
      check(ma(type, 1), kX);
    }
  }
}

TEST_CASE("atc signal: a persistent crossover of the close and its average, 32 bars per word", "[cpu][atc]") {
  // WMA 3 (above): 7, 7, 5, 5, 7, 10 from t = 2; closes 9, 6, 3, 6, 9, 12. t=2: first defined
  // bar, no crossing (0); t=3: 6 < 7 after 9 >= 7: -1; t=4: stays -1; t=5: 6 > 5 after 3 <= 5:
  // +1; t=6, 7: +1.
  atc::SignalWord w{};
  atc::ma_signal_words(atc::kWma, kX.data(), 8, 3, &w);
  CHECK(w.pos == 0xE0u);
  CHECK(w.neg == 0x18u);
  // 40 bars: two words; the second holds bars 32..39.
  std::vector<double> x(40);
  for (int t = 0; t < 40; ++t) x[static_cast<std::size_t>(t)] = t < 20 ? 100.0 + t : 140.0 - t;
  atc::SignalWord two[2];
  atc::ma_signal_words(atc::kEma, x.data(), 40, 1, two);  // L = 1: the close never crosses itself
  CHECK((two[0].pos | two[0].neg | two[1].pos | two[1].neg) == 0u);
  atc::ma_signal_words(atc::kEma, x.data(), 40, 5, two);
  // Rising from the start: the close stays above the EMA (never a crossing: 0); it falls
  // below during the decline and stays -1 to the end.
  CHECK(two[0].pos == 0u);
  CHECK(two[1].neg == 0xFFu);
  CHECK(two[1].pos == 0u);
}

TEST_CASE("atc layers and positions on crafted inputs", "[cpu][atc]") {
  // Nine words of one type whose bit 0 is the bar's signal: variant k long, short or flat.
  auto words = [](unsigned longs, unsigned shorts) {
    std::vector<atc::SignalWord> w(9);
    for (int k = 0; k < 9; ++k) w[static_cast<std::size_t>(k)] = {(longs >> k) & 1u, (shorts >> k) & 1u};
    return w;
  };
  SECTION("layer 1: equal equities give (longs - shorts) / 9") {
    atc::TypeState s{};
    atc::type_begin(s, words(0b000011111u, 0b110000000u).data(), 0);
    CHECK(s.l1 == 3.0 / 9.0);
    CHECK(s.E == 1.0);
    CHECK(s.sig[0] == 1.0);
    CHECK(s.sig[8] == -1.0);
  }
  SECTION("a step: each equity moves by keep (1 + sig_prev rg), floored at 0.25") {
    atc::TypeState s{};
    atc::type_begin(s, words(0b1u, 0b10u).data(), 0);  // variant 0 long, variant 1 short
    const double rg = 0.5, keep = 0.5;
    atc::type_step(s, words(0b1u, 0u).data(), 0, rg, keep);
    CHECK(s.e[0] == 0.75);  // 0.5 * (1 + 0.5)
    CHECK(s.e[1] == 0.25);  // 0.5 * (1 - 0.5)
    for (int k = 2; k < 9; ++k) CHECK(s.e[k] == 0.5);
    CHECK(s.l1 == 0.75 / (0.75 + 0.25 + 7 * 0.5));
    // E moved by keep * (1 + l1_prev * rg) with l1_prev = 0 (one long, one short): 0.5.
    CHECK(s.E == 0.5);
    atc::type_step(s, words(0u, 0u).data(), 0, rg, keep);
    CHECK(s.e[1] == 0.25);    // 0.125 floored (it followed a flat signal: factor keep)
    CHECK(s.e[0] == 0.5625);  // followed a long: 0.75 * 0.75
    CHECK(s.l1 == 0.0);
  }
  SECTION("combine: sum of l1 E over sum of E, types in order") {
    const double P[6] = {1, 0.5, -0.25, 0, 0, 0.25}, E[6] = {1, 1, 1, 2, 2, 1};
    CHECK(atc::combine(P, E) == 1.5 / 8.0);
  }
  SECTION("positions and returns: held over the next bar, fees on changes") {
    atc::Params p{};
    p.long_threshold = 0.1;
    p.short_threshold = -0.1;
    p.fee = 0.001;
    atc::TradeState t;
    const double r1 = 0.02 - 0.001, r2 = 0.01 - 0.002, r3 = 0.0 - 0.001;
    atc::trade_decide(t, 0.5, p);  // cutout bar: long
    atc::trade_realize(t, 0.02, p.fee);
    CHECK(t.total == r1);
    atc::trade_decide(t, -0.5, p);  // flip to short: earns -R, pays 2 fees
    atc::trade_realize(t, -0.01, p.fee);
    CHECK(t.total == r1 + r2);
    atc::trade_decide(t, 0.0, p);  // flat: earns nothing, pays 1 fee
    atc::trade_realize(t, 0.05, p.fee);
    CHECK(t.total == (r1 + r2) + r3);
    CHECK(t.trades == 2);
    CHECK(t.in_market == 2);
    CHECK(t.bars == 3);
    double m[atc::kNumMetrics], eq = 0;
    const double total = atc::finish_symbol(t, atc::Objective::TotalReturn, m, &eq);
    CHECK(total == t.total);
    const double peak = (1.0 + r1) * (1.0 + r2);
    CHECK(eq == peak * (1.0 + r3));
    CHECK(m[atc::kMExposure] == 2.0 / 3.0);
    CHECK(m[atc::kMMaxDrawdown] == 1.0 - (peak * (1.0 + r3)) / peak);
    CHECK(m[atc::kMTrades] == 2);
  }
}

TEST_CASE("atc: parameter ranges and objectives are checked with their names", "[cpu][atc]") {
  const CandleSet set = generated(2, 50, 0, 1);
  const strategies::AtcStrategy s(set, {});
  CHECK(s.param_names().size() == atc::kNumSlots);
  CHECK_THROWS_WITH(s.check_param_range(atc::kEmaLen, 0, 10), Catch::Contains("params.ema_len"));
  CHECK_THROWS_WITH(s.check_param_range(atc::kKamaLen, 2, 1001), Catch::Contains("params.kama_len"));
  CHECK_THROWS_WITH(s.check_param_range(atc::kDecay, 0, 100), Catch::Contains("params.decay"));
  CHECK_THROWS_WITH(s.check_param_range(atc::kLongThreshold, 0, 1.5), Catch::Contains("params.long_threshold"));
  CHECK_THROWS_WITH(s.check_param_range(atc::kLambda, -1, 1), Catch::Contains("params.lambda"));
  CHECK_NOTHROW(s.check_param_range(atc::kRobustness, 0, 10));
  CHECK(strategies::parse_atc_objective("sharpe") == atc::Objective::Sharpe);
  CHECK_THROWS_WITH(strategies::parse_atc_objective("mean_r"), Catch::Contains("objective.name"));
  CHECK_THROWS_WITH(strategies::parse_aggregate("median"), Catch::Contains("objective.aggregate"));
  CandleSet tiny;
  Candles one;
  one.time_ms = {0};
  one.open = one.high = one.low = one.close = {1.0};
  one.volume = {1.0};
  tiny.append("X", "x.csv", one);
  CHECK_THROWS_WITH(strategies::AtcStrategy(tiny, {}), Catch::Contains("symbol X") && Catch::Contains("at least 2"));
}

TEST_CASE("atc over many symbols equals the concatenation of one-symbol runs, every aggregate", "[cpu][atc][multi]") {
  const CandleSet set = generated(7, 400, 120, 11);
  const std::size_t S = set.n_symbols(), M = atc::kNumMetrics;
  const auto params = random_params(6, 3);
  for (const auto aggregate : {strategies::symbols::Aggregate::Sum, strategies::symbols::Aggregate::Mean,
                               strategies::symbols::Aggregate::Worst, strategies::symbols::Aggregate::Portfolio}) {
    for (const auto objective : {atc::Objective::TotalReturn, atc::Objective::Sharpe}) {
      CAPTURE(static_cast<int>(aggregate), static_cast<int>(objective));
      strategies::AtcOptions o;
      o.aggregate = aggregate;
      o.objective = objective;
      o.min_trades = 40;
      const strategies::AtcStrategy multi(set, o);
      std::vector<std::unique_ptr<strategies::AtcStrategy>> singles;
      for (std::size_t s = 0; s < S; ++s) singles.push_back(std::make_unique<strategies::AtcStrategy>(only(set, s), o));
      for (std::size_t i = 0; i < params.size() / atc::kNumSlots; ++i) {
        const double* p = &params[i * atc::kNumSlots];
        std::vector<double> obj(S), eq(S), met(S * M);
        multi.evaluate_symbols(p, obj.data(), eq.data(), met.data());
        // Per symbol: the same bits as the symbol alone.
        double sum = 0, worst = 0, port = 0, trades = 0;
        std::vector<double> msum(M, 0.0);
        for (std::size_t s = 0; s < S; ++s) {
          double o1, e1;
          std::vector<double> m1(M);
          singles[s]->evaluate_symbols(p, &o1, &e1, m1.data());
          CHECK(same_bits(obj[s], o1));
          CHECK(same_bits(eq[s], e1));
          for (std::size_t k = 0; k < M; ++k) CHECK(same_bits(met[s * M + k], m1[k]));
          // The aggregate, worked out from the singles: left to right from the first symbol.
          sum = s == 0 ? o1 : sum + o1;
          worst = s == 0 ? o1 : std::min(worst, o1);
          port = s == 0 ? e1 - 1.0 : port + (e1 - 1.0);
          trades += m1[atc::kMTrades];
          for (std::size_t k = 0; k < M; ++k) msum[k] = s == 0 ? m1[k] : msum[k] + m1[k];
        }
        std::vector<double> m(M);
        const auto score = multi.evaluate(p, m.data());
        const double want = aggregate == strategies::symbols::Aggregate::Sum     ? sum
                            : aggregate == strategies::symbols::Aggregate::Mean  ? sum / static_cast<double>(S)
                            : aggregate == strategies::symbols::Aggregate::Worst ? worst
                                                                                 : port / static_cast<double>(S);
        CHECK(same_bits(score.score, want));
        CHECK(m[atc::kMTrades] == trades);
        CHECK(score.violation == (trades < 40 ? 40 - trades : 0.0));
        CHECK(same_bits(m[atc::kMExposure], msum[atc::kMExposure] / static_cast<double>(S)));
        if (aggregate == strategies::symbols::Aggregate::Sum)
          CHECK(same_bits(m[atc::kMTotalReturn], msum[atc::kMTotalReturn]));
      }
    }
  }
}

TEST_CASE("atc: one symbol scores like its own objective, and trials trade", "[cpu][atc]") {
  const CandleSet set = generated(1, 600, 0, 2);
  const strategies::AtcStrategy s(set, {});
  const auto params = random_params(16, 9);
  int traded = 0;
  for (std::size_t i = 0; i < 16; ++i) {
    std::vector<double> m(atc::kNumMetrics);
    const auto r = s.evaluate(&params[i * atc::kNumSlots], m.data());
    CHECK(same_bits(r.score, m[atc::kMTotalReturn]));
    CHECK(m[atc::kMExposure] >= 0.0);
    CHECK(m[atc::kMExposure] <= 1.0);
    CHECK(m[atc::kMMaxDrawdown] >= 0.0);
    traded += m[atc::kMTrades] > 0 ? 1 : 0;
  }
  CHECK(traded >= 8);
  // The specification's settings (the defaults) trade too.
  const auto d = s.param_defaults();
  std::vector<double> m(atc::kNumMetrics);
  s.evaluate(d.data(), m.data());
  CHECK(m[atc::kMTrades] > 0);
}
