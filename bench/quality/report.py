#!/usr/bin/env python3
"""Tables and figures of the quality benchmark from run.py's JSON lines.

  python3 bench/quality/report.py RESULTS.jsonl [MORE.jsonl ...] --reference tpe \
      [--markdown out.md] [--figures docs/figures/quality] [--only PREFIX ...] [--sets SET ...]

For every cell (workload, budget) and sampler: the median best and its interquartile range
over the seeds (on the workload's own scale: f - f_opt for functions, the objective for
strategies; out-of-sample: the in-sample best's score on the held-out part). Seeds are paired
(seed s of every sampler runs the same function instance), so a sampler wins a cell against
another by a paired test: the Wilcoxon signed-rank test (scipy, two-sided, zero differences
dropped) over the seeds both ran, at 0.05, the winner the one the one-sided test favours;
tied when it is not significant (or every difference is 0); no verdict under 6 pairs. A run
that found no feasible trial counts as worse than every run of the cell. The won/tied/lost
tables count that for the reference sampler against each other one, apart for each set of
bench/quality/suites.py (tuning, held-out, tuning-strategies, held-out-strategies, other): a
claim is made from a held-out set. Figures: median
best-so-far against trials and against wall time (sampler + evaluation seconds) per cell,
and, for the functions, the empirical runtime distribution (ECDF) over (workload, seed,
target) of the trials each sampler needs to reach each of 31 targets between the cell's
median random-search best and the best any run found (COCO's runtime ECDF, with targets
per cell because f_opt is not always known)."""
import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from suites import STRATEGY_HELD_OUT, STRATEGY_TUNING, suite_of  # noqa: E402


def load(paths):
    """The runs of the files, each (workload, sampler, budget, seed, depth) once: two
    benchmarks appending to one file may both have run it (the runs are deterministic)."""
    runs, seen = [], set()
    for p in paths:
        with open(p) as f:
            for line in f:
                if not line.strip():
                    continue
                r = json.loads(line)
                key = (r["workload"], r["sampler"], r["trials"], r["batch"], r["seed"], r.get("depth"))
                if key not in seen:
                    seen.add(key)
                    runs.append(r)
    return runs


def fmt(v):
    if v is None or not np.isfinite(v):
        return "none"
    a = abs(v)
    return f"{v:.3g}" if a != 0 and (a < 0.01 or a >= 1e4) else f"{v:.3f}"


def stats(values):
    v = np.array([x for x in values.values() if x is not None], dtype=float)
    if len(v) == 0:
        return None
    return float(np.median(v)), float(np.quantile(v, 0.25)), float(np.quantile(v, 0.75)), len(v)


MIN_PAIRS = 6  # the smallest two-sided p of n pairs is 2 / 2^n: 0.031 at 6 pairs, 0.0625 at 5
# Two runs' values closer than this share of their magnitude (at least 1) are equal. Below
# it lie the rounding of the function's own evaluation (Hartmann-6's optimum comes out a few
# units in the last place apart at two nearby points) and regrets such as 6e-14 against 0,
# both "solved" by any target a benchmark sets (COCO's finest is 1e-8). Such pairs are zero
# differences, which the signed-rank test leaves out.
EQUAL_RELATIVE = 1e-12


def compare(a, b, worst, maximize=False, alpha=0.05):
    """+1 a wins, -1 a loses, 0 tied, None too few pairs. a, b: seed -> the workload's value,
    higher is better when `maximize` (None: no feasible trial, counted as `worst`)."""
    from scipy.stats import wilcoxon

    seeds = sorted(set(a) & set(b))
    if len(seeds) < MIN_PAIRS:
        return None
    sign = -1.0 if maximize else 1.0  # compared as minimized values
    x = np.array([worst if a[s] is None else sign * a[s] for s in seeds])
    y = np.array([worst if b[s] is None else sign * b[s] for s in seeds])
    d = x - y
    d[np.abs(d) <= EQUAL_RELATIVE * np.maximum(1.0, np.maximum(np.abs(x), np.abs(y)))] = 0.0
    if np.count_nonzero(d) < MIN_PAIRS:
        return 0
    if wilcoxon(d).pvalue >= alpha:
        return 0
    return 1 if wilcoxon(d, alternative="less").pvalue < wilcoxon(d, alternative="greater").pvalue else -1


def worst_of(cell, maximize=False):
    """A minimized value worse than every run of the cell (for runs with no feasible trial)."""
    sign = -1.0 if maximize else 1.0
    v = [sign * x for per in cell.values() for x in per.values() if x is not None and np.isfinite(x)]
    return (max(v) + 1.0 + abs(max(v))) if v else 0.0


