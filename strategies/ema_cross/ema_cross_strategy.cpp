#include "strategies/ema_cross/ema_cross_strategy.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "common/digest.hpp"
#include "common/error.hpp"
#include "common/floor_div.hpp"

namespace tpeopt::strategies {

namespace ec = ema_cross;

ema_cross::Objective parse_ema_cross_objective(const std::string& name) {
  if (name == "total_return") return ec::Objective::TotalReturn;
  if (name == "compound_return") return ec::Objective::CompoundReturn;
  if (name == "sharpe") return ec::Objective::Sharpe;
  if (name == "profit_factor") return ec::Objective::ProfitFactor;
  throw make_error(
      "objective.name: \"{}\" is not an objective of strategy ema_cross (expected total_return, compound_return, "
      "sharpe or profit_factor)",
      name);
}

const char* ema_cross_exit_reason_name(int reason) {
  switch (reason) {
    case ec::kSignal:
      return "signal";
    case ec::kStopLoss:
      return "stop_loss";
    case ec::kTakeProfit:
      return "take_profit";
    case ec::kEnd:
      return "end";
    default:
      return "none";
  }
}

namespace {

// Largest span accepted: bars are indexed with int.
constexpr double kMaxSpan = 1e8;

// ---- the CPU's finders ------------------------------------------------------------------
// Each returns what SequentialFinder returns (the first k in [from, to] with pred(k), or
// to + 1) while calling pred only at candidate bars: the bars it skips are bars where pred
// is provably false, and every candidate is decided by pred itself (the TPEOPT_HD
// predicate, as on the GPU). Candidates come from
//  - per trial, one pass over its two EMA series that records which bars have fast > slow
//    and fast < slow (the predicates' own comparisons) as bits; a 16-bar block whose
//    fast series lies entirely below (above) the slow one, by the blocks' minima and
//    maxima kept with each cached series, is decided without reading its bars;
//  - for stops, the trial-independent min(open, low) and max(open, high) of each bar and
//    of each 16-bar block: a bar (block) that stays strictly between the position's
//    levels cannot trigger a stop and is skipped.

constexpr int kSignBlock = 16;  // bars per block of the EMA bounds (4 per 64-bit word of bits)
constexpr int kStopBlock = 16;  // bars per block of the stop bounds

/// Minimum and maximum of each `block`-bar block of v[0, n) (the last may be shorter).
void block_bounds(const double* v, int n, int block, std::vector<double>& lo, std::vector<double>& hi) {
  const int blocks = (n + block - 1) / block;
  lo.resize(static_cast<std::size_t>(blocks));
  hi.resize(static_cast<std::size_t>(blocks));
  for (int b = 0; b < blocks; ++b) {
    const int end = std::min(n, (b + 1) * block);
    double mn = v[b * block], mx = v[b * block];
    for (int k = b * block + 1; k < end; ++k) {
      mn = v[k] < mn ? v[k] : mn;
      mx = v[k] > mx ? v[k] : mx;
    }
    lo[static_cast<std::size_t>(b)] = mn;
    hi[static_cast<std::size_t>(b)] = mx;
  }
}

/// Bit k % 64 of word k / 64: fast_k > slow_k (gt), fast_k < slow_k (lt), for the words
/// from the one holding bar `from` on (earlier words are never read).
struct SignBits {
  std::vector<std::uint64_t> gt, lt;

