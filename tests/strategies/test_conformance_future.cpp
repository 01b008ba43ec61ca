// The conformance harness, future invariance: for every registered strategy that reads data,
// over each of its registry samples, changing the data after a time t (strongly but validly:
// tests/support/future_data.hpp) changes
//  - no trade decided before t in its trade export (the registry's `trades`): the same trades,
//    in the same order, with the same entry time and entry columns, and every column the same
//    for a trade that also left before t; and
//  - nothing of the strategy over the part of its data before t (its data subset of the atoms
//    that end by t): the same score, violation and metrics, bit for bit.
// A trade is decided before t when it entered before t, or entered at t itself and exports a
// `signal_bar` (decided at that bar's close, filled at the open of the bar stamped t, which
// the change keeps). The times t are a quarter, half and three quarters into the data, and the
// entry time of random trades of the trials and 1 ms after it: a look-ahead changes a
// decision next to the bar it reads, so the check looks right there. A strategy reading the
// indicator at t + 1, or any data after its decision, fails it.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "engine/param_binding.hpp"
#include "io/candle_set.hpp"
#include "study/study.hpp"
#include "support/bits.hpp"
#include "support/conformance.hpp"
#include "support/future_data.hpp"
#include "support/test_rng.hpp"

using namespace tpeopt;
using tpeopt::testing::ConformanceCase;
using tpeopt::testing::same_bits;

namespace {

namespace fs = std::filesystem;

/// The exported columns that describe a trade's entry (what is compared of a trade decided
/// before t that leaves after it).
const std::set<std::string> kEntryColumns = {"signal_bar", "entry_bar", "side", "entry_price", "trade", "ticker"};

bool decided_before(const strategies::ExportedTrade& t, std::int64_t cut_ms, bool has_signal_bar) {
  return t.entry_time_ms < cut_ms || (has_signal_bar && t.entry_time_ms == cut_ms);
}

/// "" when the trades decided before `cut_ms` are the same in `a` and `b` (header), else the
/// first difference, described.
std::string trades_difference(const strategies::ExportedTrades& a, const strategies::ExportedTrades& b,
                              std::int64_t cut_ms, const std::vector<std::string>& columns, std::size_t* compared) {
  const bool has_signal_bar = std::find(columns.begin(), columns.end(), "signal_bar") != columns.end();
  if (a.size() != b.size()) return fmt::format("{} symbols' trades, then {}", a.size(), b.size());
  for (std::size_t s = 0; s < a.size(); ++s) {
    std::vector<const strategies::ExportedTrade*> x, y;
    for (const auto& t : a[s])
      if (decided_before(t, cut_ms, has_signal_bar)) x.push_back(&t);
    for (const auto& t : b[s])
      if (decided_before(t, cut_ms, has_signal_bar)) y.push_back(&t);
    for (std::size_t k = 0; k < std::max(x.size(), y.size()); ++k) {
      const auto row = [&](const strategies::ExportedTrade* t) {
        return t ? fmt::format("entered {} ({})", io::format_time_ms(t->entry_time_ms), fmt::join(t->fields, ", "))
                 : std::string("none");
      };
      const auto* p = k < x.size() ? x[k] : nullptr;
      const auto* q = k < y.size() ? y[k] : nullptr;
      std::string why;
      if (!p || !q || p->entry_time_ms != q->entry_time_ms) {
        why = "entry";
      } else {
        const bool left_before = p->exit_time_ms < cut_ms;  // every column is then fixed before t
        for (std::size_t f = 0; f < columns.size() && why.empty(); ++f)
          if ((left_before || kEntryColumns.count(columns[f])) && p->fields.at(f) != q->fields.at(f)) why = columns[f];
      }
      if (!why.empty())
        return fmt::format("symbol {}, trade {} decided before the change ({} differs): {} became {}", s, k, why,
                           row(p), row(q));
      ++*compared;
    }
  }
  return "";
}

/// The times to change the data after (header).
std::vector<std::int64_t> cut_times(const strategies::Strategy& strategy,
                                    const std::vector<strategies::ExportedTrades>& trades, std::uint64_t seed) {
  std::vector<std::int64_t> cuts;
  const std::size_t n = strategy.n_atoms();
  for (const std::size_t q : {1, 2, 3})
    if (n >= 8) cuts.push_back(strategy.atom_time_s(n * q / 4) * 1000);
  std::vector<const strategies::ExportedTrade*> all;
  for (const auto& per_trial : trades)
    for (const auto& list : per_trial)
      for (const auto& t : list) all.push_back(&t);
  tpeopt::testing::Rng rng(seed);
  for (int k = 0; k < 4 && !all.empty(); ++k) {
    const auto* t = all[rng.below(all.size())];
    cuts.push_back(t->entry_time_ms);
    cuts.push_back(t->entry_time_ms + 1);
  }
  return cuts;
}

/// The number of atoms that end by `cut_ms` (atom k ends where atom k + 1 starts).
std::size_t atoms_before(const strategies::Strategy& strategy, std::int64_t cut_ms) {
  std::size_t k = 0;
  while (k + 1 < strategy.n_atoms() && strategy.atom_time_s(k + 1) * 1000 <= cut_ms) ++k;
  return k;
}

/// A patch replacing the config's `data` by `data` (keys it drops set to null).
io::Json data_patch(const io::Json& before, const io::Json& data) {
  io::Json d = data;
  for (const auto& [key, value] : before.items()) {
    (void)value;
    if (!d.contains(key)) d[key] = nullptr;
  }
  return {{"data", d}};
}

}  // namespace