# Every strategy workload, the tuning set's too: the ECDF figure is over the functions.
STRATEGY_WORKLOADS = set(STRATEGY_TUNING) | set(STRATEGY_HELD_OUT)
SET_ORDER = {"held-out": 0, "held-out-strategies": 1, "tuning": 2, "tuning-strategies": 3, "other": 4}


def cell_label(r):
    return f"{r['trials']}/{r['batch']}"


def sampler_label(r):
    s = r["sampler"]
    return s if not r.get("depth") or s in ("cmaes", "optuna", "ngopt") else f"{s}@D{r['depth']}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("results", nargs="+")
    ap.add_argument("--reference", default="tpe")
    ap.add_argument("--markdown")
    ap.add_argument("--figures")
    ap.add_argument("--only", nargs="+", metavar="PREFIX",
                    help="keep the reference and the samplers whose label starts with one of these")
    ap.add_argument("--sets", nargs="+", choices=list(SET_ORDER), help="keep the workloads of these sets")
    a = ap.parse_args()
    runs = load(a.results)
    if a.sets:
        runs = [r for r in runs if suite_of(r["workload"]) in a.sets]
    if a.only:
        runs = [r for r in runs if sampler_label(r) == a.reference or sampler_label(r).startswith(tuple(a.only))]
    cells = defaultdict(lambda: defaultdict(dict))  # (workload, budget, part) -> sampler -> seed -> value
    maximize = {}
    for r in runs:
        c = (r["workload"], cell_label(r))
        maximize[r["workload"]] = r["maximize"]
        best = r["best"]
        if best is not None and r["maximize"]:
            best = -best  # run.py records minimized values
        cells[c + ("in",)][sampler_label(r)][r["seed"]] = best
        if "out_of_sample" in r:
            oos = r["out_of_sample"]
            cells[c + ("out",)][sampler_label(r)][r["seed"]] = -oos if oos is not None and r["maximize"] else oos
    samplers = sorted({s for c in cells.values() for s in c}, key=lambda s: (s != a.reference, s))
    lines = []
    budgets = sorted({c[1] for c in cells}, key=lambda b: int(b.split("/")[0]))
    for budget in budgets:
        lines.append(f"\n#### {budget} (trials / batch)\n")
        lines.append("| set | workload | part | " + " | ".join(samplers) + " |")
        lines.append("| --- | --- | --- | " + " | ".join("---" for _ in samplers) + " |")
        for c in sorted((k for k in cells if k[1] == budget), key=lambda k: (SET_ORDER[suite_of(k[0])], k)):
            st = {s: stats(cells[c].get(s, {})) for s in samplers}
            ref = cells[c].get(a.reference, {})
            row = [suite_of(c[0]), c[0], c[2]]
            for s in samplers:
                x = st[s]
                if x is None:
                    row.append("")
                    continue
                mark = ""
                if s != a.reference:
                    cmp = compare(ref, cells[c][s], worst_of(cells[c], maximize[c[0]]), maximize[c[0]])
                    mark = {1: " ▽", -1: " ▲", 0: "", None: ""}[cmp]  # ▲: beats the reference
                row.append(f"{fmt(x[0])} ({fmt(x[1])} .. {fmt(x[2])}){mark}")
            lines.append("| " + " | ".join(row) + " |")
    # won / tied / lost of the reference against each sampler, per budget
    lines.append(f"\n#### {a.reference} against each sampler: won / tied / lost cells (paired Wilcoxon, 0.05)\n")
    lines.append("| set | budget | " + " | ".join(s for s in samplers if s != a.reference) + " |")
    lines.append("| --- | --- | " + " | ".join("---" for s in samplers if s != a.reference) + " |")
    # In-sample and out-of-sample cells are counted apart: a sampler that wins in sample
    # and loses on the held-out data has overfitted.
    parts = sorted({c[2] for c in cells})
    sets = sorted({suite_of(c[0]) for c in cells}, key=SET_ORDER.get)
    for st_name in sets:
        for budget in budgets:
            for part in parts:
                row = [st_name,
                       budget if len(parts) == 1 else f"{budget} {'in sample' if part == 'in' else 'out of sample'}"]
                any_cell = False
                for s in samplers:
                    if s == a.reference:
                        continue
                    w = t = l = 0
                    for c in cells:
                        if c[1] != budget or c[2] != part or suite_of(c[0]) != st_name:
                            continue
                        any_cell = True
                        cmp = compare(cells[c].get(a.reference, {}), cells[c].get(s, {}),
                                      worst_of(cells[c], maximize[c[0]]), maximize[c[0]])
                        w, t, l = w + (cmp == 1), t + (cmp == 0), l + (cmp == -1)
                    row.append(f"{w} / {t} / {l}")
                if any_cell:
                    lines.append("| " + " | ".join(row) + " |")
    # what each sampler costs: its ask + tell seconds per run (median over the budget's runs)
    lines.append("\n#### Sampler time per run (ask + tell, seconds, median over the runs of a budget)\n")
    lines.append("| budget | " + " | ".join(samplers) + " |")
    lines.append("| --- | " + " | ".join("---" for _ in samplers) + " |")
    for budget in budgets:
        row = [budget]
        for s in samplers:
            t = [r["sampler_s"] for r in runs if cell_label(r) == budget and sampler_label(r) == s]
            row.append(f"{np.median(t):.2f}" if t else "")
        lines.append("| " + " | ".join(row) + " |")
    text = "\n".join(lines) + "\n"
    if a.markdown:
        Path(a.markdown).write_text(text)
    print(text)
    if a.figures:
        figures(runs, Path(a.figures))


