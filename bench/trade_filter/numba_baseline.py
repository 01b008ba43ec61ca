#!/usr/bin/env python3
"""The trade-log filter's original CPU design: numpy + numba, prange over combinations.

One flat float32 array of prices sorted by ticker then time, a trade table with
MarketDataStartIndex / end index pointers, and a numba kernel that loops over every
parameter combination and, for each, over every trade: filter on the entry metrics,
then walk price[start..end] until the target or the stop is hit, else take the logged
Trade Percent Change. Parallel over combinations (numba prange), float32 data.

It reads the same prepared cache as bench_trade_filter (strategies/trade_filter/trade_filter_cache.hpp
documents the layout), so both run on the same data on the same machine:

    bench_trade_filter --data bench_data/trade_filter      # generates and prepares
    python3 bench/trade_filter/numba_baseline.py bench_data/trade_filter/data.tfc

numba is installed from PyPI when missing (pip install numba).
"""
import importlib
import json
import platform
import struct
import subprocess
import sys
import time


def ensure(package):
    try:
        return importlib.import_module(package)
    except ImportError:
        subprocess.check_call([sys.executable, "-m", "pip", "install", "--quiet", package])
        return importlib.import_module(package)


np = ensure("numpy")
numba = ensure("numba")
from numba import njit, prange  # noqa: E402


def read_cache(path):
    """Sections of strategies/trade_filter/trade_filter_cache.hpp, as numpy arrays."""
    with open(path, "rb") as f:
        buf = f.read()
    if buf[:8] != b"TPFCACHE":
        raise SystemExit(f"{path}: not a trade_filter cache")
    version, order = struct.unpack_from("<II", buf, 8)
    if version != 1 or order != 0x01020304:
        raise SystemExit(f"{path}: unsupported cache version {version}")
    counts = struct.unpack_from("<9Q", buf, 16)
    n_tickers, n_prices, n, n_path, n_up, n_down = counts[:6]
    pos = 16 + 72
    sections = []

    def section(dtype=None, count=None):
        nonlocal pos
        (size,) = struct.unpack_from("<Q", buf, pos)
        pos += 8
        raw = buf[pos:pos + size]
        pos += size
        return raw if dtype is None else np.frombuffer(raw, dtype=dtype, count=count)

    d = {}
    d["tickers"] = section().decode().split()
    section()  # sources
    d["prices"] = section(np.float32, n_prices)
    section(np.uint64, n_tickers + 1)
    section(np.uint32, n)  # ticker
    section(np.int64, n)
    section(np.int64, n)
    for name in ("volatility", "ratio", "adx28", "adx14", "adx7"):
        d[name] = section(np.float32, n)
    d["entry_price"] = section(np.float64, n)
    d["logged_pct"] = section(np.float64, n)
    section(np.int64, n)
    d["start"] = section(np.uint64, n).astype(np.int64)
    d["length"] = section(np.uint32, n).astype(np.int64)
    return d


@njit(parallel=True, fastmath=False)
def grid_kernel(prices, start, length, entry_price, logged, vol, ratio, a28, a14, a7, combos, out):
    # combos: (n_combos, 7) float32: min vol, min ratio, min adx28/14/7, target, stop
    for c in prange(combos.shape[0]):
        p = combos[c]
        total = 0.0
        for t in range(start.shape[0]):
            if vol[t] < p[0] or ratio[t] < p[1] or a28[t] < p[2] or a14[t] < p[3] or a7[t] < p[4]:
                continue
            result = logged[t]
            s = start[t]
            for k in range(s, s + length[t]):
                r = (prices[k] / entry_price[t] - 1.0) * 100.0
                if r >= p[5]:
                    result = p[5]
                    break
                if r <= p[6]:
                    result = p[6]
                    break
            total += result
        out[c] = total


def main():
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    print(f"python {platform.python_version()} | numpy {np.__version__} | numba {numba.__version__} | "
          f"threads {numba.get_num_threads()} | {platform.processor() or platform.machine()}")
    d = read_cache(sys.argv[1])
    n = len(d["entry_price"])
    vols = [0.0, 0.3, 0.4, 0.5, 0.6]
    ratios = [0.0, 0.2, 0.5, 0.7, 0.8, 0.9, 1.0]
    adx = [0, 20, 30]
    targets = [0.2, 0.3, 0.4, 0.5]
    stops = [-0.5, -0.4, -0.3]
    mesh = np.array(np.meshgrid(vols, ratios, adx, adx, adx, targets, stops, indexing="ij"))
    combos = mesh.reshape(7, -1).T.astype(np.float32).copy()  # last axis fastest, as tpeopt grid
    out = np.zeros(len(combos))
    args = (d["prices"], d["start"], d["length"], d["entry_price"], d["logged_pct"], d["volatility"], d["ratio"],
            d["adx28"], d["adx14"], d["adx7"])
    grid_kernel(*args, combos[:2], out[:2])  # compile
    t0 = time.perf_counter()
    grid_kernel(*args, combos, out)
    seconds = time.perf_counter() - t0
    checks = len(combos) * n
    print(f"seed grid: {len(combos)} combinations x {n} trades in {seconds * 1000:.1f} ms = "
          f"{checks / seconds:.3g} combination-trade checks/s")
    best = np.argsort(-out, kind="stable")[:10]
    for rank, c in enumerate(best, 1):
        print(f"#{rank} combination {c} score {out[c]:.6f} params {combos[c].tolist()}")
    print(json.dumps({"workload": "seed grid 11,340, numba", "seconds": seconds, "checks_per_s": checks / seconds}))


if __name__ == "__main__":
    main()
