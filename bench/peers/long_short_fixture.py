#!/usr/bin/env python3
"""vectorbt's fills for tpeopt's long/short signal strategies (bollinger, donchian): the
fixtures that tests/strategies/test_long_short_vectorbt.cpp compares tpeopt's trades with.

The signals are computed here with the formulas of docs/strategies.md ("bollinger",
"donchian"), operation for operation as tpeopt's TPEOPT_HD code computes them (plain Python
floats: IEEE doubles, sums left to right, math.sqrt correctly rounded), then handed to
vectorbt's Portfolio.from_signals with the settings of the documented mapping ("Long/short
signal strategies: vectorbt mapping"): signals shifted one bar, filled at the open, the ATR
stop as sl_stop relative to the fill, stop exits with slippage, opposite entries ignored.
vectorbt's engine then decides the fills: the fixture holds its order records.

Usage:
  python bench/peers/long_short_fixture.py --strategy bollinger --data data/backtesting-py/EURUSD.csv \
      --seed 21 --sets 300 --out tests/strategies/fixtures/bollinger_vectorbt.txt
(the exact command of each fixture is in its header).
"""
import argparse
import math
import shlex
import sys

import numpy as np
import pandas as pd
import vectorbt as vbt

NAN = float("nan")


# ---- data -------------------------------------------------------------------------------

def read_candles(path):
    """OHLC columns of a CSV tpeopt reads, each field parsed by Python's float (correctly
    rounded, as tpeopt's std::from_chars)."""
    df = pd.read_csv(path, dtype=str)
    cols = {c.lower(): c for c in df.columns}
    return {k: [float(x) for x in df[cols[k]]] for k in ("open", "high", "low", "close")}


# ---- indicators (strategies/candle_indicators.hpp) ------------------------------------------

def true_range(h, l, c, i):
    hl = h[i] - l[i]
    if i == 0:
        return hl
    m = hl
    hc = abs(h[i] - c[i - 1])
    lc = abs(l[i] - c[i - 1])
    if hc > m:
        m = hc
    if lc > m:
        m = lc
    return m


def atr_series(bars, w):
    h, l, c = bars["high"], bars["low"], bars["close"]
    tr = [true_range(h, l, c, i) for i in range(len(c))]
    out = [NAN] * len(c)
    for t in range(w - 1, len(c)):
        s = 0.0
        for k in range(t - w + 1, t + 1):
            s = s + tr[k]
        out[t] = s / float(w)
    return out


def mean_sd_series(x, w):
    mean, sd = [NAN] * len(x), [NAN] * len(x)
    for t in range(w - 1, len(x)):
        s = 0.0
        for k in range(t - w + 1, t + 1):
            s = s + x[k]
        m = s / float(w)
        q = 0.0
        for k in range(t - w + 1, t + 1):
            d = x[k] - m
            q = q + d * d
        mean[t], sd[t] = m, math.sqrt(q / float(w))
    return mean, sd


def highest_before(x, n):
    out = [NAN] * len(x)
    for t in range(n, len(x)):
        m = x[t - n]
        for k in range(t - n + 1, t):
            if x[k] > m:
                m = x[k]
        out[t] = m
    return out


def lowest_before(x, n):
    out = [NAN] * len(x)
    for t in range(n, len(x)):
        m = x[t - n]
        for k in range(t - n + 1, t):
            if x[k] < m:
                m = x[k]
        out[t] = m
    return out


class Series:
    """Each (kind, value) series computed once."""

    def __init__(self, bars):
        self.bars, self.cache = bars, {}

    def get(self, kind, value):
        key = (kind, value)
        if key not in self.cache:
            b = self.bars
            if kind == "atr":
                self.cache[key] = atr_series(b, value)
            elif kind in ("mid", "sd"):
                mid, sd = mean_sd_series(b["close"], value)
                self.cache[("mid", value)], self.cache[("sd", value)] = mid, sd
            elif kind == "highest":
                self.cache[key] = highest_before(b["high"], value)
            elif kind == "lowest":
                self.cache[key] = lowest_before(b["low"], value)
        return self.cache[key]


