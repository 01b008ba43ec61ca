#!/usr/bin/env python3
"""tpeopt's ema_cross strategy against vectorbt (docs/benchmarks.md, "Peers").

vectorbt runs the strategy as `Portfolio.from_signals` with the settings of
docs/strategies.md ("ema_cross", "vectorbt mapping"): EMAs from vbt.MA (ewm=True), entries
and exits from ma_crossed_above / ma_crossed_below shifted one bar forward, filled at the
bar's open, sl_stop / tp_stop relative to the fill price, stop exits at the stop level
with slippage.

Subcommands:
  check    the two peer workloads: first every trade of every parameter set is compared
           with tpeopt's (bench_ema_cross --trades-out): entry and exit bar, entry and exit
           fill within 1e-9 relative, the number of trades, and the compounded return
           (vectorbt's Portfolio.total_return) within 1e-9 of the account's initial or
           final value; only when all agree are vectorbt's timings taken and printed.
           A passed check leaves checked.txt (hashes of tpeopt's trade files, vectorbt's
           version and engines); --time-only then times without comparing again, but only
           when tpeopt writes byte-identical trades (the comparison takes ~1.5 h on 2 cores).
  fixture  vectorbt's trades for a few hundred random parameter sets on the real data of
           data/ (the repository's real series, data/README.md), written as the compact text fixture that
           tests/strategies/test_ema_cross.cpp reads.

Data of the workloads: the generated walk of bench_ema_cross.cpp (splitmix64 integer
random walk, described there), produced here with numpy and checked bit for bit against
the CSV that `bench_ema_cross --write-data` writes.
"""
import argparse
import hashlib
import os
import platform
import subprocess
import sys
import time

import numpy as np
import pandas as pd
import vectorbt as vbt

MASK64 = np.uint64(0xFFFFFFFFFFFFFFFF)
GOLDEN = np.uint64(0x9E3779B97F4A7C15)
TRADE_DT = np.dtype([("set", "<i4"), ("signal_bar", "<i4"), ("entry_bar", "<i4"), ("exit_bar", "<i4"),
                     ("reason", "<i4"), ("pad", "<i4"), ("entry_price", "<f8"), ("exit_price", "<f8"),
                     ("ret", "<f8")])
N_METRICS = 7  # trades, wins, total_return, compound_return, sharpe, profit_factor, max_drawdown
REASON_END = 4
REL_TOL = 1e-9


# ---- data -------------------------------------------------------------------------------

def splitmix64(seed, count):
    """The first `count` outputs of splitmix64 seeded with `seed` (uint64 arithmetic wraps)."""
    with np.errstate(over="ignore"):
        state = np.uint64(seed) + GOLDEN * np.arange(1, count + 1, dtype=np.uint64)
        z = state
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def generated_walk(n, seed):
    """bench_ema_cross.cpp's generated walk: dict of float64 arrays open/high/low/close/volume."""
    r = splitmix64(seed, 3 * n).reshape(n, 3)
    r1, r2, r3 = r[:, 0], r[:, 1], r[:, 2]
    step = (r1 % np.uint64(41)).astype(np.int64) - 20
    close = 1000000 + np.cumsum(step)
    if close.min() < 1000:
        raise SystemExit("generated walk: the reflection rule would apply; use the C++ generator's CSV")
    open_ = np.concatenate(([1000000], close[:-1]))
    high = np.maximum(open_, close) + (r2 % np.uint64(8)).astype(np.int64)
    low = np.maximum(1, np.minimum(open_, close) - (r3 % np.uint64(8)).astype(np.int64))
    volume = ((r1 >> np.uint64(32)) % np.uint64(1000)).astype(np.int64) + 1
    return {"open": open_ / 100.0, "high": high / 100.0, "low": low / 100.0, "close": close / 100.0,
            "volume": volume.astype(np.float64)}


def read_candles(path):
    """OHLC(V) columns of a CSV tpeopt reads, each field parsed by Python's float (correctly
    rounded, as tpeopt's std::from_chars)."""
    df = pd.read_csv(path, dtype=str)
    cols = {c.lower(): c for c in df.columns}
    return {k: np.array([float(x) for x in df[cols[k]]], dtype=np.float64)
            for k in ("open", "high", "low", "close", "volume")}


