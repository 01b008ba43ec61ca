#!/usr/bin/env python3
"""The Python boundary's benchmarks (docs/benchmarks.md, "Python boundary"), in one run:

  boundary:  the per-batch cost of crossing into Python for a trivial numpy objective
             (X.sum(axis=1)) over 10 float parameters, at batches of 256 and 4,096:
             (a) tpeopt.Sampler driven from Python: ask + objective + tell, random sampler;
             (b) the same sampler inside the engine (tpeopt.run, functions/sphere, serial, one
                 CPU thread): C++ ask, C++ evaluation, C++ tell: the floor (a) is compared with;
             (c) tpeopt.optimize (serial) with the trivial objective: the engine's ask and tell,
                 the objective called on the executor thread (GIL, array, call, checks, copy).
             Medians over the timed batches (the first 5 warm up).
  peers:     tpeopt.optimize against Optuna and Rustuna driving the same numpy objective
             (10-d Rastrigin, minimized) at the same budget and batch (each peer asks a batch
             of trials, evaluates them as one array, tells them): wall time and best value
             found, per seed, all in this one process.

Usage: bench_python.py [--batches 40] [--trials 2000] [--batch 100] [--seeds 0,1,2] [--json OUT]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from importlib.metadata import version
from pathlib import Path

import numpy as np

import tpeopt

D = 10
SPACE = {f"x{i}": {"type": "float", "low": -5.12, "high": 5.12} for i in range(D)}


def rastrigin(X: np.ndarray) -> np.ndarray:
    return 10.0 * X.shape[1] + (X * X - 10.0 * np.cos(2 * np.pi * X)).sum(axis=1)


def trivial(X: np.ndarray) -> np.ndarray:
    return X.sum(axis=1)


def median_ms(xs: list[float]) -> float:
    return round(statistics.median(xs) * 1000.0, 4)


def boundary(batches: int) -> dict:
    out = {}
    warm = 5
    for batch in (256, 4096):
        # (a) a Python loop over the Sampler
        s = tpeopt.Sampler(SPACE, sampler="random", seed=1)
        ask, call, tell, total = [], [], [], []
        for _ in range(batches + warm):
            t0 = time.perf_counter()
            X = s.ask(batch)
            t1 = time.perf_counter()
            y = trivial(X)
            t2 = time.perf_counter()
            s.tell(y)
            t3 = time.perf_counter()
            ask.append(t1 - t0), call.append(t2 - t1), tell.append(t3 - t2), total.append(t3 - t0)
        loop = {"ask_ms": median_ms(ask[warm:]), "objective_ms": median_ms(call[warm:]),
                "tell_ms": median_ms(tell[warm:]), "total_ms": median_ms(total[warm:])}
        trials = batch * (batches + warm)
        with tempfile.TemporaryDirectory() as tmp:
            # (b) the engine alone: the same random sampler, the built-in sphere, one thread
            cfg = {"strategy": "functions", "function": "sphere",
                   "search": {"sampler": "random", "trials": trials, "batch": batch, "seed": 1}, "params": SPACE}
            cpp = tpeopt.run(cfg, out=Path(tmp) / "cpp", executor="cpu", threads=1, serial=True, quiet=True)
            # (c) the engine with the trivial objective as its executor
            py = tpeopt.optimize(trivial, SPACE, sampler="random", trials=trials, batch=batch, seed=1, serial=True,
                                 out=Path(tmp) / "py", quiet=True)

            def med(study, column):
                return round(float(study.timings[column].iloc[warm:].median()), 4)

            engine = {"ask_ms": med(cpp, "ask_ms"), "exec_ms": med(cpp, "exec_ms"), "tell_ms": med(cpp, "tell_ms")}
            optimize = {"ask_ms": med(py, "ask_ms"), "exec_ms": med(py, "exec_ms"), "tell_ms": med(py, "tell_ms")}
        out[str(batch)] = {
            "python_loop": loop,
            "engine_builtin": engine,
            "optimize": optimize,
            # What crossing into Python adds per batch: the loop's ask + tell over the engine's;
            # the objective executor's call (sum) over the built-in evaluation (sphere).
            "loop_overhead_ms": round(loop["ask_ms"] + loop["tell_ms"] - engine["ask_ms"] - engine["tell_ms"], 4),
            "executor_overhead_ms": round(optimize["exec_ms"] - engine["exec_ms"], 4),
        }
        print(batch, json.dumps(out[str(batch)]), flush=True)
    return out


def peers(trials: int, batch: int, seeds: list[int]) -> dict:
    import importlib

    peers_found = {}
    for tool in ("optuna", "rustuna"):
        try:
            peers_found[tool] = importlib.import_module(tool)
        except ImportError:
            print(f"{tool} is not installed: left out", flush=True)
    optuna, rustuna = peers_found.get("optuna"), peers_found.get("rustuna")
    if optuna:
        optuna.logging.set_verbosity(optuna.logging.WARNING)
    rows = []

    def add(tool: str, seed: int, wall: float, best: float) -> None:
        rows.append({"tool": tool, "seed": seed, "wall_s": round(wall, 3), "best": best})
        print(rows[-1], flush=True)

    for seed in seeds:
        for tool, settings in (("tpeopt (batch TPE)", None), ("tpeopt (preset optuna)", {"preset": "optuna"})):
            with tempfile.TemporaryDirectory() as tmp:
                t0 = time.perf_counter()
                st = tpeopt.optimize(rastrigin, SPACE, trials=trials, batch=batch, seed=seed, settings=settings,
                                     out=Path(tmp) / "r", quiet=True)
                add(tool, seed, time.perf_counter() - t0, st.best["score"])
        for tool in peers_found:
            t0 = time.perf_counter()
            if tool == "optuna":
                study = optuna.create_study(sampler=optuna.samplers.TPESampler(seed=seed))
            else:
                study = rustuna.create_study(sampler=rustuna.samplers.TPESampler(seed=seed), direction="minimize")
            best = float("inf")
            for _ in range(trials // batch):
                asked = [study.ask() for _ in range(batch)]
                X = np.array([[t.suggest_float(f"x{i}", -5.12, 5.12) for i in range(D)] for t in asked])
                y = rastrigin(X)
                for t, v in zip(asked, y):
                    study.tell(t if tool == "optuna" else t.number, float(v))
                best = min(best, float(y.min()))
            add(tool, seed, time.perf_counter() - t0, best)
    return {"trials": trials, "batch": batch, "objective": f"rastrigin, {D} floats in [-5.12, 5.12], minimized",
            "rows": rows}


def markdown(result: dict) -> str:
    """The tables of docs/benchmarks.md's "Python boundary" section."""
    lines = ["| batch | Python loop: ask | objective | tell | total | engine alone: ask | eval | tell "
             "| tpeopt.optimize: ask | objective call | tell | loop overhead | executor overhead |",
             "| ---: " * 13 + "|"]
    for batch, r in result["boundary"].items():
        lp, en, op = r["python_loop"], r["engine_builtin"], r["optimize"]
        cells = [f"{int(batch):,}", lp["ask_ms"], lp["objective_ms"], lp["tell_ms"], lp["total_ms"], en["ask_ms"],
                 en["exec_ms"], en["tell_ms"], op["ask_ms"], op["exec_ms"], op["tell_ms"], r["loop_overhead_ms"],
                 r["executor_overhead_ms"]]
        lines.append("| " + " | ".join(str(c) for c in cells) + " |")
    lines += ["", "| tool | seed | wall (s) | best found |", "| --- | ---: | ---: | ---: |"]
    for row in result["peers"]["rows"]:
        lines.append(f"| {row['tool']} | {row['seed']} | {row['wall_s']:.2f} | {row['best']:.4f} |")
    tools = sorted({r["tool"] for r in result["peers"]["rows"]}, key=[r["tool"] for r in result["peers"]["rows"]].index)
    lines += ["", "| tool | median wall (s) | median best |", "| --- | ---: | ---: |"]
    for tool in tools:
        rows = [r for r in result["peers"]["rows"] if r["tool"] == tool]
        lines.append(f"| {tool} | {statistics.median(r['wall_s'] for r in rows):.2f} | "
                     f"{statistics.median(r['best'] for r in rows):.4f} |")
    return "\n".join(lines) + "\n"


