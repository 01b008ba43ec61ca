#!/usr/bin/env python3
"""Does a robust objective choose parameters that hold up better on the final hold-out?

For each workload (a candle strategy's example on a series), each across_folds setting and
each seed, runs `tpeopt run` with the last 30% of the bars held out (`data.holdout`) and the
in-sample span cut into K folds (`data.folds`), and reads the hold-out score of the run's best
trial (top.json, rank 1, out_of_sample.score). The in-sample choice is the sampler's: the
best by the setting's score ("all": the whole-span score, as without folds).

Selection of the setting is honest: the workloads are split into a tuning set and a
held-out set (WORKLOADS below); the setting with the best mean rank on the tuning set is
"the best across_folds setting", and the claims come from the held-out set, each cell
won/tied/lost against "all" by a paired Wilcoxon signed-rank test over the seeds at 0.05
(tied when not significant). Every cell is reported, the lost ones too.

  bench/robust/holdout_selection.py --tpeopt build/apps/tpeopt --executor cpu \\
      --trials 20000 --batch 1000 --seeds 5 --jobs 2 --out /tmp/robust-cpu.jsonl
  bench/robust/holdout_selection.py --report /tmp/robust-cpu.jsonl   # the tables
  (--first-seed 6 --seeds 5 runs a second part; --report reads several files together)

At the GPU's scale (200,704 trials in batches of 4,096) a run can be limited to the settings
compared: `--settings all,mean` runs those two only, and `--report FILE --best mean` judges the
setting named, which must have been chosen on the tuning set by a full run at another scale
(the report says so).

Generated series (no edge: a random walk; and the project's generator) are written into
--work; nothing outside the repository is read.
"""
import argparse
import concurrent.futures as cf
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

# (name, example config, series: None = the example's own data, else a generated series' name)
WORKLOADS = {
    "tuning": [
        ("exhaustion/generated", "exhaustion_eurusd.json", "generated"),
        ("bollinger/generated", "bollinger_eurusd.json", "generated"),
        ("donchian/generated", "donchian_eurusd.json", "generated"),
    ],
    "held-out": [
        ("exhaustion/EURUSD", "exhaustion_eurusd.json", None),
        ("bollinger/EURUSD", "bollinger_eurusd.json", None),
        ("donchian/EURUSD", "donchian_eurusd.json", None),
        ("exhaustion/random-walk", "exhaustion_eurusd.json", "random_walk"),
        ("bollinger/random-walk", "bollinger_eurusd.json", "random_walk"),
        ("ema_cross/EURUSD", "ema_cross_eurusd_holdout.json", None),
        ("ema_cross/random-walk", "ema_cross_eurusd_holdout.json", "random_walk"),
    ],
}

SETTINGS = {
    "all": {},
    "mean": {"across_folds": "mean"},
    "min": {"across_folds": "min"},
    "quantile_0.25": {"across_folds": "quantile", "q": 0.25},
    "mean_minus_std_1": {"across_folds": "mean_minus_std", "lambda": 1.0},
}


def generated_series(tpeopt, work, name, bars):
    """The path of a generated 1-symbol hourly series (written once into work/)."""
    out = os.path.join(work, name)
    path = os.path.join(out, "SYM0000.csv")
    if not os.path.exists(path):
        cmd = [tpeopt, "data", "generate-candles", "-o", out, "--symbols", "1", "--bars", str(bars),
               "--interval-s", "3600", "--seed", "11" if name == "generated" else "12"]
        if name == "random_walk":
            cmd += ["--edge", "none"]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return path


def config_for(example, series_path, setting, args, seed):
    with open(os.path.join(ROOT, "examples", example)) as f:
        c = json.load(f)
    data = {}
    for k, v in c["data"].items():  # the example's paths are relative to examples/
        data[k] = os.path.normpath(os.path.join(ROOT, "examples", v)) if isinstance(v, str) and "/" in v else v
    if series_path:
        data = {"candles": series_path}
    data["holdout"] = 0.3
    data["folds"] = args.folds
    c["data"] = data
    c["objective"].update(SETTINGS[setting])
    c["search"] = {"sampler": "tpe", "trials": args.trials, "batch": args.batch, "depth": 2, "seed": seed}
    c.pop("description", None)
    return c


def run_one(job):
    args, workload, example, series_path, setting, seed = job
    with tempfile.TemporaryDirectory() as tmp:
        cfg = os.path.join(tmp, "config.json")
        with open(cfg, "w") as f:
            json.dump(config_for(example, series_path, setting, args, seed), f)
        out = os.path.join(tmp, "run")
        cmd = [args.tpeopt, "run", "-c", cfg, "--executor", args.executor, "-q", "--out", out]
        if args.executor == "cpu":
            cmd += ["--threads", str(args.threads)]
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0:
            return {"workload": workload, "setting": setting, "seed": seed, "error": p.stderr.strip()[-500:]}
        with open(os.path.join(out, "top.json")) as f:
            best = json.load(f)[0]
        return {"workload": workload, "setting": setting, "seed": seed, "in_sample": best["score"],
                "holdout": best["out_of_sample"]["score"], "params": best["params"]}


def wilcoxon(a, b):
    """(won/tied/lost of a against b, p) by a paired Wilcoxon signed-rank test at 0.05."""
    from scipy.stats import wilcoxon as w
    diffs = [x - y for x, y in zip(a, b)]
    if all(d == 0 for d in diffs):
        return "tied", 1.0
    p = w(a, b).pvalue
    if p >= 0.05:
        return "tied", p
    return ("won" if statistics.median(diffs) > 0 else "lost"), p