  void build(const EmaSeriesView& fast, const EmaSeriesView& slow, int n, int from) {
    const int words = (n + 63) / 64;
    gt.assign(static_cast<std::size_t>(words), 0);
    lt.assign(static_cast<std::size_t>(words), 0);
    for (int w = from / 64; w < words; ++w) {
      std::uint64_t g = 0, l = 0;
      for (int q = 0; q < 64; q += kSignBlock) {
        const int base = w * 64 + q;
        if (base >= n) break;
        const std::size_t blk = static_cast<std::size_t>(base / kSignBlock);
        const std::uint64_t ones = ((std::uint64_t{1} << kSignBlock) - 1) << q;
        if (base + kSignBlock <= n) {
          if (fast.block_max[blk] < slow.block_min[blk]) {  // every fast_k <= max < min <= slow_k
            l |= ones;
            continue;
          }
          if (fast.block_min[blk] > slow.block_max[blk]) {
            g |= ones;
            continue;
          }
        }
        const double* f = fast.values + base;
        const double* s = slow.values + base;
#if defined(__SSE2__)
        if (base + kSignBlock <= n) {
          for (int k = 0; k < kSignBlock; k += 2) {
            const __m128d x = _mm_loadu_pd(f + k), y = _mm_loadu_pd(s + k);
            g |= static_cast<std::uint64_t>(_mm_movemask_pd(_mm_cmpgt_pd(x, y))) << (q + k);
            l |= static_cast<std::uint64_t>(_mm_movemask_pd(_mm_cmplt_pd(x, y))) << (q + k);
          }
          continue;
        }
#endif
        for (int k = 0; k < kSignBlock && base + k < n; ++k) {
          g |= static_cast<std::uint64_t>(f[k] > s[k]) << (q + k);
          l |= static_cast<std::uint64_t>(f[k] < s[k]) << (q + k);
        }
      }
      gt[static_cast<std::size_t>(w)] = g;
      lt[static_cast<std::size_t>(w)] = l;
    }
  }
};

/// The first k in [from, to] whose bit is set in word(k / 64), or to + 1.
template <typename Word>
int first_bit(int from, int to, Word&& word) {
  if (from > to) return to + 1;
  int w = from >> 6;
  std::uint64_t x = word(w) & (~std::uint64_t{0} << (from & 63));
  const int last = to >> 6;
  for (;;) {
    if (x != 0) {
      const int k = (w << 6) + __builtin_ctzll(x);
      return k <= to ? k : to + 1;
    }
    if (++w > last) return to + 1;
    x = word(w);
  }
}

/// Candidates: bits of `word`; each is confirmed by pred.
template <typename Word, typename Pred>
int find_by_bits(int from, int to, Word&& word, Pred&& pred) {
  for (int k = from; k <= to; ++k) {
    k = first_bit(k, to, word);
    if (k > to) break;
    if (pred(k)) return k;
  }
  return to + 1;
}

/// is_below: candidates fast_k < slow_k.
struct BelowFinder {
  const SignBits* bits;
  template <typename Pred>
  int operator()(int from, int to, Pred&& pred) const {
    return find_by_bits(
        from, to, [&](int w) { return bits->lt[static_cast<std::size_t>(w)]; }, pred);
  }
};

/// Bit k: bit k of x set and bit k - 1 (the previous word's top bit for k % 64 == 0) clear.
inline std::uint64_t rising(const std::vector<std::uint64_t>& x, int w) {
  const std::uint64_t v = x[static_cast<std::size_t>(w)];
  const std::uint64_t prev = w > 0 ? x[static_cast<std::size_t>(w) - 1] >> 63 : 0;
  return v & ~((v << 1) | prev);
}

/// is_cross_above: candidates fast_k > slow_k and not fast_{k-1} > slow_{k-1}.
struct SignalFinder {
  const SignBits* bits;
  template <typename Pred>
  int operator()(int from, int to, Pred&& pred) const {
    return find_by_bits(
        from, to, [&](int w) { return rising(bits->gt, w); }, pred);
  }
};

/// exits_at(k) = stop_loss_hit | take_profit_hit | is_cross_below(k - 1). Candidates: the
/// next exit signal (a cross below at x, so k = x + 1, from the lt bits) and, before it,
/// the bars of the 16-bar blocks that may trigger a stop: stop_loss_hit implies open_k <= L
/// or low_k <= L, take_profit_hit implies open_k >= U or high_k >= U, so a block with
/// min(open, low) > L and max(open, high) < U throughout (L = -inf, U = +inf for a stop
/// that is off) holds none.
struct ExitFinder {
  const SignBits* bits;
  const double* bar_lo;   ///< per bar: min(open, low)
  const double* bar_hi;   ///< per bar: max(open, high)
  const double* stop_lo;  ///< per 16-bar block: min of bar_lo
  const double* stop_hi;  ///< per 16-bar block: max of bar_hi
  template <typename Pred>
  int operator()(int from, int to, Pred&& pred, const ec::Params& p, const ec::Position& pos) const {
    const bool stops = p.has_sl || p.has_tp;
    const double lo_level = p.has_sl ? pos.sl_level : -std::numeric_limits<double>::infinity();
    const double hi_level = p.has_tp ? pos.tp_level : std::numeric_limits<double>::infinity();
    auto cross_below_word = [&](int w) { return rising(bits->lt, w); };
    const int signal = first_bit(from - 1, to - 1, cross_below_word) + 1;  // to + 1 when none
    if (stops) {
      int j = from;
      while (j < signal) {
        if (j % kStopBlock == 0 && j + kStopBlock <= signal) {
          const std::size_t blk = static_cast<std::size_t>(j / kStopBlock);
          if (stop_lo[blk] > lo_level && stop_hi[blk] < hi_level) {
            j += kStopBlock;
            continue;
          }
        }
        const int end = std::min(signal, (j / kStopBlock + 1) * kStopBlock);
        for (; j < end; ++j)
          if ((bar_lo[j] <= lo_level || bar_hi[j] >= hi_level) && pred(j)) return j;
      }
    }
    if (signal > to) return to + 1;
    if (pred(signal)) return signal;
    // (unreachable: exits_at holds at a cross below's next bar) the plain scan beyond it
    for (int k = signal + 1; k <= to; ++k)
      if (pred(k)) return k;
    return to + 1;
  }
};
}  // namespace

EmaCrossStrategy::EmaCrossStrategy(Candles candles, EmaCrossOptions options)
    : data_(std::make_shared<Data>()), options_(options) {
  Data& d = *data_;
  d.candles = std::move(candles);
  d.cache_limit = options_.ema_cache_bytes;
  const Candles& c = d.candles;
  const std::size_t n = c.size();
  if (n < 2) throw make_error("data.candles: {} has {} bar(s); the ema_cross strategy needs at least 2", c.source, n);
  if (n > static_cast<std::size_t>(std::numeric_limits<int>::max() - 2))
    throw make_error("data.candles: {} has too many bars ({})", c.source, n);
  if (options_.min_trades < 0) throw make_error("objective.min_trades: must be >= 0");
  Digest digest;
  digest.add(static_cast<std::uint64_t>(n));
  for (std::size_t i = 0; i < n; ++i) {
    digest.add(static_cast<std::uint64_t>(c.time_ms[i]));
    for (const auto* v : {&c.open, &c.high, &c.low, &c.close, &c.volume}) digest.add((*v)[i]);
  }
  d.checksum = "candles=" + digest.hex();
  // Trial-independent bounds for the stop search (ExitFinder).
  d.bar_lo.resize(n);
  d.bar_hi.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    d.bar_lo[i] = std::min(c.open[i], c.low[i]);
    d.bar_hi[i] = std::max(c.open[i], c.high[i]);
  }
  std::vector<double> unused;
  block_bounds(d.bar_lo.data(), static_cast<int>(n), kStopBlock, d.stop_lo, unused);
  block_bounds(d.bar_hi.data(), static_cast<int>(n), kStopBlock, unused, d.stop_hi);
}