def figures(runs, folder):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    folder.mkdir(parents=True, exist_ok=True)
    by_cell = defaultdict(lambda: defaultdict(list))
    for r in runs:
        by_cell[(r["workload"], cell_label(r))][sampler_label(r)].append(r)
    for (w, budget), per in sorted(by_cell.items()):
        fig, axes = plt.subplots(1, 2, figsize=(10, 3.6))
        for s, rs in sorted(per.items()):
            trials = np.array([p[0] for p in rs[0]["curve"]])
            best = np.array([[p[1] for p in r["curve"]] for r in rs if len(r["curve"]) == len(trials)])
            secs = np.array([[p[2] + p[3] for p in r["curve"]] for r in rs if len(r["curve"]) == len(trials)])
            if best.size == 0:
                continue
            sign = -1 if rs[0]["maximize"] else 1
            med = sign * np.median(best, axis=0)
            axes[0].plot(trials, med, label=s)
            axes[1].plot(np.median(secs, axis=0), med, label=s)
        for ax, xl in zip(axes, ("trials", "wall seconds (sampler + evaluation)")):
            ax.set_xlabel(xl)
            ax.set_ylabel("median best so far")
            if not rs[0]["maximize"]:
                ax.set_yscale("symlog", linthresh=1e-3)
            ax.set_xscale("log")
        axes[0].legend(fontsize=7)
        fig.suptitle(f"{w}, {budget}")
        fig.tight_layout()
        fig.savefig(folder / f"{w}_{budget.replace('/', '-')}.png", dpi=80)
        plt.close(fig)
    ecdf(runs, folder, plt)


def ecdf(runs, folder, plt):
    """Runtime ECDF over the function workloads, one figure per budget."""
    per_budget = defaultdict(lambda: defaultdict(list))
    for r in runs:
        if r["workload"] in STRATEGY_WORKLOADS:
            continue
        per_budget[cell_label(r)][(r["workload"], sampler_label(r))].append(r)
    for budget, groups in per_budget.items():
        workloads = sorted({w for w, _ in groups})
        samplers = sorted({s for _, s in groups})
        hits = defaultdict(list)  # sampler -> trials to reach each (workload, seed, target); inf if never
        for w in workloads:
            finals = [r["best"] for s in samplers for r in groups.get((w, s), []) if r["best"] is not None]
            rnd = [r["best"] for r in groups.get((w, "random"), []) + groups.get((w, "random@D2"), [])
                   if r["best"] is not None]
            if not finals:
                continue
            hi = np.median(rnd) if rnd else max(finals)
            lo = min(finals)
            if hi <= lo:
                continue
            # log-spaced targets when positive (f - f_opt), else linear
            targets = (np.geomspace(max(lo, 1e-8), hi, 31) if lo > 0 else np.linspace(lo, hi, 31))
            for s in samplers:
                for r in groups.get((w, s), []):
                    curve = np.array([[p[0], p[1]] for p in r["curve"]])
                    for t in targets:
                        reached = np.nonzero(curve[:, 1] <= t)[0]
                        hits[s].append(curve[reached[0], 0] if len(reached) else np.inf)
        if not hits:
            continue
        fig, ax = plt.subplots(figsize=(6, 4))
        for s in samplers:
            h = np.sort(np.array(hits[s]))
            ok = h[np.isfinite(h)]
            ax.step(ok, np.arange(1, len(ok) + 1) / len(h), where="post", label=s)
        ax.set_xscale("log")
        ax.set_xlabel("trials")
        ax.set_ylabel("fraction of (function, seed, target) reached")
        ax.set_title(f"runtime ECDF, functions, {budget}")
        ax.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(folder / f"ecdf_{budget.replace('/', '-')}.png", dpi=80)
        plt.close(fig)


if __name__ == "__main__":
    sys.exit(main())
