// `tpeopt data generate-candles --edge`: the null series has no autocorrelation to trade on,
// the momentum series the planted one (io/candles_generator.hpp).
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "common/error.hpp"
#include "io/candles_generator.hpp"

namespace io = tpeopt::io;

namespace {

/// Lag-1 autocorrelation of the close-to-close log returns of the only symbol.
double lag1_autocorrelation(io::GeneratedEdge edge) {
  io::CandleSetGeneratorOptions o;
  o.symbols = 1, o.bars = 40000, o.seed = 3, o.edge = edge;
  const auto set = io::generate_candle_set(o);
  const auto& close = set.bars.close;
  std::vector<double> r;
  for (std::size_t i = 1; i < close.size(); ++i) r.push_back(std::log(close[i] / close[i - 1]));
  double mean = 0;
  for (double x : r) mean += x;
  mean /= static_cast<double>(r.size());
  double num = 0, den = 0;
  for (std::size_t i = 0; i < r.size(); ++i) {
    den += (r[i] - mean) * (r[i] - mean);
    if (i > 0) num += (r[i] - mean) * (r[i - 1] - mean);
  }
  return num / den;
}

}  // namespace

TEST_CASE("generate-candles --edge: none has no lag-1 autocorrelation, momentum the planted one", "[cpu]") {
  // 40,000 returns: the autocorrelation's standard error is 1 / sqrt(40000) = 0.005. The open
  // gap of each bar (0.1 sigma) dilutes the close-to-close autocorrelation a little.
  CHECK(std::abs(lag1_autocorrelation(io::GeneratedEdge::None)) < 0.02);
  const double momentum = lag1_autocorrelation(io::GeneratedEdge::Momentum);
  CHECK(momentum > 0.1);
  CHECK(momentum < 0.2);
  CHECK(io::parse_generated_edge("none") == io::GeneratedEdge::None);
  CHECK_THROWS_AS(io::parse_generated_edge("drift"), tpeopt::Error);
}
