#!/usr/bin/env python3
"""Figure of bench_ask_tell --sweep's CSV: ask+tell ms per batch vs observations (batch 4096)
and vs batch size (20,000 observations), per axes count, fast and exact.

  plot_ask_tell.py ask_tell.csv ask_tell.png      (needs matplotlib from PyPI)
"""
import csv
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

rows = list(csv.DictReader(open(sys.argv[1])))
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.2))
for acq, style in (("fast", "-o"), ("exact", "--s")):
    for d in sorted({int(r["axes"]) for r in rows}):
        a = sorted((int(r["observations"]), float(r["ask_tell_ms"])) for r in rows
                   if r["acquisition"] == acq and int(r["axes"]) == d and int(r["batch"]) == 4096)
        if a:
            ax1.plot(*zip(*a), style, label=f"{acq}, {d} axes")
        b = sorted((int(r["batch"]), float(r["ask_tell_ms"])) for r in rows
                   if r["acquisition"] == acq and int(r["axes"]) == d and int(r["observations"]) == 20000)
        if b:
            ax2.plot(*zip(*b), style, label=f"{acq}, {d} axes")
for ax, xl, title in ((ax1, "observations", "batch 4096"), (ax2, "batch (trials)", "20,000 observations")):
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(xl)
    ax.set_ylabel("ask + tell per batch (ms)")
    ax.set_title(title)
    ax.axhline(100, color="grey", lw=0.8, ls=":")
    ax.grid(True, which="both", alpha=0.3)
ax2.legend(fontsize=7)
fig.tight_layout()
fig.savefig(sys.argv[2], dpi=110)