# ---- vectorbt ---------------------------------------------------------------------------

def vbt_emas(close, spans):
    """The EMA (vbt.MA, ewm=True) of each distinct span, from one MA.run: an (n, k) array
    and the column of each span."""
    uniq = np.unique(np.asarray(spans, dtype=np.int64))
    ma = vbt.MA.run(close, window=[int(v) for v in uniq], ewm=True).ma.to_numpy()
    if ma.ndim == 1:
        ma = ma[:, None]
    return ma, {int(v): j for j, v in enumerate(uniq)}


def vbt_portfolio(bars, sets, emas=None):
    """Portfolio.from_signals of the ema_cross sets (rows: ema_fast, ema_slow, sl_pct,
    tp_pct, fee_bp, slippage_bp), one column per set, with the docs' settings. `emas`:
    vbt_emas of (at least) the sets' spans, computed here when not given."""
    close = bars["close"]
    ma, column = emas if emas is not None else vbt_emas(close, sets[:, :2].ravel())
    f = ma[:, [column[int(v)] for v in sets[:, 0]]]
    s = ma[:, [column[int(v)] for v in sets[:, 1]]]
    entries = pd.DataFrame(f).vbt.crossed_above(pd.DataFrame(s)).vbt.signals.fshift(1)
    exits = pd.DataFrame(f).vbt.crossed_below(pd.DataFrame(s)).vbt.signals.fshift(1)
    sl = np.where(sets[:, 2] > 0, sets[:, 2] / 100.0, np.nan)[None, :]
    tp = np.where(sets[:, 3] > 0, sets[:, 3] / 100.0, np.nan)[None, :]
    col = lambda a: a[:, None]  # noqa: E731  (one column, broadcast over the sets)
    return vbt.Portfolio.from_signals(
        col(close), entries.to_numpy(), exits.to_numpy(),
        price=col(bars["open"]), open=col(bars["open"]), high=col(bars["high"]), low=col(bars["low"]),
        sl_stop=sl, tp_stop=tp, stop_entry_price="fillprice", stop_exit_price="stopmarket",
        fees=(sets[:, 4] / 1e4)[None, :], slippage=(sets[:, 5] / 1e4)[None, :],
        direction="longonly", size=np.inf, init_cash=1e100, min_size=0.0)


def vbt_trades(pf, n_bars, close_last):
    """Per set, from the order records (the fills themselves): entry bar, exit bar, entry
    fill, exit fill, open flag; a position still open at the end is marked at the last
    close (vectorbt's open trade). Also vectorbt's trade records, for their prices."""
    orders = pf.orders.values
    trades = pf.trades.values
    order_by_col = np.split(orders, np.searchsorted(orders["col"], np.arange(1, pf.wrapper.shape_2d[1])))
    trade_by_col = np.split(trades, np.searchsorted(trades["col"], np.arange(1, pf.wrapper.shape_2d[1])))
    out = []
    for c, (o, t) in enumerate(zip(order_by_col, trade_by_col)):
        side = o["side"]
        if len(o) and (np.any(side[0::2] != 0) or np.any(side[1::2] != 1)):
            raise SystemExit(f"set {c}: vectorbt orders do not alternate buy/sell")
        buys, sells = o[0::2], o[1::2]
        n = len(buys)
        exit_bar = np.full(n, n_bars - 1, dtype=np.int64)
        exit_price = np.full(n, close_last)
        exit_bar[:len(sells)] = sells["idx"]
        exit_price[:len(sells)] = sells["price"]
        is_open = np.zeros(n, dtype=bool)
        is_open[len(sells):] = True
        out.append({"entry_bar": buys["idx"].astype(np.int64), "entry_price": buys["price"].copy(),
                    "exit_bar": exit_bar, "exit_price": exit_price, "open": is_open,
                    "trade_entry_price": t["entry_price"].copy(), "trade_exit_price": t["exit_price"].copy()})
    return out


