#!/usr/bin/env bash
# The strategy conformance harness on the GPU machine (docs/writing-a-strategy.md, "Measure
# it on the GPU" and "What the conformance harness checks"), over binaries built elsewhere
# (static cudart, sm_90), from the repository root:
#   mkdir -p .carry && cp build/apps/tpeopt build/tests/tpeopt_tests .carry/
#   BIN=.carry OUT=$OUT scripts/gpu_conformance.sh
# Steps, everything under $OUT/conformance/:
#   1. tpeopt_tests "[gpu][conformance]": every registered strategy's CUDA twin against the CPU
#      reference, bit for bit, on the bundled data (whole data, hold-out part, halving rung),
#      its trades and per-symbol results from the GPU, and order independence on the device
#      (a trial alone, in a batch, in the batch reversed);
#   2. the other [gpu] tests (the strategies' own kernel options, multi-GPU, subsets);
#   3. every examples/*.json (no list: a new example is run as soon as it is there) on the CPU
#      and on CUDA with the same trials: the same digest. TRIALS (default 1000) caps each run's
#      trials; TRIALS=all runs each example as written. An example whose data is generated
#      (data.generate) and not there yet exits 2 with the `tpeopt data generate` command that
#      writes it (scripts/run_examples.sh does the same): it is run, then the example.
# EXAMPLES_ONLY=1 runs step 3 alone (a change that touches no device code, such as a sampler's).
set -uo pipefail
BIN="$(cd "${BIN:-.carry}" && pwd)"
OUT="${OUT:-out}"
TRIALS="${TRIALS:-1000}"
export TPEOPT_SOURCE_DIR="$PWD" TPEOPT_CACHE_DIR="$(mktemp -d)"
S="$OUT/conformance"
mkdir -p "$S"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$S/device.txt"
status=0
if [ "${EXAMPLES_ONLY:-0}" != 1 ]; then
  "$BIN/tpeopt_tests" "[gpu][conformance]" --durations yes > "$S/gpu_conformance.txt" 2>&1 || status=1
  tail -3 "$S/gpu_conformance.txt"
  "$BIN/tpeopt_tests" "[gpu]~[conformance]" --durations yes > "$S/gpu_other.txt" 2>&1 || status=1
  tail -3 "$S/gpu_other.txt"
fi

trials=()
[ "$TRIALS" = all ] || trials=(--trials "$TRIALS")
# The digest line of one run of `config` on `executor` ("" when the run failed; its log stays).
run_example() {
  local config="$1" executor="$2" name log
  name="$(basename "$config" .json)"
  log="$S/run_${name}_${executor}.log"
  "$BIN/tpeopt" run -c "$config" --executor "$executor" ${trials[@]+"${trials[@]}"} -q --out "$S/run_${name}_${executor}" > "$log" 2>&1
  grep -o 'digest [0-9a-f]*' "$log" | tail -1
}
for config in examples/*.json; do
  name="$(basename "$config" .json)"
  cpu="$(run_example "$config" cpu)"
  generate="$(grep '^tpeopt data generate ' "$S/run_${name}_cpu.log" || true)"
  if [ -z "$cpu" ] && [ -n "$generate" ]; then
    read -r -a words <<< "${generate#tpeopt }"
    "$BIN/tpeopt" "${words[@]}" > "$S/generate_${name}.log" 2>&1 || echo "$name: $generate failed"
    cpu="$(run_example "$config" cpu)"
  fi
  cuda="$(run_example "$config" cuda)"
  same=$([ -n "$cpu" ] && [ "$cpu" = "$cuda" ] && echo same || echo DIFFERENT)
  [ "$same" = same ] || status=1
  echo "$name: cpu $cpu | cuda $cuda | $same" | tee -a "$S/examples.txt"
done
exit $status
