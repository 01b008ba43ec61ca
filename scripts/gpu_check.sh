#!/usr/bin/env bash
# Runs on the GPU machine over binaries built elsewhere (static cudart, sm_90):
#   BIN=<dir with tpeopt and tpeopt_tests> OUT=<results dir> scripts/gpu_check.sh
# [gpu] tests, a verify on the GPU, and one logged GPU run; everything under $OUT.
set -uo pipefail
BIN="${BIN:-.carry}"
OUT="${OUT:-out}"
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv | tee "$OUT/device.txt"
status=0
"$BIN/tpeopt_tests" "[gpu]" --durations yes 2>&1 | tee "$OUT/gpu_tests.txt" || status=1
"$BIN/tpeopt" verify --config examples/functions_rastrigin.json --executor cuda 2>&1 | tee "$OUT/verify_cuda.txt" || status=1
run_dir="$(mktemp -d)/run_rastrigin"
"$BIN/tpeopt" run --config examples/functions_rastrigin.json --executor cuda --out "$run_dir" 2>&1 | tee "$OUT/run_rastrigin.log" || status=1
cp "$run_dir/timings.csv" "$OUT/run_rastrigin_timings.csv" 2>/dev/null
exit $status
