#!/usr/bin/env python3
"""Pipeline depth for a Python objective (docs/benchmarks.md, "Python: pipeline depth";
docs/python.md, "Depth"): depth 1 against depth 2 in tpeopt.optimize, for a cheap objective
(numpy, well under a millisecond per batch) and the same objective made expensive (plus a
sleep per batch, as a GPU backtest's wait: the GIL is released), at the same seeds and trials.

A deterministic objective scores a trial the same whatever it costs, so the cheap and the
expensive run of one (objective, budget, seed, depth) record the same trials (the script
checks their digests are equal): depth changes what the sampler knows when it asks (at depth
2, batch k + 1 is asked before batch k is told), the sleep only the wall time. The script
reports, per cell, the best value found (median over seeds, and how many seeds depth 1 beat
depth 2), the wall time of each (medians), and the sampler's ask time over the whole run at
depth 1 (median): all that depth 2 can hide behind the objective.

Tuning set (the default was chosen on it): a 12-d rotated ellipsoid plus Rastrigin, an 8-d
Rosenbrock, and a mixed space of 7 parameters (log, stepped, int, categorical, a list of
values) with a constraint. Held-out check: the moving-average crossover on the bundled
EURUSD hours of docs/python.md (maximized, fast below slow as a constraint) and a 10-d
Ackley.

Usage: depth.py [--seeds 0,1,2,3,4] [--sleep 0.02] [--json OUT] [--markdown OUT]
(from the repository's root; `nice -n 10` on a shared machine).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

import tpeopt

ROOT = Path(__file__).resolve().parents[2]

# (trials, batch): optimize()'s defaults, a longer run in the same batches, and the issue's case.
BUDGETS = [(1000, 256), (4096, 256), (20000, 1000)]


def _rotation(d: int, seed: int) -> np.ndarray:
    q, r = np.linalg.qr(np.random.default_rng(seed).standard_normal((d, d)))
    return q * np.sign(np.diag(r))


Q12 = _rotation(12, 12)
W12 = 10.0 ** (3.0 * np.arange(12) / 11)  # the ellipsoid's axes: condition number 1,000


def ellipsoid_rastrigin(X: np.ndarray) -> np.ndarray:
    """A rotated ellipsoid (condition 1e3) plus a tenth of Rastrigin: 0 at the origin."""
    Z = X @ Q12.T
    rastrigin = 10.0 * X.shape[1] + (X * X - 10.0 * np.cos(2 * np.pi * X)).sum(axis=1)
    return (W12 * Z * Z).sum(axis=1) / W12.sum() + rastrigin / 10.0


def rosenbrock(X: np.ndarray) -> np.ndarray:
    return (100.0 * (X[:, 1:] - X[:, :-1] ** 2) ** 2 + (1.0 - X[:, :-1]) ** 2).sum(axis=1)


def ackley(X: np.ndarray) -> np.ndarray:
    d = X.shape[1]
    return (-20.0 * np.exp(-0.2 * np.sqrt((X * X).sum(axis=1) / d)) - np.exp(np.cos(2 * np.pi * X).sum(axis=1) / d)
            + 20.0 + np.e)


def mixed(X: np.ndarray) -> dict:
    score = ((X[:, 0] - 1.0) ** 2 + np.log(X[:, 1]) ** 2 + X[:, 2] + (X[:, 3] - 7) ** 2 / 50 + X[:, 4] * 0.3
             + X[:, 5] + X[:, 6] / 40)
    return {"score": score, "violation": np.maximum(0.0, X[:, 0] - 4.0)}


MIXED_SPACE = {
    "x0": {"type": "float", "low": -5.0, "high": 5.0},
    "x1": {"type": "float", "low": 0.01, "high": 10.0, "log": True},
    "x2": {"type": "float", "low": -1.0, "high": 1.0, "step": 0.25},
    "n": {"type": "int", "low": 1, "high": 50},
    "k": {"type": "categorical", "choices": ["a", "b", "c"]},
    "w": {"values": [0.5, 1.0, 2.0]},
    "m": {"type": "int", "low": 2, "high": 20, "step": 3},
}


def _sma_cross():
    """docs/python.md's moving-average crossover on data/backtesting-py/EURUSD.csv."""
    close = pd.read_csv(ROOT / "data" / "backtesting-py" / "EURUSD.csv")["Close"].to_numpy()
    returns = np.diff(close) / close[:-1]
    csum = np.concatenate([[0.0], np.cumsum(close)])
    sma = np.full((201, len(close)), np.nan)
    for w in range(1, 201):
        sma[w, w - 1:] = (csum[w:] - csum[:-w]) / w

    def sma_cross(X):
        fast, slow = X[:, 0].astype(int), X[:, 1].astype(int)
        long = sma[fast] > sma[slow]
        cost = X[:, 2] * 1e-4 * np.abs(np.diff(long.astype(float), axis=1)).sum(axis=1)
        score = (long[:, :-1] * returns).sum(axis=1) - cost
        return {"score": score, "violation": np.maximum(0, fast - slow + 1).astype(float)}

    space = {"fast": {"type": "int", "low": 2, "high": 60}, "slow": {"type": "int", "low": 10, "high": 200, "step": 5},
             "cost_bp": {"values": [0.5, 1.0, 2.0]}}
    return sma_cross, space


