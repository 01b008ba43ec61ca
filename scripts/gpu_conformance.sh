#!/usr/bin/env bash
# The strategy conformance harness on the GPU machine (docs/writing-a-strategy.md, "Measure
# it on the GPU"), over binaries built elsewhere (static cudart, sm_90), from the repository
# root:
#   mkdir -p .carry && cp build/apps/tpeopt build/tests/tpeopt_tests .carry/
#   BIN=.carry OUT=$OUT scripts/gpu_conformance.sh
# Steps, everything under $OUT/conformance/:
#   1. tpeopt_tests "[gpu][conformance]": every registered strategy's CUDA twin against the CPU
#      reference, bit for bit, on the bundled data (whole data, hold-out part, halving rung),
#      and its trades and per-symbol results from the GPU;
#   2. the other [gpu] tests (the strategies' own kernel options, multi-GPU, subsets);
#   3. each candle example on the bundled data run on the CPU and on CUDA: the same digest.
set -uo pipefail
BIN="$(cd "${BIN:-.carry}" && pwd)"
OUT="${OUT:-out}"
export TPEOPT_SOURCE_DIR="$PWD" TPEOPT_CACHE_DIR="$(mktemp -d)"
S="$OUT/conformance"
mkdir -p "$S"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$S/device.txt"
status=0
"$BIN/tpeopt_tests" "[gpu][conformance]" --durations yes > "$S/gpu_conformance.txt" 2>&1 || status=1
tail -3 "$S/gpu_conformance.txt"
"$BIN/tpeopt_tests" "[gpu]~[conformance]" --durations yes > "$S/gpu_other.txt" 2>&1 || status=1
tail -3 "$S/gpu_other.txt"
for config in examples/exhaustion_eurusd.json examples/exhaustion_eurusd_holdout.json examples/bollinger_eurusd.json \
              examples/donchian_eurusd.json examples/ema_cross_eurusd_holdout.json; do
  name="$(basename "$config" .json)"
  cpu="$("$BIN/tpeopt" run -c "$config" --executor cpu -q --out "$S/run_${name}_cpu" 2>&1 | grep -o 'digest [0-9a-f]*')"
  cuda="$("$BIN/tpeopt" run -c "$config" --executor cuda -q --out "$S/run_${name}_cuda" 2>&1 | grep -o 'digest [0-9a-f]*')"
  same=$([ -n "$cpu" ] && [ "$cpu" = "$cuda" ] && echo same || echo DIFFERENT)
  [ "$same" = same ] || status=1
  echo "$name: cpu $cpu | cuda $cuda | $same" | tee -a "$S/examples.txt"
done
exit $status
