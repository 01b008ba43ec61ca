#!/usr/bin/env bash
# Why Optuna's TPE loses at GPU scale, by experiment (docs/tpe.md, "Why Optuna's TPE loses at
# GPU scale"): the optuna preset with one setting changed at a time, and batch TPE with one of
# its parts taken away, at 20,000 trials in batches of 1,000, pipeline depth 2, 10 seeds, on
# the tuning set of bench/quality/suites.py (separable and rotated test functions). Writes
# bench/results/quality-ablation.jsonl and the table bench/results/quality-ablation.md.
#
#   bench/quality/ablation.sh [--jobs N]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
py="${PYTHON:-python3}"
out="$root/bench/results/quality-ablation.jsonl"
jobs="${2:-$(nproc)}"
workloads=tuning  # bench/quality/suites.py: every ablation runs on the tuning set only
run() { "$py" "$root/bench/quality/run.py" --out "$out" --budgets 20000/1000 --workloads "$workloads" --jobs "$jobs" "$@"; }

# The optuna preset as it is, and one setting at a time. Magic clip off leaves the fast
# tables (kernels narrower than 4 cells take the exact path): 15 minutes a run on the
# development box, so two seeds of Rastrigin only.
run --seeds 10 --samplers tpe-optuna,ga,random
run --seeds 10 --samplers 'tpe{"preset": "optuna", "n_ei_candidates": 4}'
run --seeds 10 --samplers 'tpe{"preset": "optuna", "n_ei_candidates": 100}'
run --seeds 10 --samplers 'tpe{"preset": "optuna", "prior_weight": 0.1}'
run --seeds 2 --samplers 'tpe{"preset": "optuna", "consider_magic_clip": false}' --workloads rastrigin-d10
# Batch TPE as it is, and with one part taken away or changed.
run --seeds 10 --samplers tpe
run --seeds 10 --samplers 'tpe{"good_fraction": 0.001, "min_good": 25}'      # the good set capped at 25
run --seeds 10 --samplers 'tpe{"n_ei_candidates": 1}'                        # no screening
run --seeds 10 --samplers 'tpe{"n_ei_candidates": 24}'                       # Optuna's 24 candidates
run --seeds 10 --samplers 'tpe{"operators": ["marginal"]}'                    # one model per axis only
run --seeds 10 --samplers 'tpe{"operators": ["joint"]}'                       # the joint kernel only
run --seeds 10 --samplers 'tpe{"operators": ["recombine"]}'                   # recombination only
# The joint kernel's step-size rule (search.tpe.joint_success_target; docs/tpe.md, "Joint step
# size"), off by default: two targets at 20,000/1,000 and one at 200,000/4,096.
run --seeds 10 --samplers 'tpe{"joint_success_target": 0.1}'
run --seeds 10 --samplers 'tpe{"joint_success_target": 0.2}'
run --seeds 10 --budgets 200000/4096 --samplers tpe,'tpe{"joint_success_target": 0.2}'
# The evolve operator (docs/tpe.md, "Evolve"; off by default when these ran, on since): at depth 2 at three budgets, at
# depth 1 at the two larger ones with batch TPE as it is beside it (bench/results/quality-evolve-tuning.jsonl).
evolve='tpe{"operators": ["joint", "marginal", "recombine", "evolve"]}'
evolve_out="$root/bench/results/quality-evolve-tuning.jsonl"
"$py" "$root/bench/quality/run.py" --out "$evolve_out" --seeds 10 --jobs "$jobs" --workloads "$workloads" \
  --budgets 200000/4096,20000/1000,2000/100 --samplers "$evolve"
"$py" "$root/bench/quality/run.py" --out "$evolve_out" --seeds 10 --jobs "$jobs" --workloads "$workloads" \
  --depth 1 --budgets 200000/4096,20000/1000 --samplers "$evolve"
"$py" "$root/bench/quality/run.py" --out "$evolve_out" --seeds 10 --jobs "$jobs" --workloads "$workloads" \
  --depth 1 --budgets 200000/4096 --samplers tpe
"$py" "$root/bench/quality/report.py" "$out" --reference tpe-optuna --markdown "$root/bench/results/quality-ablation.md"