def objectives() -> list[dict]:
    sma_cross, sma_space = _sma_cross()
    return [
        {"name": "ellipsoid+rastrigin 12-d", "set": "tuning", "f": ellipsoid_rastrigin, "direction": "minimize",
         "space": {f"x{i}": {"type": "float", "low": -5.0, "high": 5.0} for i in range(12)}},
        {"name": "rosenbrock 8-d", "set": "tuning", "f": rosenbrock, "direction": "minimize",
         "space": {f"x{i}": {"type": "float", "low": -2.0, "high": 2.0} for i in range(8)}},
        {"name": "mixed 7 params, constrained", "set": "tuning", "f": mixed, "direction": "minimize",
         "space": MIXED_SPACE},
        {"name": "ackley 10-d (held out)", "set": "held-out", "f": ackley, "direction": "minimize",
         "space": {f"x{i}": {"type": "float", "low": -32.768, "high": 32.768} for i in range(10)}},
        {"name": "sma_cross EURUSD (held out)", "set": "held-out", "f": sma_cross, "direction": "maximize",
         "space": sma_space},
    ]


class Sleepy:
    """The objective plus `seconds` of sleep per batch (the GIL released, as a device's wait)."""

    def __init__(self, f, seconds: float) -> None:
        self.f, self.seconds = f, seconds

    def __call__(self, X):
        time.sleep(self.seconds)
        return self.f(X)


def one_run(obj: dict, f, trials: int, batch: int, depth: int, seed: int, tmp: Path) -> dict:
    out = tmp / f"r{time.monotonic_ns()}"
    t0 = time.perf_counter()
    st = tpeopt.optimize(f, obj["space"], trials=trials, batch=batch, depth=depth, seed=seed,
                         direction=obj["direction"], out=out, quiet=True)
    wall = time.perf_counter() - t0
    t = st.trials
    feasible = t.loc[t["violation"] == 0, "score"].dropna()
    best = float(feasible.min() if obj["direction"] == "minimize" else feasible.max())
    return {"best": best, "wall_s": round(wall, 4), "engine_wall_ms": round(st.summary["wall_ms"], 2),
            "ask_ms": round(st.summary["ask_ms"], 2), "overlap_ms": round(st.summary["overlap_ms"], 2),
            "digest": st.digest}


def run_all(seeds: list[int], sleep: float) -> list[dict]:
    rows = []
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        for obj in objectives():
            for trials, batch in BUDGETS:
                for seed in seeds:
                    for depth in (1, 2):
                        cheap = one_run(obj, obj["f"], trials, batch, depth, seed, tmp)
                        costly = one_run(obj, Sleepy(obj["f"], sleep), trials, batch, depth, seed, tmp)
                        # The sleep changes the wall time only: the same trials, bit for bit.
                        assert cheap["digest"] == costly["digest"], (obj["name"], trials, seed, depth)
                        timed = ("wall_s", "engine_wall_ms", "ask_ms", "overlap_ms")
                        rows.append({"objective": obj["name"], "set": obj["set"], "direction": obj["direction"],
                                     "trials": trials, "batch": batch, "seed": seed, "depth": depth,
                                     "best": cheap["best"], "digest": cheap["digest"],
                                     "cheap": {k: cheap[k] for k in timed},
                                     "expensive": {k: costly[k] for k in timed}})
                        print(json.dumps(rows[-1]), flush=True)
            for f in tmp.iterdir():  # run directories: drop them as they come (20,000-trial CSVs)
                subprocess.run(["rm", "-rf", str(f)], check=True)
    return rows


