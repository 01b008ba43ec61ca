#!/usr/bin/env bash
# The search-quality benchmark's CPU part (docs/benchmarks.md, "Search quality"): the
# functions of bench/quality/suites.py, the held-out set first (the claims are made from it),
# then the tuning set (what the settings were chosen on, for the record), 10 seeds each (seed s
# of every sampler is the same function instance: report.py pairs them). Samplers: tpeopt's
# TPE (pipeline depth 2, the default), GA and random; CMA-ES from `cmaes` (population = batch,
# IPOP restarts); Optuna 5's TPE and tpeopt's "optuna" preset at 200/10 and 2,000/100;
# Nevergrad's NGOpt (budget and num_workers = batch) at 200/10 and 2,000/100 only (a
# 2,000/100 run of a 20-d held-out function took 379 s of sampler time on the loaded 2-core
# development box; 20,000/1,000 was not tried). Appends to bench/results/quality-cpu.jsonl
# (runs already there are skipped) and writes bench/results/quality-cpu.md. The held-out set
# at 20,000/1,000 and 200,000/4,096 is bench/quality/heldout.sh's too (for many cores); the
# real strategies are bench/quality/gpu.sh's.
#
#   PYTHON=venv/bin/python bench/quality/functions.sh [--jobs N]
# (venv: bench/quality/requirements.txt; TPEOPT_QUALITY_SERVER names the quality_server
# binary when it is not build/bench/quality/quality_server; OUT the results folder.)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
py="${PYTHON:-python3}"
out="${OUT:-$root/bench/results}/quality-cpu.jsonl"
jobs="${2:-$(nproc)}"
run() { "$py" "$root/bench/quality/run.py" --out "$out" --seeds 10 --jobs "$jobs" "$@"; }

for set in held-out tuning; do
  run --workloads "$set" --budgets 2000/100,20000/1000 --samplers tpe,ga,cmaes,random
  run --workloads "$set" --budgets 200/10 --samplers tpe,ga,cmaes,random
  run --workloads "$set" --budgets 200/10,2000/100 --samplers optuna,tpe-optuna,ngopt
done
"$py" "$root/bench/quality/report.py" "$out" --reference tpe --markdown "${out%.jsonl}.md"