def facts(result: dict) -> str:
    """The comment heading the tables: command, date, machine, load, versions."""
    m = result["machine"]
    load = m["load_average_1m_before_after"]
    versions = ", ".join(f"{k} {m[k]}" for k in ("python", "numpy", "tpeopt", "optuna", "rustuna") if k in m)
    return (f"<!-- {result['command']}\n     {result['date']}; {m['cpus']} cores ({m['cpu']}), 1-minute load "
            f"{load[0]} before and {load[1]} after; {versions}.\n     Times in ms per batch (boundary), seconds per "
            f"run (peers). -->\n")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--batches", type=int, default=40, help="boundary: timed batches per batch size")
    p.add_argument("--trials", type=int, default=2000, help="peers: the budget")
    p.add_argument("--batch", type=int, default=100, help="peers: trials per batch")
    p.add_argument("--seeds", type=lambda s: [int(x) for x in s.split(",")], default=[0, 1, 2])
    p.add_argument("--json", default=None, help="write the results here")
    p.add_argument("--markdown", default=None, help="write the tables here, after a comment with the facts")
    args = p.parse_args()
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    load_before = os.getloadavg()
    here = os.getcwd()
    words = [os.path.relpath(a) if os.path.isabs(a) and a.startswith(here + os.sep) else a
             for a in [sys.argv[0], *sys.argv[1:]]]
    result = {"command": " ".join(words), "date": started,
              "boundary": boundary(args.batches), "peers": peers(args.trials, args.batch, args.seeds)}
    result["machine"] = {
        "cpus": os.cpu_count(), "cpu": platform.processor() or platform.machine(),
        "load_average_1m_before_after": [round(load_before[0], 2), round(os.getloadavg()[0], 2)],
        "python": platform.python_version(), "numpy": np.__version__, "tpeopt": tpeopt.__version__,
        **{tool: version(tool) for tool in ("optuna", "rustuna") if importlib.util.find_spec(tool)},
    }
    print(json.dumps(result["machine"]))
    print(markdown(result))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2) + "\n")
    if args.markdown:
        Path(args.markdown).write_text(facts(result) + markdown(result))


if __name__ == "__main__":
    main()
