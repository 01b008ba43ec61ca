// The exhaustion CPU reference against a deliberately naive loop written from the spec
// (docs/strategies.md, "exhaustion") on real data, plus its warm-up and NaN edges.
#include <catch2/catch.hpp>

#include "support/paths.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "io/candles_csv.hpp"
#include "strategies/exhaustion/exhaustion_strategy.hpp"
#include "support/bits.hpp"

using namespace tpeopt;
namespace ex = strategies::exhaustion;

namespace {

const std::string kData = tpeopt::testing::data_dir();

using tpeopt::testing::same_bits;

struct NaiveTrade {
  int signal, entry, exit;
  double entry_price, exit_price;
  int reason;
  double ret, r;
};

// Straight from docs/strategies.md's text: one loop, no shared code with strategies/.
std::vector<NaiveTrade> naive_backtest(const Candles& c, const std::vector<double>& v,
                                       int* undefined_sd_bars = nullptr) {
  const int n = static_cast<int>(c.size());
  auto iv = [](double x) { return static_cast<int>(std::floor(x + 0.5)); };
  const int fast = iv(v[0]), slow = iv(v[1]), zw = iv(v[2]), aw = iv(v[3]), max_hold = iv(v[9]);
  const double vol_th = v[4], tr_th = v[5], cloc_min = v[6], mult = v[7], reward = v[8];
  const double f = v[10] / 1e4, s = v[11] / 1e4;
  std::vector<double> ef(n), es(n), tr(n), sv(n + 1, 0.0), qv(n + 1, 0.0), st(n + 1, 0.0), qt(n + 1, 0.0);
  for (int k = 0; k < 2; ++k) {
    auto& e = k == 0 ? ef : es;
    const double alpha = 2.0 / ((k == 0 ? fast : slow) + 1.0);
    e[0] = c.close[0];
    for (int i = 1; i < n; ++i) e[i] = e[i - 1] + alpha * (c.close[i] - e[i - 1]);
  }
  for (int i = 0; i < n; ++i) {
    tr[i] = c.high[i] - c.low[i];
    if (i > 0)
      tr[i] =
          std::max({c.high[i] - c.low[i], std::fabs(c.high[i] - c.close[i - 1]), std::fabs(c.low[i] - c.close[i - 1])});
    sv[i + 1] = sv[i] + c.volume[i];
    qv[i + 1] = qv[i] + c.volume[i] * c.volume[i];
    st[i + 1] = st[i] + tr[i];
    qt[i + 1] = qt[i] + tr[i] * tr[i];
  }
  auto stats = [&](const std::vector<double>& S, const std::vector<double>& Q, int i, int w, double& mean, double& sd) {
    mean = (S[i + 1] - S[i + 1 - w]) / w;
    const double var = (Q[i + 1] - Q[i + 1 - w]) / w - mean * mean;
    if (!(var > 0)) return false;
    sd = std::sqrt(var);
    return true;
  };
  if (undefined_sd_bars) *undefined_sd_bars = 0;
  auto signal = [&](int i) {
    if (i < std::max(aw, zw) - 1) return false;
    double mv, sdv, mt, sdt;
    const bool dv = stats(sv, qv, i, zw, mv, sdv), dt = stats(st, qt, i, zw, mt, sdt);
    if (!dv || !dt) {
      if (undefined_sd_bars) ++*undefined_sd_bars;
      return false;
    }
    const double cloc = c.high[i] == c.low[i] ? 0.5 : (c.close[i] - c.low[i]) / (c.high[i] - c.low[i]);
    return ef[i] < es[i] && (c.volume[i] - mv) / sdv > vol_th && (tr[i] - mt) / sdt > tr_th && cloc > cloc_min;
  };
  std::vector<NaiveTrade> out;
  int i = 0;
  while (i <= n - 2) {
    if (!signal(i)) {
      ++i;
      continue;
    }
    const int e = i + 1;
    const double entry = c.open[e] * (1 + s);
    const double atr = (st[i + 1] - st[i + 1 - aw]) / aw;
    const double stop = c.low[i] - mult * atr;
    const double risk = entry - stop;
    if (risk <= 0) {
      ++i;
      continue;
    }
    const double target = entry + reward * risk;
    const int last = static_cast<int>(std::min<long long>(static_cast<long long>(e) + max_hold - 1, n - 1));
    for (int j = e; j <= last; ++j) {
      double price;
      int reason;
      if (j > e && c.open[j] <= stop) price = c.open[j], reason = ex::kGap;
      else if (c.low[j] <= stop) price = stop, reason = ex::kStop;
      else if (c.high[j] >= target) price = target, reason = ex::kTarget;
      else if (j == last) price = c.close[j], reason = ex::kTime;
      else continue;
      const double fill = price * (1 - s);
      out.push_back({i, e, j, entry, fill, reason, (fill * (1 - f)) / (entry * (1 + f)) - 1, (fill - entry) / risk});
      i = j;
      break;
    }
  }
  return out;
}

std::vector<double> random_params(std::mt19937_64& rng) {
  auto u = [&](double a, double b) { return std::uniform_real_distribution<double>(a, b)(rng); };
  auto k = [&](int a, int b) { return static_cast<double>(std::uniform_int_distribution<int>(a, b)(rng)); };
  return {k(1, 60), k(1, 240), k(2, 120), k(1, 60),  u(-1, 3), u(-1, 3),
          u(0, 1),  u(0.1, 4), u(0.2, 6), k(1, 100), u(0, 10), u(0, 5)};
}

void require_same(const std::vector<ex::Trade>& got, const std::vector<NaiveTrade>& want) {
  REQUIRE(got.size() == want.size());
  for (std::size_t k = 0; k < got.size(); ++k) {
    CAPTURE(k);
    CHECK(got[k].signal_bar == want[k].signal);
    CHECK(got[k].entry_bar == want[k].entry);
    CHECK(got[k].exit_bar == want[k].exit);
    CHECK(got[k].reason == want[k].reason);
    CHECK(same_bits(got[k].entry_price, want[k].entry_price));
    CHECK(same_bits(got[k].exit_price, want[k].exit_price));
    CHECK(same_bits(got[k].ret, want[k].ret));
    CHECK(same_bits(got[k].r_multiple, want[k].r));
  }
}

Candles head(const Candles& c, std::size_t n) {
  Candles h;
  h.source = c.source;
  h.time_ms.assign(c.time_ms.begin(), c.time_ms.begin() + n);
  h.open.assign(c.open.begin(), c.open.begin() + n);
  h.high.assign(c.high.begin(), c.high.begin() + n);
  h.low.assign(c.low.begin(), c.low.begin() + n);
  h.close.assign(c.close.begin(), c.close.begin() + n);
  h.volume.assign(c.volume.begin(), c.volume.begin() + n);
  return h;
}

}  // namespace

