#!/usr/bin/env python3
"""tpeopt's TPE sampler side by side with Optuna's TPESampler, on this machine, in one run.

Installs optuna from PyPI into a private virtual environment (unless --python is given) and
prints its version. Workloads:

  timing   per-trial ask time in batch mode (asks without tells in between) at 32 axes and
           5,000 observations, and at 142 axes and 5,000 observations (float axes in [0, 1],
           observations random with random scores). tpeopt: bench_ask_tell --single ...
  quality  median best value after 200 and 1000 trials over N seeds on Rastrigin-10,
           Styblinski-Tang-10 and Hartmann-6, sequential (batch 1: ask 1, tell 1) and
           batched (batch 64: ask 64, then tell 64). tpeopt: bench_tpe_quality.

Usage:
  compare_optuna.py --build /work/build-tpe [--seeds 10] [--trials 1000] [--out DIR] [--tpeopt-modes auto,univariate,multivariate]
  compare_optuna.py --optuna-only quality|timing ...   (the Optuna half alone, as JSON)
Outputs (in --out): optuna_quality.json, optuna_timing.json, tpeopt_quality.json,
tpeopt_timing.json and compare.md (the tables that go into docs/benchmarks.md).
"""
import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import time

FUNCTIONS = {
    # name: (dimension, low, high)
    "rastrigin": (10, -5.12, 5.12),
    "styblinski_tang": (10, -5.0, 5.0),
    "hartmann6": (6, 0.0, 1.0),
}
LABEL = {"rastrigin": "Rastrigin-10", "styblinski_tang": "Styblinski-Tang-10", "hartmann6": "Hartmann-6"}

H_ALPHA = [1.0, 1.2, 3.0, 3.2]
H_A = [[10, 3, 17, 3.5, 1.7, 8], [0.05, 10, 17, 0.1, 8, 14], [3, 3.5, 1.7, 10, 17, 8], [17, 8, 0.05, 10, 0.1, 14]]
H_P = [[1312, 1696, 5569, 124, 8283, 5886], [2329, 4135, 8307, 3736, 1004, 9991],
       [2348, 1451, 3522, 2883, 3047, 6650], [4047, 8828, 8732, 5743, 1091, 381]]


def evaluate(name, x):
    if name == "rastrigin":
        return 10 * len(x) + sum(v * v - 10 * math.cos(2 * math.pi * v) for v in x)
    if name == "styblinski_tang":
        return sum(v ** 4 - 16 * v * v + 5 * v for v in x) / 2
    s = 0.0
    for i in range(4):
        s -= H_ALPHA[i] * math.exp(-sum(H_A[i][j] * (x[j] - H_P[i][j] * 1e-4) ** 2 for j in range(6)))
    return s


def optuna_quality(seeds, trials, batches, functions=None):
    import optuna
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    out = []
    for name, (d, lo, hi) in FUNCTIONS.items():
        if functions and name not in functions:
            continue
        for batch in batches:
            for seed in range(seeds):
                t0 = time.perf_counter()
                study = optuna.create_study(sampler=optuna.samplers.TPESampler(seed=seed), direction="minimize")
                dists = {f"x{i}": optuna.distributions.FloatDistribution(lo, hi) for i in range(d)}
                best, best_at = math.inf, {}
                done = 0
                while done < trials:
                    n = min(batch, trials - done)
                    asked = [study.ask(dists) for _ in range(n)]
                    for tr in asked:
                        y = evaluate(name, [tr.params[f"x{i}"] for i in range(d)])
                        study.tell(tr, y)
                        best = min(best, y)
                        done += 1
                        if done in (200, 1000, trials):
                            best_at[str(done)] = best
                out.append({"function": name, "batch": batch, "seed": seed, "best": best_at,
                            "seconds": time.perf_counter() - t0})
                print(json.dumps(out[-1]), flush=True)
    return out