def table(rows: list[dict], sleep: float) -> str:
    lines = [f"| objective | trials / batch | best, depth 1 | best, depth 2 | depth 1 better | wall cheap: D1 / D2 (s) "
             f"| wall +{sleep * 1000:g} ms/batch: D1 / D2 (s) | ask, whole run (ms) |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    keys = []
    for r in rows:
        k = (r["objective"], r["trials"], r["batch"])
        if k not in keys:
            keys.append(k)
    for name, trials, batch in keys:
        cell = [r for r in rows if (r["objective"], r["trials"], r["batch"]) == (name, trials, batch)]
        d1 = {r["seed"]: r for r in cell if r["depth"] == 1}
        d2 = {r["seed"]: r for r in cell if r["depth"] == 2}
        sign = -1.0 if cell[0]["direction"] == "minimize" else 1.0
        wins = sum(sign * d1[s]["best"] > sign * d2[s]["best"] for s in d1)
        ties = sum(d1[s]["best"] == d2[s]["best"] for s in d1)

        def med(d: dict, key: str, sub: str | None = None) -> float:
            return statistics.median((r[sub][key] if sub else r[key]) for r in d.values())

        lines.append(
            f"| {name} | {trials:,} / {batch:,} | {med(d1, 'best'):.5g} | {med(d2, 'best'):.5g} | "
            f"{wins} of {len(d1)}{f' ({ties} tied)' if ties else ''} | "
            f"{med(d1, 'wall_s', 'cheap'):.2f} / {med(d2, 'wall_s', 'cheap'):.2f} | "
            f"{med(d1, 'wall_s', 'expensive'):.2f} / {med(d2, 'wall_s', 'expensive'):.2f} | "
            f"{med(d1, 'ask_ms', 'cheap'):.1f} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seeds", type=lambda s: [int(x) for x in s.split(",")], default=[0, 1, 2, 3, 4])
    p.add_argument("--sleep", type=float, default=0.02, help="the expensive objective's sleep per batch, seconds")
    p.add_argument("--json", default=None, help="write the rows and the facts here")
    p.add_argument("--markdown", default=None, help="write the table here, after a comment with the facts")
    args = p.parse_args()
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    load_before = os.getloadavg()
    cpu0 = time.process_time()
    rows = run_all(args.seeds, args.sleep)
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    facts = {"command": " ".join([os.path.relpath(sys.argv[0], ROOT), *sys.argv[1:]]), "date": started,
             "commit": commit, "cpus": os.cpu_count(), "cpu": platform.processor() or platform.machine(),
             "load_average_1m_before_after": [round(load_before[0], 2), round(os.getloadavg()[0], 2)],
             "process_cpu_s": round(time.process_time() - cpu0, 1), "python": platform.python_version(),
             "numpy": np.__version__, "tpeopt": tpeopt.__version__}
    md = (f"<!-- {facts['command']}\n     {started}, commit {commit}; {facts['cpus']} cores ({facts['cpu']}), 1-minute "
          f"load {facts['load_average_1m_before_after'][0]} before and {facts['load_average_1m_before_after'][1]} "
          f"after; {facts['process_cpu_s']} s of CPU; Python {facts['python']}, numpy {facts['numpy']}. -->\n"
          + table(rows, args.sleep))
    print(md)
    if args.json:
        Path(args.json).write_text(json.dumps({"facts": facts, "sleep_s": args.sleep, "rows": rows}, indent=1) + "\n")
    if args.markdown:
        Path(args.markdown).write_text(md)


if __name__ == "__main__":
    main()
