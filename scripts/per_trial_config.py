#!/usr/bin/env python3
"""Writes an example's config for a GPU-time-per-trial run (scripts/gpu_fill.sh per_trial):
the random sampler, data paths made absolute, and optionally another candle series and K folds.

  scripts/per_trial_config.py examples/NAME.json OUT.json [--candles CSV] [--folds K]

--candles replaces the example's data by one series (keeping data.holdout): the generated
1,000,000-bar series, where a batch is long enough for the GPU to bound it. --folds K adds
data.folds = K with objective.across_folds = "mean", so the sampler's score is the folded one.
"""
import argparse
import json
from pathlib import Path

ap = argparse.ArgumentParser()
ap.add_argument("example")
ap.add_argument("out")
ap.add_argument("--candles")
ap.add_argument("--folds", type=int, default=0)
a = ap.parse_args()
example = Path(a.example).resolve()
cfg = json.loads(example.read_text())
cfg["search"]["sampler"] = "random"
data = {k: (str((example.parent / v).resolve()) if isinstance(v, str) and v.startswith("../") else v)
        for k, v in cfg["data"].items()}
if a.candles:
    data = {"candles": str(Path(a.candles).resolve()), **({"holdout": data["holdout"]} if "holdout" in data else {})}
if a.folds:
    data["folds"] = a.folds
    cfg["objective"]["across_folds"] = "mean"
cfg["data"] = data
Path(a.out).write_text(json.dumps(cfg, indent=1))