# ---- the strategies' signals (strategies/<name>/<name>.hpp) ----------------------------------

def round_param(v):
    return int(math.floor(v + 0.5))


def bollinger_signals(p, bars, series):
    """p: window, num_std, atr_window, atr_stop, fee_bp, slippage_bp."""
    window, num_std, atr_window = round_param(p[0]), p[1], round_param(p[2])
    first_valid = max(window, atr_window) - 1
    mid, sd = series.get("mid", window), series.get("sd", window)
    close = bars["close"]
    n = len(close)
    le, lx, se, sx = (np.zeros(n, dtype=bool) for _ in range(4))
    for t in range(first_valid, n):
        upper = mid[t] + num_std * sd[t]
        lower = mid[t] - num_std * sd[t]
        c = close[t]
        le[t], lx[t], se[t], sx[t] = c < lower, c >= mid[t], c > upper, c <= mid[t]
    return first_valid, series.get("atr", atr_window), (le, lx, se, sx)


def donchian_signals(p, bars, series):
    """p: channel, exit_channel, atr_window, atr_stop, fee_bp, slippage_bp."""
    channel, exit_channel, atr_window = round_param(p[0]), round_param(p[1]), round_param(p[2])
    first_valid = max(channel, exit_channel, atr_window - 1)
    eh, el = series.get("highest", channel), series.get("lowest", channel)
    xh, xl = series.get("highest", exit_channel), series.get("lowest", exit_channel)
    close = bars["close"]
    n = len(close)
    le, lx, se, sx = (np.zeros(n, dtype=bool) for _ in range(4))
    for t in range(first_valid, n):
        c = close[t]
        le[t], se[t], lx[t], sx[t] = c > eh[t], c < el[t], c < xl[t], c > xh[t]
    return first_valid, series.get("atr", atr_window), (le, lx, se, sx)


STRATEGIES = {
    # name: (signals, [(low, high, integer) of each slot but the costs])
    "bollinger": (bollinger_signals, [(10, 60, True), (1.0, 3.0, False), (5, 30, True)]),
    "donchian": (donchian_signals, [(10, 80, True), (5, 40, True), (5, 30, True)]),
}


# ---- vectorbt ---------------------------------------------------------------------------------

def entry_side(le, lx, se, sx):
    """vectorbt's defaults for conflicting signals (strategies/long_short.hpp, entry_side)."""
    go_long, go_short = le and not lx, se and not sx
    if go_long == go_short:
        return 0
    return 1 if go_long else -1


def vbt_portfolio(bars, p, first_valid, atr, signals):
    """Portfolio.from_signals of one parameter set with the documented mapping."""
    le, lx, se, sx = signals
    n = len(bars["close"])
    stop_mult, fee, slip = p[3], p[4] / 1e4, p[5] / 1e4
    shift = lambda a: np.concatenate(([False], a[:-1]))  # noqa: E731  (a signal at t acts at t + 1)
    # sl_stop at the entry bar e = s + 1: (stop_mult * ATR_s) / (the entry fill), vectorbt's
    # stop relative to the fill price ("fillprice"); NaN: no stop.
    sl = np.full(n, np.nan)
    if stop_mult > 0:
        for e in range(max(first_valid, 0) + 1, n):
            side = entry_side(le[e - 1], lx[e - 1], se[e - 1], sx[e - 1])
            if side != 0:
                fill = bars["open"][e] * (1.0 + slip) if side > 0 else bars["open"][e] * (1.0 - slip)
                sl[e] = (stop_mult * atr[e - 1]) / fill
    col = lambda a: np.asarray(a, dtype=np.float64)[:, None]  # noqa: E731
    return vbt.Portfolio.from_signals(
        col(bars["close"]), shift(le)[:, None], shift(lx)[:, None], shift(se)[:, None], shift(sx)[:, None],
        price=col(bars["open"]), open=col(bars["open"]), high=col(bars["high"]), low=col(bars["low"]),
        sl_stop=sl[:, None], stop_entry_price="fillprice", stop_exit_price="stopmarket",
        upon_opposite_entry="ignore", fees=fee, slippage=slip, size=np.inf, init_cash=1e100, min_size=0.0)