std::int64_t EmaCrossStrategy::atom_time_s(std::size_t k) const {
  return floor_div(data_->candles.time_ms.at(k), 1000);
}

std::unique_ptr<Strategy> EmaCrossStrategy::subset(const std::vector<AtomRange>& ranges,
                                                   std::int64_t min_trades) const {
  std::vector<BarBlock> blocks;
  for (const auto& r : ranges) {
    TPEOPT_ASSERT(r.begin < r.end && r.end <= data_->candles.size(), "ema_cross: subset range outside the series");
    blocks.push_back({static_cast<int>(r.begin), static_cast<int>(r.end)});
  }
  if (blocks.empty()) throw make_error("ema_cross: an empty subset of the data has nothing to backtest");
  auto out = std::make_unique<EmaCrossStrategy>(*this);  // keeps the folds: atoms of the whole series
  out->options_.min_trades = static_cast<int>(std::min<std::int64_t>(min_trades, 1 << 30));
  out->blocks_ = std::move(blocks);
  return out;
}

std::unique_ptr<Strategy> EmaCrossStrategy::with_folds(const FoldSpec& folds, const AcrossFolds& rule) const {
  auto out = std::make_unique<EmaCrossStrategy>(*this);
  out->folds_ = FoldSpec{};
  out->rule_ = rule;
  out->fold_edge_.clear();
  out->fold_embargo_end_.clear();
  if (folds.n_folds() == 0) return out;
  check_fold_spec(folds, data_->candles.size());
  fold_bars_of(
      folds, [](std::size_t atom) { return atom; }, out->fold_edge_, out->fold_embargo_end_);
  out->fold_names_ = fold_metric_names(out->metric_names(), folds.n_folds());  // the base names: no folds yet
  out->folds_ = folds;
  return out;
}

