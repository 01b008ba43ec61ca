#!/usr/bin/env python3
"""The Python API's benchmarks (docs/benchmarks.md, "The Python boundary").

  boundary:  the per-batch cost of the Python boundary for a trivial numpy objective, at
             batches of 256 and 4,096: (a) a Sampler loop in Python (ask + objective + tell,
             random sampler so that the sampler itself costs ~nothing); (b) tpeopt.optimize's
             executor (GIL, the array, the call, the checks) against the built-in CPU executor
             on the same function, both serial.
  peers:     tpeopt.optimize against Optuna and Rustuna driving the same numpy objective
             (10-d Rastrigin) at the same budget and batch: wall time and best value, per seed.

Usage: bench_python.py boundary|peers [--trials N] [--batch B] [--seeds 0,1,2] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import tempfile
import time
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


def boundary(args) -> dict:
    out = {}
    for batch in (256, 4096):
        n_batches = args.batches
        # (a) a Python loop over the Sampler
        s = tpeopt.Sampler(SPACE, sampler="random", seed=1)
        ask, call, tell, total = [], [], [], []
        for _ in range(n_batches + 5):
            t0 = time.perf_counter()
            X = s.ask(batch)
            t1 = time.perf_counter()
            y = trivial(X)
            t2 = time.perf_counter()
            s.tell(y)
            t3 = time.perf_counter()
            ask.append(t1 - t0), call.append(t2 - t1), tell.append(t3 - t2), total.append(t3 - t0)
        sl = slice(5, None)  # the first batches warm up
        loop = {"ask_ms": median_ms(ask[sl]), "objective_ms": median_ms(call[sl]), "tell_ms": median_ms(tell[sl]),
                "total_ms": median_ms(total[sl])}
        # (b) the executor: the Python objective's against the built-in CPU executor's, serial
        with tempfile.TemporaryDirectory() as tmp:
            trials = batch * (n_batches + 5)
            py = tpeopt.optimize(trivial, SPACE, sampler="random", trials=trials, batch=batch, seed=1, serial=True,
                                 out=Path(tmp) / "py", quiet=True)
            cfg = {"strategy": "functions", "function": "sphere",
                   "search": {"sampler": "random", "trials": trials, "batch": batch, "seed": 1}, "params": SPACE}
            cpu1 = tpeopt.run(cfg, out=Path(tmp) / "cpu1", executor="cpu", threads=1, serial=True, quiet=True)
            tp, tc = py.timings.iloc[5:], cpu1.timings.iloc[5:]
            executor = {"python_exec_ms": round(float(tp["exec_ms"].median()), 4),
                        "builtin_cpu_1thread_exec_ms": round(float(tc["exec_ms"].median()), 4),
                        "python_batch_wall_ms": round(float(tp["wall_ms"].diff().median()), 4),
                        "builtin_batch_wall_ms": round(float(tc["wall_ms"].diff().median()), 4)}
        out[str(batch)] = {"sampler_loop": loop, "executor": executor}
        print(batch, json.dumps(out[str(batch)]), flush=True)
    return out


def peers(args) -> dict:
    import optuna
    import rustuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    rows = []
    for seed in args.seeds:
        # tpeopt: batch TPE, pipelined, depth 2
        with tempfile.TemporaryDirectory() as tmp:
            t0 = time.perf_counter()
            st = tpeopt.optimize(rastrigin, SPACE, trials=args.trials, batch=args.batch, seed=seed,
                                 out=Path(tmp) / "r", quiet=True)
            rows.append({"tool": "tpeopt", "seed": seed, "wall_s": time.perf_counter() - t0,
                         "best": st.best["score"]})
        print(rows[-1], flush=True)
        # Optuna and Rustuna: ask a batch, evaluate it as one array, tell it
        for name, make in (
            ("optuna", lambda: optuna.create_study(sampler=optuna.samplers.TPESampler(seed=seed))),
            ("rustuna", lambda: rustuna.create_study(sampler=rustuna.samplers.TPESampler(seed=seed),
                                                     direction="minimize")),
        ):
            if name not in args.tools:
                continue
            t0 = time.perf_counter()
            study = make()
            best = float("inf")
            for _ in range(args.trials // args.batch):
                trials = [study.ask() for _ in range(args.batch)]
                X = np.array([[t.suggest_float(f"x{i}", -5.12, 5.12) for i in range(D)] for t in trials])
                y = rastrigin(X)
                for t, v in zip(trials, y):
                    study.tell(t if name == "optuna" else t.number, float(v))
                best = min(best, float(y.min()))
            rows.append({"tool": name, "seed": seed, "wall_s": time.perf_counter() - t0, "best": best})
            print(rows[-1], flush=True)
    return {"trials": args.trials, "batch": args.batch, "rows": rows}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("what", choices=["boundary", "peers"])
    p.add_argument("--batches", type=int, default=40, help="boundary: timed batches per size")
    p.add_argument("--trials", type=int, default=2000)
    p.add_argument("--batch", type=int, default=100)
    p.add_argument("--seeds", type=lambda s: [int(x) for x in s.split(",")], default=[0, 1, 2])
    p.add_argument("--tools", type=lambda s: s.split(","), default=["optuna", "rustuna"])
    p.add_argument("--json", default=None)
    args = p.parse_args()
    result = boundary(args) if args.what == "boundary" else peers(args)
    import optuna
    import rustuna  # noqa: F401
    from importlib.metadata import version

    result["machine"] = {"cpu": platform.processor() or platform.machine(), "python": platform.python_version(),
                         "numpy": np.__version__, "optuna": optuna.__version__, "rustuna": version("rustuna"),
                         "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result["machine"]))


if __name__ == "__main__":
    main()