TEST_CASE("exhaustion: the reference equals a naive loop on every real data set", "[cpu][exhaustion]") {
  const std::string file = GENERATE(as<std::string>{}, "backtesting-py/GOOG.csv", "backtesting-py/EURUSD.csv",
                                    "backtesting-py/BTCUSD.csv", "binance-1m/BTCUSDT_1m_2023-03.csv",
                                    "binance-1m/BTCUSD_1m_2023-03.csv", "binance-1m/BTCUSDC_1m_2023-03.csv");
  const std::uint64_t seed = 1234;
  CAPTURE(file, seed);
  Candles c = io::read_candles_csv(kData + "/" + file);
  if (c.size() > 6000) c = head(c, 6000);
  const strategies::ExhaustionStrategy s(c, {});
  std::mt19937_64 rng(seed);
  std::size_t total_trades = 0;
  for (int trial = 0; trial < 40; ++trial) {
    const auto p = random_params(rng);
    CAPTURE(trial);
    const auto want = naive_backtest(c, p);
    ex::Summary sum;
    const auto got = s.trades(p.data(), &sum);
    require_same(got, want);
    total_trades += got.size();
    // evaluate() scores the same trades: total return summed in trade order.
    std::vector<double> m(s.metric_names().size());
    const auto score = s.evaluate(p.data(), m.data());
    double total = 0.0;
    for (const auto& t : want) total = total + t.ret;
    CHECK(same_bits(score.score, total));
    CHECK(m[ex::kMTrades] == static_cast<double>(want.size()));
    CHECK(score.violation == (want.size() < 10 ? 10.0 - static_cast<double>(want.size()) : 0.0));
  }
  CHECK(total_trades > (c.size() > 1000 ? 20u : 0u));  // the random parameters do trade
}

