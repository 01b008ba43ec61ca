#pragma once
// CPU == GPU parity of candle strategies, trial by trial: the CPU reference's score,
// metrics and trade list of every trial, and a count of the trials whose device results
// differ from them in any bit. Shared by the [gpu] tests of exhaustion and ema_cross.
#include <catch2/catch.hpp>

#include <cstddef>
#include <cstring>
#include <vector>

#include "strategies/strategy.hpp"
#include "support/bits.hpp"

namespace tpeopt::testing {

template <typename Trade>
struct CpuTrial {
  strategies::TrialScore score;
  std::vector<double> metrics;
  std::vector<Trade> trades;
};

/// `Strategy::trades(params)` gives one trial's trade list; params is n x n_slots.
template <typename Trade, typename Strategy>
std::vector<CpuTrial<Trade>> cpu_trials(const Strategy& s, const std::vector<double>& params, std::size_t n_slots) {
  const std::size_t n = params.size() / n_slots;
  std::vector<CpuTrial<Trade>> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double* p = &params[i * n_slots];
    out[i].metrics.resize(s.metric_names().size());
    out[i].score = s.evaluate(p, out[i].metrics.data());
    out[i].trades = s.trades(p);
  }
  return out;
}

/// The number of trials whose device score, violation, metrics or trades (compared by
/// `same_trade`) differ from the CPU's in any bit; *total_trades counts the CPU's trades.
template <typename Trade, typename GpuTrial, typename SameTrade>
std::size_t count_differing_trials(const std::vector<CpuTrial<Trade>>& cpu, const std::vector<GpuTrial>& gpu,
                                   std::size_t* total_trades, SameTrade same_trade) {
  REQUIRE(gpu.size() == cpu.size());
  std::size_t differing = 0;
  *total_trades = 0;
  for (std::size_t i = 0; i < cpu.size(); ++i) {
    const auto& c = cpu[i];
    const auto& g = gpu[i];
    bool same = same_bits(c.score.score, g.score) && same_bits(c.score.violation, g.violation) &&
                c.trades.size() == g.trades.size() && c.metrics.size() == g.metrics.size();
    for (std::size_t k = 0; same && k < c.metrics.size(); ++k) same = same_bits(c.metrics[k], g.metrics[k]);
    for (std::size_t k = 0; same && k < c.trades.size(); ++k) same = same_trade(c.trades[k], g.trades[k]);
    if (!same && differing++ == 0)
      UNSCOPED_INFO("first differing trial " << i << ": cpu " << c.trades.size() << " trades, score " << c.score.score
                                             << "; gpu " << g.trades.size() << " trades, score " << g.score);
    *total_trades += c.trades.size();
  }
  return differing;
}

}  // namespace tpeopt::testing