def report(paths, chosen=None):
    rows = [json.loads(l) for path in paths for l in open(path) if not l.startswith("#")]
    errors = [r for r in rows if "error" in r]
    rows = [r for r in rows if "error" not in r]
    cells = {}
    for r in rows:
        cells.setdefault((r["workload"], r["setting"]), {})[r["seed"]] = r["holdout"]
    # The best setting: the best mean rank of its median hold-out score over the tuning workloads.
    ranks = {s: [] for s in SETTINGS}
    for workload, _, _ in WORKLOADS["tuning"]:
        medians = {s: statistics.median(cells[(workload, s)].values()) for s in SETTINGS if (workload, s) in cells}
        for i, s in enumerate(sorted(medians, key=medians.get, reverse=True)):
            ranks[s].append(i + 1)
    scored = {s: statistics.mean(v) for s, v in ranks.items() if v and s != "all"}
    best = min(scored, key=scored.get) if scored else None
    if chosen:
        print(f"across_folds setting judged: {chosen} (chosen on the tuning set by a run at another scale; "
              f"by these runs' tuning cells: {best})")
        best = chosen
    else:
        print(f"best across_folds setting on the tuning set (mean rank of the median hold-out score): {best}")
    print("| set | workload | " + " | ".join(f"{s} (median hold-out)" for s in SETTINGS) + " | best vs all |")
    print("| --- | --- | " + " | ".join("---:" for _ in SETTINGS) + " | --- |")
    tally = {"won": 0, "tied": 0, "lost": 0}
    for set_name, workloads in WORKLOADS.items():
        for workload, _, _ in workloads:
            line = []
            for s in SETTINGS:
                v = cells.get((workload, s), {})
                line.append(f"{statistics.median(v.values()):.4g}" if v else "-")
            verdict = "-"
            if best and (workload, best) in cells and (workload, "all") in cells:
                seeds = sorted(set(cells[(workload, best)]) & set(cells[(workload, "all")]))
                a = [cells[(workload, best)][k] for k in seeds]
                b = [cells[(workload, "all")][k] for k in seeds]
                res, p = wilcoxon(a, b)
                verdict = f"{res} (p = {p:.3f}, {len(seeds)} seeds)"
                if set_name == "held-out":
                    tally[res] += 1
            print(f"| {set_name} | {workload} | " + " | ".join(line) + f" | {verdict} |")
    print(f"held-out workloads, {best} against all: won {tally['won']}, tied {tally['tied']}, lost {tally['lost']}")
    for e in errors:
        print(f"error: {e['workload']} {e['setting']} seed {e['seed']}: {e['error']}", file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tpeopt", default=os.path.join(ROOT, "build", "apps", "tpeopt"))
    ap.add_argument("--executor", default="cpu", choices=["cpu", "cuda"])
    ap.add_argument("--trials", type=int, default=20000)
    ap.add_argument("--batch", type=int, default=1000)
    ap.add_argument("--folds", type=int, default=8)
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--first-seed", type=int, default=1, help="seeds first .. first + seeds - 1 (a second "
                    "part of a run: --report reads the parts' files together)")
    ap.add_argument("--bars", type=int, default=40000, help="bars of each generated series")
    ap.add_argument("--jobs", type=int, default=1, help="runs at once (CPU executor: each with --threads)")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--work", default=os.path.join(ROOT, "bench", "robust", "gen"))
    ap.add_argument("--out")
    ap.add_argument("--settings", default=",".join(SETTINGS),
                    help="comma-separated across_folds settings to run (default: every one)")
    ap.add_argument("--sets", default=",".join(WORKLOADS),
                    help="comma-separated workload sets to run (tuning, held-out; default: both). A second part "
                    "that adds seeds to the held-out cells of a setting already chosen runs held-out only")
    ap.add_argument("--report", nargs="+", help="the tables from these --out files (parts of one run)")
    ap.add_argument("--best", choices=[s for s in SETTINGS if s != "all"],
                    help="the setting the report judges against all, chosen beforehand on the tuning set "
                    "(default: the best on these runs' tuning cells)")
    args = ap.parse_args()
    if args.report:
        report(args.report, args.best)
        return
    settings = args.settings.split(",")
    unknown = [s for s in settings if s not in SETTINGS]
    if unknown:
        ap.error(f"--settings: unknown setting(s) {unknown}; known: {', '.join(SETTINGS)}")
    sets = args.sets.split(",")
    if [n for n in sets if n not in WORKLOADS]:
        ap.error(f"--sets: unknown set(s) {[n for n in sets if n not in WORKLOADS]}; known: {', '.join(WORKLOADS)}")
    os.makedirs(args.work, exist_ok=True)
    jobs = []
    paths = {}
    for set_name in sets:
        for workload, example, series in WORKLOADS[set_name]:
            paths[workload] = generated_series(args.tpeopt, args.work, series, args.bars) if series else None
    # Seed by seed: a run stopped early leaves whole seeds, each with every cell.
    for seed in range(args.first_seed, args.first_seed + args.seeds):
        for set_name in sets:
            for workload, example, series in WORKLOADS[set_name]:
                for setting in settings:
                    jobs.append((args, workload, example, paths[workload], setting, seed))
    with open(args.out, "w") as out, cf.ThreadPoolExecutor(args.jobs) as pool:
        for r in pool.map(run_one, jobs):
            out.write(json.dumps(r) + "\n")
            out.flush()
            print(r.get("workload"), r.get("setting"), r.get("seed"), r.get("holdout", r.get("error")), flush=True)
    report([args.out], args.best)


if __name__ == "__main__":
    main()
