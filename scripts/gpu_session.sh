#!/usr/bin/env bash
# One batched GPU session (device time is scarce): [gpu] tests, benchmarks, logs.
# Runs on the GPU machine from the repository root over binaries built here:
#   BIN=.carry DATA=.carry/data OUT=$OUT scripts/gpu_session.sh [STEP...]
# Steps: tests, bench_exhaustion, bench_pipeline (default: all). At most 8 files land in $OUT.
set -uo pipefail
BIN="${BIN:-.carry}"; OUT="${OUT:-out}"; export TPEOPT_SHARED_DATA_DIR="$(cd "${DATA:-.carry/data}" && pwd)"
export TPEOPT_SOURCE_DIR="$PWD" TPEOPT_CACHE_DIR="$(mktemp -d)"
mkdir -p "$OUT"
steps=("$@"); [ ${#steps[@]} -gt 0 ] || steps=(tests bench_exhaustion bench_pipeline)
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv,noheader > "$OUT/device.txt"
for step in "${steps[@]}"; do
  case "$step" in
    tests)
      "$BIN/tpeopt_tests" "[gpu]" --durations yes > "$OUT/gpu_tests.txt" 2>&1; tail -4 "$OUT/gpu_tests.txt" ;;
    bench_exhaustion)
      [ -x "$BIN/bench_exhaustion" ] && "$BIN/bench_exhaustion" --bars 1000000 --cpu-trials 16 --repeats 3 > "$OUT/bench_exhaustion.txt" 2>&1
      tail -15 "$OUT/bench_exhaustion.txt" ;;
    bench_pipeline)
      for regime in "ask<gpu:2:20" "ask=gpu:20:20" "ask>gpu:20:2"; do
        IFS=: read -r name s e <<< "$regime"
        echo "== functions rastrigin-10, random sampler, 10 batches of 4096, $name (sampler +${s} ms, executor +${e} ms)"
        "$BIN/tpeopt" bench -c examples/bench_functions_random.json --executor cuda \
          --sampler-ms "$s" --executor-ms "$e" --depths 2,3 2>&1
      done > "$OUT/bench_pipeline.txt"
      cat "$OUT/bench_pipeline.txt" | tail -30 ;;
  esac
done