const ParamList& ema_cross_params() {
  const char* span = "must be an integer >= 1 (and < 1e8)";
  const char* bp = "must be >= 0 basis points (and below 10000)";
  static const ParamList list({
      {"ema_fast", NAN, closed_open(0.5, kMaxSpan, span), true, 5, 60},
      {"ema_slow", NAN, closed_open(0.5, kMaxSpan, span), true, 20, 400},
      {"sl_pct", 0.0, closed_open(0.0, 100.0, "must be >= 0 percent (0 = no stop-loss) and below 100"), false, 0.0,
       5.0},
      {"tp_pct", 0.0, closed_open(0.0, 1e6, "must be >= 0 percent (0 = no take-profit)"), false, 0.0, 10.0},
      {"fee_bp", 0.0, closed_open(0.0, 1e4, bp), false, 0.0, 10.0},
      {"slippage_bp", 0.0, closed_open(0.0, 1e4, bp), false, 0.0, 5.0},
  });
  return list;
}

const std::vector<std::string>& EmaCrossStrategy::metric_names() const {
  if (folds_.n_folds() > 0) return fold_names_;
  static const std::vector<std::string> names = {"trades", "wins",          "total_return", "compound_return",
                                                 "sharpe", "profit_factor", "max_drawdown"};
  return names;
}

ec::Bars EmaCrossStrategy::host_bars() const {
  const Candles& c = data_->candles;
  ec::Bars b;
  b.n = n_bars();
  b.open = c.open.data();
  b.high = c.high.data();
  b.low = c.low.data();
  b.close = c.close.data();
  return b;
}

void EmaCrossStrategy::ema(int span, double* out) const {
  ec::ema_series(data_->candles.close.data(), n_bars(), span, out);
}

EmaCrossStrategy::CachedEma* EmaCrossStrategy::cache_entry(int span) const {
  Data& d = *data_;
  std::lock_guard<std::mutex> lock(d.cache_mutex);
  if (auto it = d.cache.find(span); it != d.cache.end()) return it->second.get();
  const std::size_t n = d.candles.size();
  const std::size_t bytes = (n + 2 * ((n + kSignBlock - 1) / kSignBlock)) * sizeof(double);
  if (d.cache_bytes + bytes > d.cache_limit) return nullptr;
  d.cache_bytes += bytes;
  return d.cache.emplace(span, std::make_unique<CachedEma>()).first->second.get();
}

void EmaCrossStrategy::trial_emas(int fast, int slow, EmaSeriesView* f, EmaSeriesView* s, EmaSeries& own_fast,
                                  EmaSeries& own_slow) const {
  const std::size_t n = data_->candles.size();
  const int ni = n_bars();
  CachedEma* ef = cache_entry(fast);
  CachedEma* es = fast == slow ? ef : cache_entry(slow);
  auto is_ready = [](CachedEma* e) { return e && e->ready.load(std::memory_order_acquire); };
  if (!is_ready(ef) || !is_ready(es)) {
    // Compute what is missing under the entries' locks (taken together: no lock-order
    // deadlock); a series computed by another thread meanwhile is not computed again.
    std::unique_lock<std::mutex> lf, ls;
    if (ef && es && ef != es) {
      std::lock(ef->mutex, es->mutex);
      lf = std::unique_lock<std::mutex>(ef->mutex, std::adopt_lock);
      ls = std::unique_lock<std::mutex>(es->mutex, std::adopt_lock);
    } else if (ef) {
      lf = std::unique_lock<std::mutex>(ef->mutex);
    } else if (es) {
      ls = std::unique_lock<std::mutex>(es->mutex);
    }
    EmaSeries* out_f = !ef ? &own_fast : !ef->ready.load(std::memory_order_relaxed) ? &ef->series : nullptr;
    EmaSeries* out_s = !es ? &own_slow : es != ef && !es->ready.load(std::memory_order_relaxed) ? &es->series : nullptr;
    for (EmaSeries* o : {out_f, out_s})
      if (o) o->values.resize(n);
    const double* close = data_->candles.close.data();
    if (out_f && out_s) ec::ema_series2(close, ni, fast, out_f->values.data(), slow, out_s->values.data());
    else if (out_f) ec::ema_series(close, ni, fast, out_f->values.data());
    else if (out_s) ec::ema_series(close, ni, slow, out_s->values.data());
    for (EmaSeries* o : {out_f, out_s})
      if (o) block_bounds(o->values.data(), ni, kSignBlock, o->block_min, o->block_max);
    if (ef && out_f) ef->ready.store(true, std::memory_order_release);
    if (es && es != ef && out_s) es->ready.store(true, std::memory_order_release);
  }
  auto view = [](const EmaSeries& e) { return EmaSeriesView{e.values.data(), e.block_min.data(), e.block_max.data()}; };
  *f = view(ef ? ef->series : own_fast);
  *s = view(es ? es->series : own_slow);
}