TEST_CASE("conformance: changing the data after a time changes nothing a strategy decided before it",
          "[cpu][conformance][future]") {
  std::size_t case_index = 0, checked_strategies = 0;
  std::set<std::string> reads_data;
  for (const auto& e : strategies::registry().entries())
    if (e.reads_data && e.scored_by_caller.empty()) reads_data.insert(e.name);
  for (const ConformanceCase& c : tpeopt::testing::conformance_cases()) {
    ++case_index;
    if (!c.entry->reads_data) continue;
    CAPTURE(c.label);
    // Every strategy that reads data exports its trades (the registry's `trades`): the check
    // compares them.
    REQUIRE(c.entry->trades.available());
    const io::StudyConfig config = tpeopt::testing::conformance_study(c);
    const auto strategy = engine::make_strategy(config);
    const engine::ParamBinding binding(*strategy, config.space, config.fixed);
    const auto batch = tpeopt::testing::random_batch(config, 12, 53);
    std::vector<std::vector<double>> slots(batch.n_trials, std::vector<double>(binding.n_slots()));
    std::vector<strategies::ExportedTrades> before;
    for (std::size_t i = 0; i < batch.n_trials; ++i) {
      binding.fill(&batch.values[i * batch.n_axes], slots[i].data());
      before.push_back(c.entry->trades.cpu(*strategy, slots[i].data()));
    }
    const std::size_t M = strategy->metric_names().size();
    std::size_t compared = 0, prefix_trials = 0;
    const auto cuts = cut_times(*strategy, before, 61 + case_index);
    REQUIRE(cuts.size() >= 2);
    for (std::size_t k = 0; k < cuts.size(); ++k) {
      const std::int64_t cut = cuts[k];
      CAPTURE(io::format_time_ms(cut));
      const fs::path dir = tpeopt::testing::conformance_data().scratch / fmt::format("future-{}-{}", case_index, k);
      const io::Json data =
          tpeopt::testing::data_changed_after(c.config.at("data"), tpeopt::testing::conformance_data().scratch, cut,
                                              1000 * case_index + k, dir);
      const io::StudyConfig changed_config = tpeopt::testing::conformance_study(c, data_patch(c.config["data"], data));
      const auto changed = engine::make_strategy(changed_config);
      fs::remove_all(dir);  // the data is loaded
      for (std::size_t i = 0; i < batch.n_trials; ++i) {
        CAPTURE(i);
        const std::string d = trades_difference(before[i], c.entry->trades.cpu(*changed, slots[i].data()), cut,
                                                c.entry->trades.columns, &compared);
        CHECK(d == "");
      }
      // The strategy over the atoms before the cut: what it computes there does not move.
      const std::size_t atoms = atoms_before(*strategy, cut);
      if (atoms == 0) continue;
      REQUIRE(changed->n_atoms() == strategy->n_atoms());
      const auto a = strategy->subset({{0, atoms}}, strategy->min_trades());
      const auto b = changed->subset({{0, atoms}}, strategy->min_trades());
      for (std::size_t i = 0; i < batch.n_trials; ++i) {
        std::vector<double> ma(M), mb(M);
        const auto sa = a->evaluate(slots[i].data(), ma.data());
        const auto sb = b->evaluate(slots[i].data(), mb.data());
        CAPTURE(i, sa.score, sb.score, ma, mb);
        CHECK((same_bits(sa.score, sb.score) && same_bits(sa.violation, sb.violation) && same_bits(ma, mb)));
        ++prefix_trials;
      }
    }
    // The check compared something: trades decided before the cuts, and the data before them.
    CHECK(compared >= 20);
    CHECK(prefix_trials > 0);
    reads_data.erase(c.entry->name);
    ++checked_strategies;
  }
  // Every strategy that reads data was checked (on at least one sample).
  CAPTURE(reads_data);
  CHECK(reads_data.empty());
  CHECK(checked_strategies > 0);
}
