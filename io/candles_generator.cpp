#include "io/candles_generator.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <boost/random/mersenne_twister.hpp>
#include <boost/random/normal_distribution.hpp>
#include <boost/random/uniform_01.hpp>
#include <boost/random/uniform_int_distribution.hpp>

#include "common/error.hpp"
#include "common/hd_math.hpp"

namespace tpeopt::io {

namespace {

std::uint64_t mix(std::uint64_t seed, std::uint64_t s) {
  std::uint64_t z = seed * 0x9e3779b97f4a7c15ULL + (s + 1) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

Candles one_symbol(const CandleSetGeneratorOptions& o, int s, std::int64_t* start_bar) {
  boost::random::mt19937_64 rng(mix(o.seed, static_cast<std::uint64_t>(s)));
  boost::random::normal_distribution<double> normal;
  boost::random::uniform_01<double> u01;
  const int min_bars = o.min_bars > 0 ? o.min_bars : o.bars;
  const int n = boost::random::uniform_int_distribution<int>(min_bars, o.bars)(rng);
  *start_bar = boost::random::uniform_int_distribution<std::int64_t>(0, o.bars - n)(rng);
  double price = hd::exp(u01(rng) * 7.6);                  // 1 .. ~2000
  const double sigma0 = 0.004 + 0.02 * u01(rng);           // per-bar volatility, calm regime
  const double trend = sigma0 * (0.05 + 0.15 * u01(rng));  // drift in a trending regime
  int regime = 0;                                          // -1 down, 0 flat, +1 up
  bool wild = false;
  double last_return = 0.0;  // GeneratedEdge::Momentum: the previous bar's log return
  Candles c;
  c.reserve(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    if (u01(rng) < 0.015) regime = static_cast<int>(std::floor(u01(rng) * 3.0)) - 1;
    if (u01(rng) < (wild ? 0.05 : 0.01)) wild = !wild;
    if (o.edge != GeneratedEdge::Regimes) regime = 0, wild = false;  // no drift, one volatility
    const double sigma = wild ? 2.5 * sigma0 : sigma0;
    const double open = i == 0 ? price : price * hd::exp(0.1 * sigma * normal(rng));
    // Momentum: an AR(1) log return of the same stationary variance sigma^2 as the random walk's.
    const double step =
        o.edge == GeneratedEdge::Momentum
            ? kMomentumPhi * last_return + std::sqrt(1.0 - kMomentumPhi * kMomentumPhi) * sigma * normal(rng)
            : regime * trend + sigma * normal(rng);
    last_return = step;
    const double close = open * hd::exp(step);
    const double high = std::max(open, close) * hd::exp(0.5 * sigma * std::fabs(normal(rng)));
    const double low = std::min(open, close) * hd::exp(-0.5 * sigma * std::fabs(normal(rng)));
    const double volume = std::round(1e5 * hd::exp(0.6 * normal(rng)) * (wild ? 2.0 : 1.0));
    c.time_ms.push_back(o.first_time_ms + (*start_bar + i) * o.interval_ms);
    c.open.push_back(open);
    c.high.push_back(high);
    c.low.push_back(low);
    c.close.push_back(close);
    c.volume.push_back(volume);
    price = close;
  }
  return c;
}

}  // namespace

GeneratedEdge parse_generated_edge(const std::string& name) {
  if (name == "regimes") return GeneratedEdge::Regimes;
  if (name == "none") return GeneratedEdge::None;
  if (name == "momentum") return GeneratedEdge::Momentum;
  throw make_error("--edge: expected regimes, none or momentum, got \"{}\"", name);
}

CandleSet generate_candle_set(const CandleSetGeneratorOptions& o) {
  if (o.symbols < 1 || o.symbols > 1'000'000) throw make_error("--symbols: expected 1 .. 1000000, got {}", o.symbols);
  if (o.bars < 2) throw make_error("--bars: expected at least 2, got {}", o.bars);
  if (o.min_bars != 0 && (o.min_bars < 2 || o.min_bars > o.bars))
    throw make_error("--min-bars: expected 2 .. bars ({}), got {}", o.bars, o.min_bars);
  if (o.interval_ms <= 0) throw make_error("--interval-s: expected a positive interval");
  int width = 4;
  for (int k = o.symbols - 1; k >= 10000; k /= 10) ++width;
  CandleSet set;
  const char* edge = o.edge == GeneratedEdge::None       ? ", no edge"
                     : o.edge == GeneratedEdge::Momentum ? ", momentum"
                                                         : "";
  set.source = fmt::format("generated ({} symbols, seed {}{})", o.symbols, o.seed, edge);
  set.bars.source = set.source;
  for (int s = 0; s < o.symbols; ++s) {
    std::int64_t start = 0;
    const Candles c = one_symbol(o, s, &start);
    const std::string name = fmt::format("{}{:0{}}", o.prefix, s, width);
    set.append(name, set.source + "[" + name + "]", c);
  }
  return set;
}

}  // namespace tpeopt::io