def rel_close(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return np.abs(a - b) <= REL_TOL * np.maximum(np.abs(a), np.abs(b))


def returns_close(a, b):
    """Compounded returns agree within 1e-9 of the account's initial or final value,
    whichever is larger (vectorbt's (value - init) / init loses the relative precision of a
    ruined account's value: a 15,000-trade set ends at 1 + r ~ 1e-19)."""
    return abs(a - b) <= REL_TOL * max(1.0, abs(1.0 + a), abs(1.0 + b))


def compare_set(k, ours, theirs, our_compound, their_compound):
    """Returns (ok, message, n_trades, n_bit_identical_prices)."""
    n = len(theirs["entry_bar"])
    if len(ours) != n:
        return False, f"set {k}: {len(ours)} trades in tpeopt, {n} in vectorbt", n, 0
    if n == 0:
        ok = our_compound == 0.0 and abs(their_compound) <= 1e-15
        return ok, "" if ok else f"set {k}: no trades but compound {our_compound} vs {their_compound}", 0, 0
    checks = [
        ("entry bar", np.array_equal(ours["entry_bar"], theirs["entry_bar"])),
        ("exit bar", np.array_equal(ours["exit_bar"], theirs["exit_bar"])),
        ("open trade", np.array_equal(ours["reason"] == REASON_END, theirs["open"])),
        ("entry price", bool(np.all(rel_close(ours["entry_price"], theirs["entry_price"])))),
        ("exit price", bool(np.all(rel_close(ours["exit_price"], theirs["exit_price"])))),
        ("trade record entry price", bool(np.all(rel_close(ours["entry_price"], theirs["trade_entry_price"])))),
        ("trade record exit price", bool(np.all(rel_close(ours["exit_price"], theirs["trade_exit_price"])))),
        ("compounded return", returns_close(float(our_compound), float(their_compound))),
    ]
    for name, ok in checks:
        if not ok:
            first = ""
            for j in range(n):
                a = (ours["entry_bar"][j], ours["exit_bar"][j], ours["entry_price"][j], ours["exit_price"][j])
                b = (theirs["entry_bar"][j], theirs["exit_bar"][j], theirs["entry_price"][j], theirs["exit_price"][j])
                if a != b:
                    first = f"; first differing trade #{j}: tpeopt {a} vectorbt {b}"
                    break
            return False, f"set {k}: {name} differs{first}", n, 0
    identical = int(np.sum(ours["entry_price"] == theirs["entry_price"]) + np.sum(ours["exit_price"] == theirs["exit_price"]))
    return True, "", n, identical


# ---- tpeopt -----------------------------------------------------------------------------

def write_params(path, sets):
    with open(path, "w") as f:
        f.write("ema_fast,ema_slow,sl_pct,tp_pct,fee_bp,slippage_bp\n")
        for row in sets:
            f.write(",".join(repr(float(v)) for v in row) + "\n")


def tpeopt_trades(bench, data_args, sets, workdir, tag):
    params = os.path.join(workdir, f"{tag}_params.csv")
    prefix = os.path.join(workdir, tag)
    write_params(params, sets)
    subprocess.run([bench, *data_args, "--params", params, "--trades-out", prefix], check=True,
                   stdout=subprocess.DEVNULL)
    trades = np.fromfile(prefix + ".trades", dtype=TRADE_DT)
    metrics = np.fromfile(prefix + ".metrics", dtype=np.float64).reshape(len(sets), 1 + N_METRICS)
    bounds = np.searchsorted(trades["set"], np.arange(len(sets) + 1))
    per_set = [trades[bounds[k]:bounds[k + 1]] for k in range(len(sets))]
    return per_set, metrics[:, 1 + 3]  # compound_return


CHECKED_MARKER = "checked.txt"


def checked_stamp(workdir, engines):
    """What a passed check vouches for: the SHA-256 of tpeopt's trade and metric files and
    the vectorbt version and engines they were compared with."""
    lines = [f"vectorbt {vbt.__version__}, engines {','.join(engines)}"]
    for name in ("sweep.trades", "sweep.metrics", "long.trades", "long.metrics"):
        with open(os.path.join(workdir, name), "rb") as f:
            lines.append(f"{hashlib.sha256(f.read()).hexdigest()}  {name}")
    return "\n".join(lines) + "\n"


def sweep_sets():
    """bench_ema_cross.cpp's sweep grid: ema_fast 2..200 step 2 x ema_slow 10..1000 step 10."""
    a, b = np.divmod(np.arange(10000), 100)
    return np.column_stack([2.0 + 2.0 * a, 10.0 + 10.0 * b, np.full(10000, 2.0), np.full(10000, 4.0),
                            np.full(10000, 10.0), np.full(10000, 5.0)])


def check_workload(name, bars, sets, ours, our_compound, chunk):
    """Every trade of every set: returns (sets, trades, bit-identical prices)."""
    n_bars = len(bars["close"])
    total_trades = total_identical = 0
    emas = vbt_emas(bars["close"], sets[:, :2].ravel())
    for lo in range(0, len(sets), chunk):
        hi = min(len(sets), lo + chunk)
        pf = vbt_portfolio(bars, sets[lo:hi], emas)
        theirs = vbt_trades(pf, n_bars, bars["close"][-1])
        compound = np.atleast_1d(pf.total_return().to_numpy() if hasattr(pf.total_return(), "to_numpy")
                                 else pf.total_return())
        for j in range(hi - lo):
            ok, msg, nt, ident = compare_set(lo + j, ours[lo + j], theirs[j], our_compound[lo + j], compound[j])
            if not ok:
                raise SystemExit(f"{name}: tpeopt and vectorbt DISAGREE: {msg}\nNothing is timed.")
            total_trades += nt
            total_identical += ident
        del pf
    return len(sets), total_trades, total_identical


def time_vbt(bars, sets, chunk, repeats):
    """Best of `repeats` of the whole vectorbt pipeline: the EMA of every distinct span once
    (as tpeopt computes them), then, in chunks of `chunk` sets (memory), crossings,
    from_signals and total_return per set."""
    best, best_cpu = float("inf"), float("inf")
    for _ in range(repeats):
        t0, c0 = time.perf_counter(), time.process_time()
        emas = vbt_emas(bars["close"], sets[:, :2].ravel())
        for lo in range(0, len(sets), chunk):
            pf = vbt_portfolio(bars, sets[lo:lo + chunk], emas)
            pf.total_return()
            del pf
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        if wall < best:
            best, best_cpu = wall, cpu
    return best, best_cpu


def cmd_check(args):
    bench = args.bench
    workdir = args.workdir
    os.makedirs(workdir, exist_ok=True)
    print(f"python {platform.python_version()}, vectorbt {vbt.__version__}, numpy {np.__version__}, "
          f"pandas {pd.__version__}, numba {__import__('numba').__version__}")
    try:
        import vectorbt_rust  # noqa: F401
        rust = f"vectorbt-rust {vectorbt_rust.__version__}"
    except ImportError:
        rust = None
    # "auto": vectorbt's default when vectorbt-rust is installed: the Rust engine for the
    # functions it implements (EMA, crossings, from_signals), numba for the others.
    engines = ["numba"] + (["auto"] if rust else [])
    print(f"vectorbt engines: {', '.join(engines)}" + (f" (auto = {rust} where it applies, numba elsewhere)" if rust
                                                        else " (vectorbt-rust not installed)"))

    # The sweep data: numpy's walk must equal bench_ema_cross's CSV bit for bit.
    data_csv = os.path.join(workdir, f"walk_{args.bars}_seed1.csv")
    subprocess.run([bench, "--bars", str(args.bars), "--seed", "1", "--write-data", data_csv], check=True,
                   stdout=subprocess.DEVNULL)
    sweep_bars = generated_walk(args.bars, 1)
    from_csv = read_candles(data_csv)
    for k in ("open", "high", "low", "close", "volume"):
        if not np.array_equal(sweep_bars[k].view(np.uint64), from_csv[k].view(np.uint64)):
            raise SystemExit(f"generated walk: numpy and bench_ema_cross differ in {k}")
    print(f"data: generated walk, {args.bars} bars (seed 1): numpy == bench_ema_cross CSV, bit for bit")
    sets = sweep_sets()[: args.sets]
    long_set = np.array([[50.0, 200.0, 2.0, 4.0, 10.0, 5.0]])

    # 1. Check every trade (both engines), before any timing.
    t0 = time.perf_counter()
    ours, our_compound = tpeopt_trades(bench, [data_csv], sets, workdir, "sweep")
    long_ours, long_compound = tpeopt_trades(bench, ["--bars", str(args.long_bars), "--seed", "2"], long_set,
                                             workdir, "long")
    print(f"tpeopt trades written ({time.perf_counter() - t0:.1f} s)")
    long_bars = generated_walk(args.long_bars, 2)
    stamp = checked_stamp(workdir, engines)
    if args.time_only:
        # The trades tpeopt writes now must be, byte for byte, the ones an earlier full check
        # compared with these vectorbt engines; otherwise nothing is timed.
        marker = os.path.join(workdir, CHECKED_MARKER)
        if not os.path.exists(marker) or open(marker).read() != stamp:
            raise SystemExit(f"--time-only: {marker} does not vouch for these trades and engines "
                             "(run the check without --time-only first). Nothing is timed.")
        print(f"check: skipped; tpeopt's trades are byte-identical to those checked before ({marker})")
        engines_to_check = []
    else:
        engines_to_check = engines
    for engine in engines_to_check:
        vbt.settings["engine"] = engine
        t0 = time.perf_counter()
        ns, nt, ident = check_workload("sweep", sweep_bars, sets, ours, our_compound, args.chunk)
        nl, ntl, identl = check_workload("long", long_bars, long_set, long_ours, long_compound, 1)
        print(f"check [{engine}]: sweep {ns} sets, {nt} trades; long {nl} set, {ntl} trades: every trade agrees "
              f"(bars exact; fills within 1e-9 relative, {ident + identl} of {2 * (nt + ntl)} bit-identical; "
              f"compounded returns within 1e-9 of max(1, final equity)) ({time.perf_counter() - t0:.0f} s)")
    if engines_to_check:
        with open(os.path.join(workdir, CHECKED_MARKER), "w") as f:
            f.write(stamp)

    # 2. Only then: time vectorbt.
    rows = []
    for engine in engines:
        vbt.settings["engine"] = engine
        vbt_portfolio(sweep_bars, sets[:2]).total_return()  # compile / warm up
        t_sweep = time_vbt(sweep_bars, sets, args.chunk, args.repeats)
        t_long = time_vbt(long_bars, long_set, 1, args.repeats)
        rows.append((engine, t_sweep, t_long))
        print(f"timed [{engine}]: sweep {t_sweep[0]:.2f} s wall ({t_sweep[1]:.2f} s CPU), "
              f"long {t_long[0]:.3f} s wall ({t_long[1]:.3f} s CPU)", flush=True)
    # Wall time of the best repeat and the process CPU time it used (all threads): on a
    # loaded machine CPU time stays near what an idle machine's wall time would be.
    print(f"\n| engine | sweep: {len(sets)} sets x {args.bars} bars, s wall (CPU) (best of {args.repeats}) | "
          f"long: 1 set x {args.long_bars} bars, s wall (CPU) (best of {args.repeats}) |")
    print("| --- | --- | --- |")
    for engine, (ts, tsc), (tl, tlc) in rows:
        print(f"| vectorbt {vbt.__version__} ({engine}) | {ts:.2f} ({tsc:.2f}) | {tl:.3f} ({tlc:.3f}) |", flush=True)


# ---- the test fixture ---------------------------------------------------------------------

FIXTURE_FILES = ["binance-1m/BTCUSDT_1m_2023-03.csv", "binance-1m/BTCUSD_1m_2023-03.csv",
                 "binance-1m/BTCUSDC_1m_2023-03.csv", "backtesting-py/EURUSD.csv", "backtesting-py/GOOG.csv",
                 "backtesting-py/BTCUSD.csv"]


def random_sets(rng, count, n_bars):
    """Random ema_cross sets: spans 1..min(400, bars / 4) in any order (fast may be the
    slower one), stops off in about a quarter of the sets each, costs 0..20 bp."""
    hi = max(2, min(400, n_bars // 4))
    fast = rng.integers(1, hi + 1, count)
    slow = rng.integers(1, hi + 1, count)
    sl = np.where(rng.random(count) < 0.25, 0.0, np.round(rng.uniform(0.2, 8.0, count), 2))
    tp = np.where(rng.random(count) < 0.25, 0.0, np.round(rng.uniform(0.2, 12.0, count), 2))
    fee = np.where(rng.random(count) < 0.2, 0.0, np.round(rng.uniform(0.0, 20.0, count), 1))
    slip = np.where(rng.random(count) < 0.2, 0.0, np.round(rng.uniform(0.0, 10.0, count), 1))
    return np.column_stack([fast, slow, sl, tp, fee, slip]).astype(np.float64)


def cmd_fixture(args):
    vbt.settings["engine"] = args.engine
    rng = np.random.default_rng(args.seed)
    lines = [f"# ema_cross vs vectorbt {vbt.__version__} (engine {args.engine}): Portfolio.from_signals with the settings of",
             "# docs/strategies.md (ema_cross). Generated by: python bench/peers/peers.py fixture",
             f"#   --data-dir data --seed {args.seed} --sets {args.sets}  (do not edit).",
             "# data FILE BARS | set FAST SLOW SL_PCT TP_PCT FEE_BP SLIPPAGE_BP TRADES TOTAL_RETURN",
             "# then one line per trade: ENTRY_BAR EXIT_BAR OPEN(0/1) ENTRY_FILL EXIT_FILL (from the order",
             "# records; an open trade is marked at the last close). Numbers are shortest round-trip."]
    per_file = [args.sets // len(FIXTURE_FILES)] * len(FIXTURE_FILES)
    per_file[0] += args.sets - sum(per_file)
    total_trades = 0
    for name, count in zip(FIXTURE_FILES, per_file):
        bars = read_candles(os.path.join(args.data_dir, name))
        n = len(bars["close"])
        sets = random_sets(rng, count, n)
        pf = vbt_portfolio(bars, sets)
        trades = vbt_trades(pf, n, bars["close"][-1])
        compound = np.atleast_1d(np.asarray(pf.total_return()))
        lines.append(f"data {name} {n}")
        for k in range(count):
            t = trades[k]
            s = sets[k]
            lines.append(f"set {int(s[0])} {int(s[1])} {float(s[2])!r} {float(s[3])!r} {float(s[4])!r} "
                         f"{float(s[5])!r} {len(t['entry_bar'])} "
                         f"{float(compound[k])!r}")
            for j in range(len(t["entry_bar"])):
                lines.append(f"{t['entry_bar'][j]} {t['exit_bar'][j]} {int(t['open'][j])} "
                             f"{float(t['entry_price'][j])!r} {float(t['exit_price'][j])!r}")
            total_trades += len(t["entry_bar"])
    with open(args.out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"wrote {args.out}: {args.sets} sets, {total_trades} trades, {os.path.getsize(args.out)} bytes")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("check", help="check every trade against tpeopt, then time vectorbt")
    c.add_argument("--bench", required=True, help="path of the bench_ema_cross binary")
    c.add_argument("--workdir", default="bench_data/peers")
    c.add_argument("--bars", type=int, default=200000)
    c.add_argument("--sets", type=int, default=10000)
    c.add_argument("--long-bars", type=int, default=10000000)
    c.add_argument("--chunk", type=int, default=250, help="sets per vectorbt call (memory)")
    c.add_argument("--repeats", type=int, default=3)
    c.add_argument("--time-only", action="store_true",
                   help="skip the trade comparison when an earlier check in --workdir passed on byte-identical "
                        "tpeopt trades with the same vectorbt version and engines (its checked.txt); else refuse")
    f = sub.add_parser("fixture", help="write the vectorbt fixture of tests/strategies/test_ema_cross.cpp")
    f.add_argument("--data-dir", default="data", help="the real series (default: the repository's data/)")
    f.add_argument("--out", required=True)
    f.add_argument("--seed", type=int, default=12)
    f.add_argument("--sets", type=int, default=300)
    f.add_argument("--engine", default="numba", choices=["numba", "auto"],
                   help="vectorbt engine (auto: vectorbt-rust where it applies, when installed)")
    args = ap.parse_args()
    {"check": cmd_check, "fixture": cmd_fixture}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