def optuna_timing(settings, repeats):
    import optuna
    import random
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    out = []
    for d, n_obs in settings:
        rng = random.Random(1)
        dists = {f"x{i}": optuna.distributions.FloatDistribution(0.0, 1.0) for i in range(d)}
        study = optuna.create_study(sampler=optuna.samplers.TPESampler(seed=0), direction="minimize")
        trials = []
        for _ in range(n_obs):
            params = {k: rng.random() for k in dists}
            trials.append(optuna.trial.create_trial(params=params, distributions=dists, value=rng.random()))
        study.add_trials(trials)
        times = []
        for _ in range(repeats):  # batch mode: asks without tells in between
            t0 = time.perf_counter()
            study.ask(dists)
            times.append(time.perf_counter() - t0)
        out.append({"axes": d, "observations": n_obs, "ask_seconds": times,
                    "median_ask_seconds": statistics.median(times)})
        print(json.dumps(out[-1]), flush=True)
    return out


# tpeopt's sampler settings in the quality table: `multivariate: "auto"` (the joint model
# while a trial costs at most the default budget, then per-axis TPE with the fast
# acquisition), per-axis TPE throughout (the default), and its multivariate TPE (Optuna 5's
# default model; exact acquisition). The timing table is per-axis TPE's: at 5,000
# observations and 32 or 142 axes "auto" is past its budget.
TPEOPT_MODES = {"auto": ["fast", "auto"], "univariate": ["fast", "univariate"],
                "multivariate": ["exact", "multivariate"]}


def run_tpeopt_quality(build, seeds, trials, batches, mode):
    exe = os.path.join(build, "bench", "tpe", "bench_tpe_quality")
    out = []
    for name in FUNCTIONS:
        for batch in batches:
            res = subprocess.run([exe, name, str(seeds), str(trials), str(batch)] + TPEOPT_MODES[mode],
                                 check=True, capture_output=True, text=True)
            for line in res.stdout.splitlines():
                out.append(json.loads(line))
    return out


def run_tpeopt_timing(build, settings, batch):
    exe = os.path.join(build, "bench", "tpe", "bench_ask_tell")
    out = []
    for d, n_obs in settings:
        for acq in ("fast", "exact"):  # exact: a 64-trial batch (4096 would take minutes)
            res = subprocess.run([exe, "--single", str(d), str(n_obs), str(batch if acq == "fast" else 64), acq],
                                 check=True, capture_output=True, text=True)
            row = json.loads(res.stdout.strip().splitlines()[-1])
            out.append(row)
    return out


def median_best(rows, name, batch, at):
    vals = [r["best"][str(at)] for r in rows if r["function"] == name and r["batch"] == batch and str(at) in r["best"]]
    if not vals:
        return None
    vals.sort()
    q = lambda p: vals[min(len(vals) - 1, max(0, int(round(p * (len(vals) - 1)))))]
    return statistics.median(vals), q(0.25), q(0.75), len(vals)


