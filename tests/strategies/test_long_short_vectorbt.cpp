// The long/short signal strategies (bollinger, donchian) against vectorbt 1.2.0's
// Portfolio.from_signals under the mapping of docs/strategies.md ("Long/short signal
// strategies"): every trade's bars, side and fills, and the compounded return, for 300
// random parameter sets each on the bundled EURUSD bars. Fixtures written by
// bench/peers/long_short_fixture.py (the command is in each fixture's header).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>

#include "config/study_config.hpp"
#include "strategies/bollinger/bollinger.hpp"
#include "strategies/donchian/donchian.hpp"
#include "strategies/signal_strategy.hpp"
#include "study/study.hpp"
#include "support/bits.hpp"
#include "support/paths.hpp"

using namespace tpeopt;
using tpeopt::testing::same_bits;
namespace ls = strategies::long_short;

namespace {

bool rel_close(double a, double b, double tol = 1e-9) { return std::fabs(a - b) <= tol * std::max(1.0, std::fabs(b)); }

/// The strategy on the fixture's data file, through its registry entry (the config fixes the
/// required parameters; the fixture's sets give every slot).
std::unique_ptr<strategies::Strategy> strategy_on(const std::string& name, const std::string& file) {
  io::Json params = io::Json::object();
  for (const auto& p : strategies::registry().at(name).params.specs())
    if (std::isnan(p.fallback)) params[p.name] = p.typical_low;
  const io::Json config = {{"strategy", name},
                           {"data", {{"candles", tpeopt::testing::source_dir() + "/" + file}}},
                           {"params", params}};
  return engine::make_strategy(io::parse_study_config(config, name, tpeopt::testing::source_dir()));
}

template <typename Logic>
void check_fixture(const std::string& name) {
  std::ifstream in(tpeopt::testing::source_dir() + "/tests/strategies/fixtures/" + name + "_vectorbt.txt");
  REQUIRE(in.good());
  std::unique_ptr<strategies::Strategy> owner;
  const strategies::SignalStrategy<Logic>* s = nullptr;
  std::string line;
  std::size_t sets = 0, trades = 0, bit_identical = 0, differing_sets = 0, shorts = 0, stops = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ss(line);
    std::string kind;
    ss >> kind;
    if (kind == "data") {
      std::string file;
      std::size_t bars = 0;
      ss >> file >> bars;
      owner = strategy_on(name, file);
      s = dynamic_cast<const strategies::SignalStrategy<Logic>*>(owner.get());
      REQUIRE(s);
      REQUIRE(static_cast<std::size_t>(s->data().n_bars()) == bars);
      continue;
    }
    REQUIRE(kind == "set");
    REQUIRE(s);
    std::vector<double> p(Logic::kNumSlots);
    std::size_t n = 0;
    double vbt_total_return = 0.0;
    for (double& v : p) ss >> v;
    ss >> n >> vbt_total_return;
    const auto ours = s->trades(p.data(), 0);
    bool same = ours.size() == n;
    std::string first_difference;
    ls::Summary summary;
    for (const auto& t : ours) ls::add_trade(summary, t);
    for (std::size_t k = 0; k < n; ++k) {
      REQUIRE(std::getline(in, line));
      std::istringstream ts(line);
      int entry = 0, exit = 0, side = 0, open = 0;
      double entry_fill = 0.0, exit_fill = 0.0;
      ts >> entry >> exit >> side >> open >> entry_fill >> exit_fill;
      REQUIRE(!ts.fail());
      if (!same || k >= ours.size()) continue;
      const auto& t = ours[k];
      same = t.entry_bar == entry && t.exit_bar == exit && t.side == side && (t.reason == ls::kEnd) == (open == 1) &&
             rel_close(t.entry_price, entry_fill) && rel_close(t.exit_price, exit_fill);
      bit_identical += same_bits(t.entry_price, entry_fill) + same_bits(t.exit_price, exit_fill);
      shorts += t.side < 0 ? 1 : 0;
      stops += t.reason == ls::kStop ? 1 : 0;
      if (!same)
        first_difference = "trade " + std::to_string(k) + ": tpeopt bars " + std::to_string(t.entry_bar) + ".." +
                           std::to_string(t.exit_bar) + " side " + std::to_string(t.side) + ", vectorbt " +
                           std::to_string(entry) + ".." + std::to_string(exit) + " side " + std::to_string(side);
    }
    // vectorbt's Portfolio.total_return = tpeopt's compound return, within 1e-9 of the
    // account's initial or final value (whichever is larger).
    const double r = ls::compound_return(summary);
    same = same && std::fabs(r - vbt_total_return) <=
                       1e-9 * std::max({1.0, std::fabs(1.0 + r), std::fabs(1.0 + vbt_total_return)});
    if (!same && differing_sets++ < 3)
      UNSCOPED_INFO("set " << p[0] << "," << p[1] << "," << p[2] << "," << p[3] << "," << p[4] << "," << p[5]
                           << ": tpeopt " << ours.size() << " trades, vectorbt " << n << " " << first_difference
                           << " (compound " << r << " vs " << vbt_total_return << ")");
    ++sets;
    trades += n;
  }
  CHECK(differing_sets == 0);
  CHECK(sets == 300);
  CHECK(trades > 10000);
  CHECK(shorts > trades / 10);         // both sides trade
  CHECK(stops > trades / 50);          // and the ATR stop fires
  CHECK(bit_identical == 2 * trades);  // the fills are the same IEEE operations as vectorbt's
}

}  // namespace

TEST_CASE("bollinger: trades equal vectorbt's on the bundled EURUSD bars (300 random parameter sets)",
          "[cpu][bollinger][peers]") {
  check_fixture<strategies::bollinger::Logic>("bollinger");
}

TEST_CASE("donchian: trades equal vectorbt's on the bundled EURUSD bars (300 random parameter sets)",
          "[cpu][donchian][peers]") {
  check_fixture<strategies::donchian::Logic>("donchian");
}