TEST_CASE("exhaustion: warm-up bars and undefined sd never signal (real flat volume runs)", "[cpu][exhaustion]") {
  // binance BTCUSDC: volume 0.0 runs and open == high == low == close bars make var <= 0.
  Candles c = head(io::read_candles_csv(kData + "/binance-1m/BTCUSDC_1m_2023-03.csv"), 4000);
  const strategies::ExhaustionStrategy s(c, {});
  std::vector<double> vz(c.size()), tz(c.size());
  s.volume_z(3, vz.data());
  s.tr_z(3, tz.data());
  std::size_t undefined = 0;
  for (std::size_t i = 2; i < c.size(); ++i) undefined += std::isnan(vz[i]) || std::isnan(tz[i]) ? 1 : 0;
  CHECK(undefined > 50);     // real cases of sd undefined
  CHECK(std::isnan(vz[0]));  // warm-up: fewer than w bars
  CHECK(std::isnan(vz[1]));
  // Low thresholds: every defined bar with the trend and close conditions signals, so the
  // trades show that no undefined or warm-up bar ever did.
  for (int zw : {2, 3, 5, 30}) {
    for (int aw : {1, 14, 200}) {
      std::vector<double> p = {3, 50, static_cast<double>(zw), static_cast<double>(aw), -100, -100, 0.0, 1.0, 2.0, 3,
                               0, 0};
      CAPTURE(zw, aw);
      int undefined_seen = 0;
      const auto want = naive_backtest(c, p, &undefined_seen);
      const auto got = s.trades(p.data());
      require_same(got, want);
      REQUIRE(!got.empty());
      CHECK(got.front().signal_bar >= std::max(zw, aw) - 1);
      if (zw == 3)
        for (const auto& t : got) {
          CHECK_FALSE(std::isnan(vz[t.signal_bar]));
          CHECK_FALSE(std::isnan(tz[t.signal_bar]));
        }
      if (zw <= 5) CHECK(undefined_seen > 0);
    }
  }
  // A window longer than the data: warm-up never ends, no trade, no read out of bounds.
  std::vector<double> p = {3, 50, static_cast<double>(c.size() + 5), 1, -100, -100, 0.0, 1.0, 2.0, 3, 0, 0};
  CHECK(s.trades(p.data()).empty());
  p = {3, 50, 5, static_cast<double>(c.size() + 5), -100, -100, 0.0, 1.0, 2.0, 3, 0, 0};
  CHECK(s.trades(p.data()).empty());
}

TEST_CASE("exhaustion: hand-checked trades on a real EURUSD slice", "[cpu][exhaustion]") {
  const Candles c = head(io::read_candles_csv(kData + "/backtesting-py/EURUSD.csv"), 400);
  const strategies::ExhaustionStrategy s(c, {});
  const std::vector<double> p = {10, 40, 20, 14, 1.0, 1.0, 0.5, 1.5, 2.0, 24, 2.0, 1.0};
  const auto got = s.trades(p.data());
  const auto want = naive_backtest(c, p);
  require_same(got, want);
  REQUIRE(!got.empty());
  // First trade, checked by hand against the CSV: the fills follow from the bars' prices.
  const auto& t = got.front();
  CHECK(t.entry_bar == t.signal_bar + 1);
  CHECK(t.entry_price == c.open[t.entry_bar] * (1 + 1.0 / 1e4));  // slippage 1 bp on the entry
  const double stop = c.low[t.signal_bar] - 1.5 * ((s.s_tr()[t.signal_bar + 1] - s.s_tr()[t.signal_bar + 1 - 14]) / 14);
  const double risk = t.entry_price - stop;
  CHECK(risk > 0);
  if (t.reason == ex::kStop) CHECK(t.exit_price == stop * (1 - 1e-4));
  if (t.reason == ex::kTarget) CHECK(t.exit_price == (t.entry_price + 2.0 * risk) * (1 - 1e-4));
  if (t.reason == ex::kTime) CHECK(t.exit_price == c.close[t.exit_bar] * (1 - 1e-4));
  CHECK(t.exit_bar - t.entry_bar <= 23);
  CHECK(t.ret == (t.exit_price * (1 - 2e-4)) / (t.entry_price * (1 + 2e-4)) - 1);
}
