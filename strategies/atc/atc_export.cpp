// The trades of one atc trial (tpeopt backtest --trades-out), from the CPU reference's own
// walk (atc::run_symbol with an observer): a trade is a run of bars held in one position,
// long or short, as the `trades` metric counts them.
#include "strategies/atc/atc_export.hpp"

#include <fmt/format.h>

#include "common/error.hpp"
#include "strategies/atc/atc_strategy.hpp"

namespace tpeopt::strategies {

const std::vector<std::string>& atc_trade_columns() {
  static const std::vector<std::string> columns = {"entry_bar",  "exit_bar", "side",  "entry_price",
                                                   "exit_price", "bars",     "return"};
  return columns;
}

namespace {

/// Follows one symbol's walk bar by bar. Bar t's return is that of the position decided at
/// the close of bar t - 1 (state.p1), with the fee of changing to it from the position before
/// (state.p2). A trade starts at the close of the bar before its first held bar and ends at
/// the close of its last held bar; its return is the compounded equity over its bars and, when
/// it ends flat, the next bar's (the exit fee), so that trades and flat bars between them
/// compound to the symbol's equity, except for a flip, whose fee of two units counts in the
/// new trade.
struct TradeRecorder {
  const double* close;
  const std::int64_t* time_ms;
  std::vector<ExportedTrade>* out;
  int side = 0, entry_bar = 0;
  double equity_before = 1.0;  ///< the equity before the trade's first bar
  double last_equity = 1.0;    ///< the equity after the previous return bar

  void close_trade(int exit_bar, double equity_after) {
    ExportedTrade t;
    t.entry_time_ms = time_ms[entry_bar];
    t.exit_time_ms = time_ms[exit_bar];
    t.fields = {fmt::format("{}", entry_bar),
                fmt::format("{}", exit_bar),
                side > 0 ? "long" : "short",
                fmt::format("{}", close[entry_bar]),
                fmt::format("{}", close[exit_bar]),
                fmt::format("{}", exit_bar - entry_bar),
                fmt::format("{}", equity_after / equity_before - 1.0)};
    out->push_back(std::move(t));
    side = 0;
  }

  void operator()(int t, const atc::TradeState& s) {
    const int held = s.p1;
    if (side != 0 && held != side) {
      // Left at the close of bar t - 1: going flat pays its fee in bar t (counted here); a
      // flip pays both fees in bar t, counted in the new trade.
      close_trade(t - 1, held == 0 ? s.equity : last_equity);
    }
    if (held != 0 && held != s.p2) {
      side = held;
      entry_bar = t - 1;
      equity_before = last_equity;
    }
    last_equity = s.equity;
  }
};

}  // namespace

ExportedTrades atc_trades_cpu(const Strategy& strategy, const double* params) {
  const auto& s = dynamic_cast<const AtcStrategy&>(strategy);
  if (!s.blocks().empty()) throw make_error("atc: trades are exported over the whole data set, not over parts of it");
  const atc::Params p = atc::unpack_params(params);
  ExportedTrades out(s.symbol_names().size());
  for (std::size_t k = 0; k < out.size(); ++k) {
    const std::int64_t b = s.offsets()[k];
    TradeRecorder recorder{s.closes().data() + b, s.times_ms().data() + b, &out[k]};
    const int n = static_cast<int>(s.lengths()[k]);
    s.walk_symbol(p, k, [&](int t, const atc::TradeState& state) { recorder(t, state); });
    // A position still held at the last bar ends there.
    if (recorder.side != 0) recorder.close_trade(n - 1, recorder.last_equity);
  }
  return out;
}

}  // namespace tpeopt::strategies