def report(oq, ot, tq, tt, version, seeds, trials):
    """tq: {mode: rows} (TPEOPT_MODES)."""
    lines = [f"Optuna {version} (TPESampler defaults); tpeopt TPE: " +
             "; ".join(f"{m} = bench_tpe_quality ... {' '.join(TPEOPT_MODES[m])}" for m in tq), ""]
    lines += ["### Per-trial ask time, batch mode (asks without tells in between)", "",
              "| axes | observations | Optuna ask (s) | tpeopt fast ask per trial (s) | tpeopt exact ask per trial (s) | speed-up (fast) |",
              "| ---: | ---: | ---: | ---: | ---: | ---: |"]
    for o in ot:
        f = next((t for t in tt if t["axes"] == o["axes"] and t["observations"] == o["observations"]
                  and t["acquisition"] == "fast"), None)
        e = next((t for t in tt if t["axes"] == o["axes"] and t["observations"] == o["observations"]
                  and t["acquisition"] == "exact"), None)
        fpt = f["ask_ms"] / 1e3 / f["batch"] if f else float("nan")
        ept = e["ask_ms"] / 1e3 / e["batch"] if e else float("nan")
        lines.append(f"| {o['axes']} | {o['observations']} | {o['median_ask_seconds']:.3f} | {fpt:.2e} | {ept:.2e} | "
                     f"{o['median_ask_seconds'] / fpt:,.0f}x |")
    lines += ["", f"### Quality: median best value (interquartile range) over {seeds} seeds, minimize", "",
              "| function | batch | trials | Optuna | " + " | ".join(f"tpeopt {m}" for m in tq) + " |",
              "| --- | ---: | ---: | --- | " + " | ".join("---" for _ in tq) + " |"]
    fmt = lambda m: "n/a" if m is None else f"{m[0]:.3f} ({m[1]:.3f} .. {m[2]:.3f})"
    for name in FUNCTIONS:
        for batch in sorted({r["batch"] for r in oq}):
            for at in (200, trials):
                cells = [fmt(median_best(oq, name, batch, at))]
                cells += [fmt(median_best(rows, name, batch, at)) for rows in tq.values()]
                lines.append(f"| {LABEL[name]} | {batch} | {at} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="/work/build-tpe")
    ap.add_argument("--out", default=None)
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--trials", type=int, default=1000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--tpeopt-modes", default="auto,univariate,multivariate", help=f"comma-separated, of {list(TPEOPT_MODES)}")
    ap.add_argument("--optuna-only", choices=["quality", "timing"])
    ap.add_argument("--functions", default="", help="comma-separated subset (Optuna quality only)")
    ap.add_argument("--reuse-optuna", action="store_true", help="reuse optuna_*.json already in --out")
    args = ap.parse_args()
    out_dir = args.out or os.path.join(args.build, "compare_optuna")
    os.makedirs(out_dir, exist_ok=True)
    settings = [(32, 5000), (142, 5000)]
    batches = [1, 64]

    if args.optuna_only:
        import optuna
        print("optuna", optuna.__version__, flush=True)
        if args.optuna_only == "quality":
            rows = optuna_quality(args.seeds, args.trials, batches, [f for f in args.functions.split(",") if f])
        else:
            rows = optuna_timing(settings, args.repeats)
        with open(os.path.join(out_dir, f"optuna_{args.optuna_only}.json"), "w") as f:
            json.dump({"version": optuna.__version__, "rows": rows}, f, indent=1)
        return

    if not args.reuse_optuna:
        py = os.path.join(out_dir, "venv", "bin", "python")
        if not os.path.exists(py):
            subprocess.run([sys.executable, "-m", "venv", os.path.join(out_dir, "venv")], check=True)
            subprocess.run([py, "-m", "pip", "install", "-q", "optuna"], check=True)
        for part in ("timing", "quality"):
            subprocess.run([py, __file__, "--optuna-only", part, "--out", out_dir, "--seeds", str(args.seeds),
                            "--trials", str(args.trials), "--repeats", str(args.repeats)], check=True)
    oq = json.load(open(os.path.join(out_dir, "optuna_quality.json")))
    ot = json.load(open(os.path.join(out_dir, "optuna_timing.json")))
    print("optuna", oq["version"])
    tt = run_tpeopt_timing(args.build, settings, 4096)
    tq = {m: run_tpeopt_quality(args.build, args.seeds, args.trials, batches, m) for m in args.tpeopt_modes.split(",")}
    json.dump(tt, open(os.path.join(out_dir, "tpeopt_timing.json"), "w"), indent=1)
    json.dump(tq, open(os.path.join(out_dir, "tpeopt_quality.json"), "w"), indent=1)
    md = report(oq["rows"], ot["rows"], tq, tt, oq["version"], args.seeds, args.trials)
    open(os.path.join(out_dir, "compare.md"), "w").write(md)
    print(md)


if __name__ == "__main__":
    main()
