#!/usr/bin/env python3
"""GPU time per trial of a run, from its timings.csv: exec_ms summed over the batches after the
first (which computes the series), over their trials, the batches' mean device occupancy, and the
first batch's own exec_ms (series computation included).

  scripts/per_trial_summary.py RUN_DIR/timings.csv LABEL
prints "LABEL: N trials after the first batch, exec X ms, Y ns per trial, occupancy Z, first batch W ms".
(scripts/gpu_fill.sh per_trial, scripts/gpu_validate.sh segments.)
"""
import csv
import sys

path, label = sys.argv[1], sys.argv[2]
all_rows = list(csv.DictReader(line for line in open(path) if not line.startswith("#")))
first, rows = all_rows[0], all_rows[1:]
n = sum(int(r["trials"]) for r in rows)
ms = sum(float(r["exec_ms"]) for r in rows)
occ = [float(r["device_occupancy"]) for r in rows if r.get("device_occupancy")]
o = sum(occ) / len(occ) if occ else -1
print(f"{label}: {n} trials after the first batch, exec {ms:.1f} ms, {1e6 * ms / n:.2f} ns per trial, occupancy {o:.3f}, "
      f"first batch {float(first['exec_ms']):.1f} ms")
