#include "strategies/trade_filter/trade_filter_grid.hpp"

#include <algorithm>
#include <limits>

#include "common/error.hpp"
#include "common/worker_pool.hpp"
#include "strategies/trade_filter/trade_filter_strategy.hpp"

namespace tpeopt::strategies::trade_filter {

TradeFilterGrid::TradeFilterGrid(std::array<std::vector<double>, kSlots> values,
                                 std::array<std::uint64_t, kSlots> stride) {
  GridLayout& g = layout_;
  g.size = 1;
  for (int s = 0; s < kSlots; ++s) {
    if (values[s].empty()) throw make_error("grid: slot {} has no value", s);
    g.radix[s] = static_cast<std::uint32_t>(values[s].size());
    g.stride[s] = values[s].size() == 1 ? 1 : stride[s];
    if (g.stride[s] == 0) throw make_error("grid: slot {} has a zero stride", s);
    g.offset[s] = static_cast<std::uint32_t>(values_.size());
    for (double v : values[s]) {
      values_.push_back(v);
      fvalues_.push_back(static_cast<float>(v));
    }
    if (g.size > std::numeric_limits<std::uint64_t>::max() / 4 / g.radix[s])
      throw make_error("grid: more than 2^62 combinations; narrow it");
    g.size *= g.radix[s];
  }
  // lo: how many values of the same filter slot are strictly below (as float32)
  lo_.assign(values_.size(), 0);
  for (int s = 0; s < kFilterSlots; ++s)
    for (std::uint32_t i = 0; i < g.radix[s]; ++i)
      for (std::uint32_t j = 0; j < g.radix[s]; ++j)
        lo_[g.offset[s] + i] += fvalues_[g.offset[s] + j] < fvalues_[g.offset[s] + i] ? 1u : 0u;
  // cell table: dims radix + 1, slot 0 slowest; saturate on overflow (then the direct method is used)
  g.n_cells = 1;
  for (int s = kFilterSlots - 1; s >= 0; --s) {
    g.cell_stride[s] = g.n_cells;
    const std::uint64_t d = std::uint64_t{g.radix[s]} + 1;
    g.n_cells = g.n_cells > (std::uint64_t{1} << 50) / d ? (std::uint64_t{1} << 50) : g.n_cells * d;
  }
  g.n_filter = 1;
  for (int s = 0; s < kFilterSlots; ++s) g.n_filter *= g.radix[s];
  int order[kFilterSlots] = {0, 1, 2, 3, 4};
  std::stable_sort(order, order + kFilterSlots, [&](int a, int b) {
    // slowest first; slots with one value anywhere (they contribute nothing)
    return g.stride[a] * (g.radix[a] > 1) > g.stride[b] * (g.radix[b] > 1);
  });
  std::copy(order, order + kFilterSlots, g.filter_order);
}

void TradeFilterGrid::slots_of(std::uint64_t combo, double* slots) const {
  for (int s = 0; s < kSlots; ++s) slots[s] = values_[layout_.offset[s] + grid_index(layout_, s, combo)];
}

void TopK::add(const GridHit& h) {
  if (k_ == 0) return;
  if (heap_.size() < k_) {
    heap_.push_back(h);
    std::push_heap(heap_.begin(), heap_.end());
  } else if (h < heap_.front()) {
    std::pop_heap(heap_.begin(), heap_.end());
    heap_.back() = h;
    std::push_heap(heap_.begin(), heap_.end());
  }
}

std::vector<GridHit> TopK::sorted() const {
  std::vector<GridHit> v = heap_;
  std::sort(v.begin(), v.end());
  return v;
}

namespace {

/// In-place 5-D suffix sum of a cell table (dims radix + 1).
void suffix_sum(const GridLayout& g, std::int64_t* t) {
  for (int s = 0; s < kFilterSlots; ++s) {
    const std::uint64_t cs = g.cell_stride[s], d = std::uint64_t{g.radix[s]} + 1;
    for (std::uint64_t x = g.n_cells; x-- > 0;)
      if ((x / cs) % d + 1 < d) t[x] += t[x + cs];
  }
}

GridSearchOutcome cells_method(const TradeArrays& a, const TradeFilterGrid& grid, const GridSearchSettings& st) {
  const GridLayout& g = grid.layout();
  const std::uint64_t pairs = grid_pairs(g);
  const std::size_t per_pair = static_cast<std::size_t>(g.n_cells) * 8;
  const std::uint64_t group = std::clamp<std::uint64_t>(st.memory_budget / per_pair - 1, 1, pairs);
  WorkerPool pool(st.threads);
  std::vector<std::uint64_t> cell(a.n);
  std::vector<std::int64_t> kept(g.n_cells, 0);
  for (std::uint64_t i = 0; i < a.n; ++i) {
    cell[i] = grid_trade_cell(g, grid.fvalues().data(), a, i);
    kept[cell[i]] += 1;
  }
  suffix_sum(g, kept.data());
  const float* fv = grid.fvalues().data();
  // A trade's exit under (target, stop) depends only on its first crossing of each: find
  // the crossings of every grid target and every grid stop once per trade (nt + ns
  // bisections instead of 2 nt ns), then each pair's exit is one comparison.
  const std::uint32_t nt = g.radix[kTargetPct], ns = g.radix[kStopPct];
  std::vector<std::uint32_t> up_cross(a.n * nt), down_cross(a.n * ns);
  pool.parallel_for(a.n, [&](std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) {
      const std::uint64_t u0 = a.up_offset[i], d0 = a.down_offset[i];
      const auto n_up = static_cast<std::uint32_t>(a.up_offset[i + 1] - u0);
      const auto n_down = static_cast<std::uint32_t>(a.down_offset[i + 1] - d0);
      for (std::uint32_t k = 0; k < nt; ++k)
        up_cross[i * nt + k] = first_up_crossing(a.up_value + u0, a.up_pos + u0, n_up, fv[g.offset[kTargetPct] + k]);
      for (std::uint32_t k = 0; k < ns; ++k)
        down_cross[i * ns + k] =
            first_down_crossing(a.down_value + d0, a.down_pos + d0, n_down, fv[g.offset[kStopPct] + k]);
    }
  });
  std::vector<std::int64_t> table(static_cast<std::size_t>(group * g.n_cells));
  TopK top(st.top_k);
  for (std::uint64_t p0 = 0; p0 < pairs; p0 += group) {
    const std::uint64_t p1 = std::min(pairs, p0 + group);
    std::fill(table.begin(), table.end(), 0);
    for (std::uint64_t p = p0; p < p1; ++p) {
      const std::uint64_t ti = p / ns, si = p % ns;
      const float target = fv[g.offset[kTargetPct] + ti];
      const float stop = fv[g.offset[kStopPct] + si];
      std::int64_t* t = table.data() + (p - p0) * g.n_cells;
      for (std::uint64_t i = 0; i < a.n; ++i) {  // integer sums: any order, same bits
        const int exit = exit_from_crossings(up_cross[i * nt + ti], down_cross[i * ns + si]);
        t[cell[i]] += outcome_q(exit, target, stop, a.logged_q[i]);
      }
      suffix_sum(g, t);
      for (std::uint64_t f = 0; f < g.n_filter; ++f) {
        std::uint64_t c = 0;
        const std::uint64_t combo = grid_filter_combo(g, grid.lo().data(), p, f, &c);
        top.add({rank_key(t[c], kept[c], st.min_trades, st.maximize), combo});
      }
    }
  }
  // The winners' kept/wins/losses from the same crossings (the exits are identical to
  // trade_outcome_q's: both go through exit_from_crossings).
  GridSearchOutcome out{top.sorted(), {}, "cells"};
  for (const GridHit& h : out.top) {
    const Params p = grid_params(g, fv, h.combination);
    std::uint32_t ti = 0, si = 0;
    while (fv[g.offset[kTargetPct] + ti] != p.target) ++ti;
    while (fv[g.offset[kStopPct] + si] != p.stop) ++si;
    Tally t;
    for (std::uint64_t i = 0; i < a.n; ++i)
      if (trade_kept(a, i, p))
        tally_add(t, outcome_q(exit_from_crossings(up_cross[i * nt + ti], down_cross[i * ns + si]), p.target, p.stop,
                               a.logged_q[i]));
    out.tallies.push_back(t);
  }
  return out;
}

GridSearchOutcome direct_method(const TradeArrays& a, const TradeFilterGrid& grid, const GridSearchSettings& st) {
  const GridLayout& g = grid.layout();
  WorkerPool pool(st.threads);
  const std::uint64_t chunk = std::uint64_t{1} << 16;
  std::vector<std::uint64_t> keys(chunk);
  TopK top(st.top_k);
  for (std::uint64_t c0 = 0; c0 < g.size; c0 += chunk) {
    const std::uint64_t n = std::min(chunk, g.size - c0);
    pool.parallel_for(n, [&](std::size_t b, std::size_t e) {
      for (std::size_t j = b; j < e; ++j) {
        const Tally t = tally_trades(a, grid_params(g, grid.fvalues().data(), c0 + j), 0, a.n);
        keys[j] = rank_key(t.sum_q, t.kept, st.min_trades, st.maximize);
      }
    });
    for (std::uint64_t j = 0; j < n; ++j) top.add({keys[j], c0 + j});
  }
  return {top.sorted(), {}, "direct"};
}

}  // namespace

GridSearchOutcome grid_search_cpu(const TradeFilterStrategy& strategy, const TradeFilterGrid& grid,
                                  const GridSearchSettings& settings) {
  const GridLayout& g = grid.layout();
  const TradeArrays a = strategy.arrays();
  GridSearchOutcome out = g.n_cells < (std::uint64_t{1} << 50) && cell_table_bytes(g, 1) <= settings.memory_budget
                              ? cells_method(a, grid, settings)
                              : direct_method(a, grid, settings);
  if (out.tallies.empty())  // the cells method tallies its winners itself
    for (const GridHit& h : out.top)
      out.tallies.push_back(tally_trades(a, grid_params(g, grid.fvalues().data(), h.combination), 0, a.n));
  return out;
}

}  // namespace tpeopt::strategies::trade_filter
