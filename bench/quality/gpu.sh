#!/usr/bin/env bash
# The search-quality benchmark's GPU part (docs/benchmarks.md, "Search quality"): every real
# strategy on its bundled data, scored in-sample and on its held-out 30%, at 2,000/100,
# 20,000/1,000 and 200,000/4,096 on the CUDA executor, 10 seeds; tpeopt's TPE (depth 2 and 1),
# GA and random, CMA-ES from `cmaes`, and Optuna's TPE at the smallest budget; exhaustion,
# ema_cross, bollinger and donchian on a generated 1,000,000-bar series at 200,000/4,096.
# Runs on the GPU machine from the repository root over binaries built elsewhere, with the
# Python packages as wheels (numpy, cmaes, optuna and its dependencies for the machine's
# Python), unpacked into a folder of its own (no pip, no network):
#   BIN=.carry WHEELS=.whl OUT=$OUT bench/quality/gpu.sh [SECONDS]
# SECONDS (default 420) bounds the sampler comparison; runs finished by then are kept (one
# JSON line each, in $OUT/quality-gpu.jsonl; bench/quality/report.py reads it).
set -uo pipefail
BIN="$(cd "${BIN:-.carry}" && pwd)"
OUT="${OUT:-out}"
limit="${1:-420}"
mkdir -p "$OUT"
export TPEOPT_SOURCE_DIR="$PWD" TPEOPT_CACHE_DIR="$(mktemp -d)"
WHEELS="${WHEELS:-.whl}"
source "$(dirname "${BASH_SOURCE[0]}")/offline_env.sh"
quality_offline_env python3
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$OUT/device.txt"
python3 --version | tee -a "$OUT/device.txt"
nproc | sed 's/^/cores: /' | tee -a "$OUT/device.txt"

# trade_filter's data is generated (examples/trade_filter_tpe.json, data.generate), then
# prepared once into the cache every run reads.
"$BIN/tpeopt" data generate --out data/trade_filter --days 20 --trades 100000 --seed 1 --tickers SOXL,IONQ,MARA \
  > "$OUT/trade_filter_generate.txt" 2>&1
"$BIN/tpeopt" run -c examples/trade_filter_tpe.json --executor cuda --trials 16 --batch 16 -q --out "$(mktemp -d)/tf" \
  >> "$OUT/trade_filter_generate.txt" 2>&1

# What depth costs and buys in wall time (`tpeopt run` of TPE at 200,000/4,096 on each real
# strategy, depth 1 and 2) is `bench/run_all.sh --gpu pipeline-depth.txt`'s, not this script's.

# exhaustion, ema_cross, bollinger and donchian also run on the generated 1,000,000-bar series
# of the GPU-fill benchmarks (bench/quality/workloads.py), 5 seeds (a run there is about
# 30 times a bundled one's GPU time), batch TPE at both depths against the GA.
[ -f bench/subsets/gen/SYM0000.csv ] || "$BIN/tpeopt" data generate-candles -o bench/subsets/gen --symbols 1 \
  --bars 1000000 --interval-s 3600 --seed 3 > /dev/null
bundled=exhaustion,ema_cross,atc,trade_filter,bollinger,donchian
generated=exhaustion-gen1m,ema_cross-gen1m,bollinger-gen1m,donchian-gen1m
deadline=$((SECONDS + limit))
# run WORKLOADS SEEDS ARGS...: run.py skips the runs $OUT/quality-gpu.jsonl already holds.
run() { local w="$1" seeds="$2"; shift 2
        timeout $((deadline - SECONDS > 0 ? deadline - SECONDS : 1)) python3 bench/quality/run.py \
          --out "$OUT/quality-gpu.jsonl" --executor cuda --seeds "$seeds" \
          --workloads "$w" --jobs "${JOBS:-12}" "$@"; echo "exit $?"; }
# The GPU budget first: a run cut short by SECONDS leaves the smaller budgets to the CPU.
{
  run "$bundled" 10 --budgets 200000/4096 --samplers tpe,ga,cmaes,random
  run "$bundled" 10 --budgets 200000/4096 --samplers tpe --depth 1
  run "$generated" 5 --budgets 200000/4096 --samplers tpe,ga
  run "$generated" 5 --budgets 200000/4096 --samplers tpe --depth 1
  run "$bundled" 10 --budgets 20000/1000 --samplers tpe,ga,cmaes,random
  run "$bundled" 10 --budgets 2000/100 --samplers tpe,ga,cmaes,random,optuna
} > "$OUT/quality-gpu.log" 2>&1
tail -3 "$OUT/quality-gpu.log"
wc -l "$OUT/quality-gpu.jsonl"