def vbt_trades(pf, close_last, n_bars):
    """From the order records (the fills): (entry bar, exit bar, side, open, entry fill, exit
    fill); entry and exit orders alternate; an open position is marked at the last close."""
    o = pf.orders.values
    out = []
    for k in range(0, len(o), 2):
        entry = o[k]
        side = 1 if entry["side"] == 0 else -1  # OrderSide: 0 buy, 1 sell
        if k + 1 < len(o):
            exit_ = o[k + 1]
            if exit_["side"] == entry["side"]:
                raise SystemExit("vectorbt orders do not alternate entry and exit")
            out.append((int(entry["idx"]), int(exit_["idx"]), side, 0, float(entry["price"]), float(exit_["price"])))
        else:
            out.append((int(entry["idx"]), n_bars - 1, side, 1, float(entry["price"]), float(close_last)))
    return out


def random_sets(rng, name, count):
    sets = []
    for _ in range(count):
        p = []
        for low, high, integer in STRATEGIES[name][1]:
            p.append(float(rng.integers(low, high + 1)) if integer else round(float(rng.uniform(low, high)), 3))
        p.append(0.0 if rng.random() < 0.3 else round(float(rng.uniform(0.5, 4.0)), 2))  # atr_stop
        p.append(round(float(rng.uniform(0.0, 10.0)), 1))  # fee_bp
        p.append(round(float(rng.uniform(0.0, 5.0)), 1))   # slippage_bp
        sets.append(p)
    return sets


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--strategy", choices=sorted(STRATEGIES), required=True)
    ap.add_argument("--data", required=True, help="a candle CSV (the repository's data/backtesting-py/EURUSD.csv)")
    ap.add_argument("--seed", type=int, default=21)
    ap.add_argument("--sets", type=int, default=300)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    vbt.settings["engine"] = "numba"
    bars = read_candles(args.data)
    n = len(bars["close"])
    series = Series(bars)
    signals_of = STRATEGIES[args.strategy][0]
    rng = np.random.default_rng(args.seed)
    command = "python bench/peers/long_short_fixture.py " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    lines = [f"# {args.strategy} vs vectorbt {vbt.__version__} (engine numba): Portfolio.from_signals with the mapping of",
             f"# docs/strategies.md (Long/short signal strategies). Generated by: {command}  (do not edit).",
             "# data FILE BARS | set P0..P5 (the strategy's slots) TRADES TOTAL_RETURN",
             "# then one line per trade: ENTRY_BAR EXIT_BAR SIDE(1 long, -1 short) OPEN(0/1) ENTRY_FILL EXIT_FILL",
             "# (from the order records; an open trade is marked at the last close). Numbers are shortest round-trip.",
             f"data {args.data} {n}"]
    trades = 0
    for p in random_sets(rng, args.strategy, args.sets):
        first_valid, atr, signals = signals_of(p, bars, series)
        pf = vbt_portfolio(bars, p, first_valid, atr, signals)
        ts = vbt_trades(pf, bars["close"][-1], n)
        total = float(np.asarray(pf.total_return()).ravel()[0])
        lines.append("set " + " ".join(repr(v) for v in p) + f" {len(ts)} {total!r}")
        for t in ts:
            lines.append(f"{t[0]} {t[1]} {t[2]} {t[3]} {t[4]!r} {t[5]!r}")
        trades += len(ts)
    with open(args.out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"{args.out}: {args.sets} sets, {trades} trades")


if __name__ == "__main__":
    main()
