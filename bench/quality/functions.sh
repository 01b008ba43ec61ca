#!/usr/bin/env bash
# The search-quality benchmark's CPU part (docs/benchmarks.md, "Search quality"): test
# functions (separable and rotated BBOB functions from coco-experiment, 6 to 40 dimensions,
# int and categorical variants, tpeopt's own Rastrigin, Styblinski-Tang and Hartmann-6), 10
# seeds, tpeopt's TPE at pipeline depth 2 (the default) and 1, GA, random and CMA-ES from
# `cmaes` (population = batch, IPOP restarts); Optuna 5.0's TPE where it finishes (200/10 and,
# 6 seeds, 2,000/100 on six of them). Appends to bench/results/quality-cpu.jsonl (runs already there
# are skipped) and writes bench/results/quality-cpu.md. The real strategies are
# bench/quality/gpu.sh's.
#
#   PYTHON=venv/bin/python bench/quality/functions.sh [--jobs N]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
py="${PYTHON:-python3}"
out="$root/bench/results/quality-cpu.jsonl"
jobs="${2:-$(nproc)}"
all=rastrigin-d10,styblinski_tang-d10,hartmann6,bbob-f2-d10,bbob-f8-d10,bbob-f10-d10,bbob-f15-d10,bbob-f21-d10
all+=,levy-rot-d10,bbob-f3-d20,bbob-f8-d20,bbob-f10-d20,bbob-f20-d20,ackley-rot-d20,bbob-f15-d40
all+=,bbob-int-f15-d10,bbob-cat3-f15-d10
six=rastrigin-d10,styblinski_tang-d10,hartmann6,bbob-f10-d10,bbob-f15-d10,ackley-rot-d20
run() { "$py" "$root/bench/quality/run.py" --out "$out" --seeds 10 --jobs "$jobs" "$@"; }

run --budgets 20000/1000 --workloads "$all" --samplers tpe,ga,cmaes,random
run --budgets 20000/1000 --workloads "$all" --samplers tpe --depth 1
run --budgets 2000/100 --workloads "$all" --samplers tpe,ga,cmaes,random
run --budgets 200/10 --workloads "$six" --samplers optuna,tpe-optuna
# Optuna's TPE takes about a minute a run at 2,000/100 here: 6 seeds.
"$py" "$root/bench/quality/run.py" --out "$out" --seeds 6 --jobs "$jobs" --budgets 2000/100 --workloads "$six" \
  --samplers optuna,tpe-optuna
run --budgets 200/10 --workloads "$six" --samplers tpe,ga,cmaes,random
run --budgets 200000/4096 --workloads "$six" --samplers tpe,ga,cmaes,random
"$py" "$root/bench/quality/report.py" "$out" --reference tpe@D2 --markdown "$root/bench/results/quality-cpu.md"
