#!/usr/bin/env python3
"""Tables and figures of the quality benchmark from run.py's JSON lines.

  python3 bench/quality/report.py RESULTS.jsonl [MORE.jsonl ...] --reference tpe \
      [--markdown out.md] [--figures docs/figures/quality]

For every cell (workload, budget) and sampler: the median best and its interquartile range
over the seeds (on the workload's own scale: f - f_opt for functions, the objective for
strategies; out-of-sample: the in-sample best's score on the held-out part). A sampler
wins a cell against another when both medians lie outside the other's IQR, the winner's
better; the two are tied when either median lies inside the other's IQR. The won/tied/lost
table counts that for the reference sampler against each other one. Figures: median
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
    v = np.array([x for x in values if x is not None], dtype=float)
    if len(v) == 0:
        return None
    return float(np.median(v)), float(np.quantile(v, 0.25)), float(np.quantile(v, 0.75)), len(v)


def compare(a, b, maximize):
    """+1 a wins, -1 a loses, 0 tied (medians within each other's IQR rule)."""
    if a is None or b is None:
        return None
    (ma, la, ha, _), (mb, lb, hb, _) = a, b
    a_outside_b = ma < lb or ma > hb
    b_outside_a = mb < la or mb > ha
    if not (a_outside_b and b_outside_a):
        return 0
    better = ma > mb if maximize else ma < mb
    return 1 if better else -1


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
    a = ap.parse_args()
    runs = load(a.results)
    cells = defaultdict(lambda: defaultdict(list))  # (workload, budget, part) -> sampler -> values
    maximize = {}
    for r in runs:
        c = (r["workload"], cell_label(r))
        maximize[r["workload"]] = r["maximize"]
        best = r["best"]
        if best is not None and r["maximize"]:
            best = -best  # run.py records minimized values
        cells[c + ("in",)][sampler_label(r)].append(best)
        if "out_of_sample" in r:
            oos = r["out_of_sample"]
            cells[c + ("out",)][sampler_label(r)].append(-oos if oos is not None and r["maximize"] else oos)
    samplers = sorted({s for c in cells.values() for s in c}, key=lambda s: (s != a.reference, s))
    lines = []
    budgets = sorted({c[1] for c in cells}, key=lambda b: int(b.split("/")[0]))
    for budget in budgets:
        lines.append(f"\n#### {budget} (trials / batch)\n")
        lines.append("| workload | part | " + " | ".join(samplers) + " |")
        lines.append("| --- | --- | " + " | ".join("---" for _ in samplers) + " |")
        for c in sorted(k for k in cells if k[1] == budget):
            st = {s: stats(cells[c].get(s, [])) for s in samplers}
            ref = st.get(a.reference)
            row = [c[0], c[2]]
            for s in samplers:
                x = st[s]
                if x is None:
                    row.append("")
                    continue
                mark = ""
                if s != a.reference:
                    cmp = compare(ref, x, maximize[c[0]])
                    mark = {1: " ▽", -1: " ▲", 0: "", None: ""}[cmp]  # ▲: beats the reference
                row.append(f"{fmt(x[0])} ({fmt(x[1])} .. {fmt(x[2])}){mark}")
            lines.append("| " + " | ".join(row) + " |")
    # won / tied / lost of the reference against each sampler, per budget
    lines.append(f"\n#### {a.reference} against each sampler: won / tied / lost cells\n")
    lines.append("| budget | " + " | ".join(s for s in samplers if s != a.reference) + " |")
    lines.append("| --- | " + " | ".join("---" for s in samplers if s != a.reference) + " |")
    # In-sample and out-of-sample cells are counted apart: a sampler that wins in sample
    # and loses on the held-out data has overfitted.
    parts = sorted({c[2] for c in cells})
    for budget in budgets:
        for part in parts:
            row = [budget if len(parts) == 1 else f"{budget} {'in sample' if part == 'in' else 'out of sample'}"]
            for s in samplers:
                if s == a.reference:
                    continue
                w = t = l = 0
                for c in cells:
                    if c[1] != budget or c[2] != part:
                        continue
                    cmp = compare(stats(cells[c].get(a.reference, [])), stats(cells[c].get(s, [])), maximize[c[0]])
                    w, t, l = w + (cmp == 1), t + (cmp == 0), l + (cmp == -1)
                row.append(f"{w} / {t} / {l}")
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
        if r["workload"] in ("exhaustion", "ema_cross", "atc", "trade_filter"):
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