template <typename OnTrade, typename OnBlockEnd>
void EmaCrossStrategy::walk(const double* params, OnTrade&& on_trade, OnBlockEnd&& on_block_end) const {
  const ec::Params p = ec::unpack_params(params);
  thread_local EmaSeries own_fast, own_slow;
  EmaSeriesView fast, slow;
  trial_emas(p.ema_fast, p.ema_slow, &fast, &slow, own_fast, own_slow);
  const ec::TrialSeries t{fast.values, slow.values};
  thread_local SignBits bits;
  bits.build(fast, slow, n_bars(), std::max(0, p.first_valid - 1));
  const Data& d = *data_;
  const ExitFinder exits{&bits, d.bar_lo.data(), d.bar_hi.data(), d.stop_lo.data(), d.stop_hi.data()};
  if (blocks_.empty()) {
    ec::run_backtest(host_bars(), p, t, BelowFinder{&bits}, SignalFinder{&bits}, exits, on_trade);
    on_block_end(std::size_t{0});
    return;
  }
  for (std::size_t k = 0; k < blocks_.size(); ++k) {
    ec::run_backtest(ec::block_bars(host_bars(), blocks_[k].begin, blocks_[k].end), p, t, BelowFinder{&bits},
                     SignalFinder{&bits}, exits, on_trade);
    on_block_end(k);
  }
}

TrialScore EmaCrossStrategy::evaluate(const double* params, double* metrics) const {
  TrialScore r;
  ec::Summary s;
  const int K = static_cast<int>(folds_.n_folds());
  if (blocks_.empty() && K == 0) {
    walk(
        params, [&](const ec::Trade& t) { ec::add_trade(s, t); }, [](std::size_t) {});
    r.score = ec::finish(s, options_.objective, options_.min_trades, metrics, &r.violation);
    return r;
  }
  // Blocked: the score is the sum of the blocks' objective values, in block order. Folded:
  // each trade also joins the fold of its entry bar, and the rule turns the whole span's score
  // (or the blocks') and the folds' into the trial's. The sums run in the order of the path above.
  const FoldBars bars{K, fold_edge_.data(), fold_embargo_end_.data()};
  thread_local FoldSummaries<ec::Summary> storage;
  const FoldView<ec::Summary> folds = storage.view();
  reset_folds(folds, K);
  ec::BlockedScore blocked;
  walk(
      params,
      [&](const ec::Trade& t) {
        ec::add_trade(s, t);
        ec::add_trade(blocked.block, t);
        if (K > 0) add_fold_trade(folds, bars, t.entry_bar, t.ret, [&](ec::Summary& f) { ec::add_trade(f, t); });
      },
      [&](std::size_t) { ec::end_block(blocked, options_.objective); });
  const double whole = ec::finish(s, options_.objective, options_.min_trades, metrics, &r.violation);
  r.score = blocks_.empty() ? whole : blocked.score;
  if (K > 0) {
    const ec::Objective o = options_.objective;
    r.score = finish_folds(
        folds, K, fold_rule(), r.score, [&](const ec::Summary& f) { return ec::objective_value(f, o); },
        metrics + ec::kNumMetrics);
  }
  return r;
}

std::vector<ec::Trade> EmaCrossStrategy::trades(const double* params, ec::Summary* summary) const {
  std::vector<ec::Trade> out;
  ec::Summary s;
  walk(
      params,
      [&](const ec::Trade& t) {
        ec::add_trade(s, t);
        out.push_back(t);
      },
      [](std::size_t) {});
  if (summary) *summary = s;
  return out;
}

std::vector<std::string> EmaCrossStrategy::data_checksums() const { return {data_->checksum}; }

}  // namespace tpeopt::strategies
