#!/usr/bin/env bash
# The checks and measurements of a change on the GPU machine, in steps that fit one device
# call each (results under $OUT/validate/, packed into $OUT/validate.tar.gz). From the
# repository root there, with .deps/ carried (scripts/device_build.sh --fetch):
#   OUT=$OUT scripts/gpu_validate.sh build conformance        # every [gpu] test, every example CPU == CUDA
#   OUT=$OUT scripts/gpu_validate.sh build folds selection plant robust
# Steps:
#   build        scripts/device_build.sh build-device (GCC there, sm_90)
#   conformance  scripts/gpu_conformance.sh: [gpu][conformance], the other [gpu] tests, every
#                examples/*.json on the CPU and on CUDA with the same digest
#   folds        bench_exhaustion --folds 8: scoring 8 folds in the same walk against the plain walk
#   selection    the selection-bias statistics of a run on the CPU and on CUDA: the same numbers
#   plant        tests/plants/twin_entry_rule.patch applied, rebuilt: [gpu][conformance] must fail
#   segments     GPU time per trial of bollinger and donchian with their walks cut into G segments
#                (SEGMENTS_4096, SEGMENTS_65536: the G values, "auto" = segments_for;
#                SEGMENT_EXAMPLES: example names, NAME:CSV for the example over another series)
#   robust       bench/robust/holdout_selection.py on CUDA (ROBUST_TRIALS, ROBUST_BATCH, ROBUST_SEEDS;
#                ROBUST_SETTINGS: all,mean by default, the setting chosen on the tuning set at
#                20,000 / 1,000; ROBUST_GPU_JOBS runs at once, 4 by default; ROBUST_FIRST_SEED and
#                ROBUST_SETS=held-out add seeds to the held-out cells of a setting already chosen)
#   robust_cpu   the same on the machine's CPU cores, in the background (ROBUST_JOBS runs at once, one
#                thread each, 20,000 trials in batches of 1,000; seeds ROBUST_FIRST_SEED ..
#                + ROBUST_SEEDS - 1); robust_wait waits for it
set -uo pipefail
OUT="${OUT:-out}"
S="$OUT/validate"
mkdir -p "$S"
B="$PWD/build-device"
# The binaries the steps run: the build step's (linked into .carry), or BIN's (a flat folder).
BIN="$(mkdir -p "${BIN:-.carry}" && cd "${BIN:-.carry}" && pwd)"
export TPEOPT_SOURCE_DIR="$PWD" TPEOPT_CACHE_DIR="${TPEOPT_CACHE_DIR:-/tmp/tpeopt-cache}"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader > "$S/device.txt"
date -u '+%Y-%m-%d %H:%M UTC' >> "$S/device.txt"
cat "$S/device.txt"
for step in "$@"; do
  echo "### $step"
  case "$step" in
    build)
      scripts/device_build.sh "$B" > "$S/build.txt" 2>&1; echo "build exit $?"; tail -2 "$S/build.txt"
      mkdir -p .carry && for f in apps/tpeopt tests/tpeopt_tests bench/bench_exhaustion; do ln -sf "$B/$f" .carry/; done ;;
    conformance)
      TRIALS="${TRIALS:-1000}" BIN="$BIN" OUT="$S" timeout "${CONFORMANCE_TIMEOUT:-480}" scripts/gpu_conformance.sh \
        > "$S/conformance.txt" 2>&1
      echo "conformance exit $?"; tail -12 "$S/conformance.txt" ;;
    folds)
      timeout 150 "$BIN/bench_exhaustion" --folds 8 --cpu-trials 8 > "$S/folds.txt" 2>&1
      echo "folds exit $?"; grep -E '^\|' "$S/folds.txt" ;;
    selection)
      for ex in cpu cuda; do
        "$BIN/tpeopt" run -c examples/exhaustion_eurusd.json --executor "$ex" -q --out "$S/sel_$ex" \
          > "$S/sel_$ex.log" 2>&1; echo "$ex exit $?: $(grep -E '^selection bias' "$S/sel_$ex.log")"
        rm -f "$S/sel_$ex/trials.csv" "$S/sel_$ex/journal.bin"
      done
      python3 - "$S/sel_cpu/summary.json" "$S/sel_cuda/summary.json" <<'PY'
import json, sys
def strip(x):
    if isinstance(x, dict): return {k: strip(v) for k, v in x.items() if k != "seconds"}
    if isinstance(x, list): return [strip(v) for v in x]
    return x
a, b = (strip(json.load(open(p)).get("selection_bias")) for p in sys.argv[1:3])
print("selection_bias CPU == CUDA (all but seconds):", a == b, "| available:", (a or {}).get("available"))
PY
      ;;
    plant)
      git apply tests/plants/twin_entry_rule.patch && cmake --build "$B" --target tpeopt_tests > "$S/plant_build.txt" 2>&1
      timeout 200 "$B/tests/tpeopt_tests" "[gpu][conformance]" > "$S/plant.txt" 2>&1
      echo "planted twin: tpeopt_tests exit $? (must be non-zero)"; grep -m3 -E "FAILED|bollinger" "$S/plant.txt"; tail -3 "$S/plant.txt"
      git apply -R tests/plants/twin_entry_rule.patch && cmake --build "$B" --target tpeopt_tests > /dev/null 2>&1 ;;
    segments)
      # GPU time per trial of the signal strategies (random trials, depth 1, 3 x 65,536 trials)
      # with their walks cut into G segments (TPEOPT_SIGNAL_SEGMENTS; auto: segments_for).
      for spec in ${SEGMENT_EXAMPLES:-bollinger_eurusd donchian_eurusd}; do
        ex="${spec%%:*}" csv=""; [ "$spec" = "$ex" ] || csv="$PWD/${spec#*:}"
        [ -z "$csv" ] || ex="${ex}_on_$(basename "$csv" .csv)"
        python3 -c 'import json,sys; c=json.load(open(sys.argv[1])); c["search"]["sampler"]="random"; c["data"]={k:(sys.argv[2]+"/"+v if isinstance(v,str) and v.startswith("../") else v) for k,v in c["data"].items()}; sys.argv[4] and c["data"].update(candles=sys.argv[4]); json.dump(c,open(sys.argv[3],"w"))' \
          "examples/${spec%%:*}.json" "$PWD/examples" "$S/$ex.json" "$csv"
        for b in 4096 65536; do
          for g in $(eval echo "\${SEGMENTS_$b:-auto 1}"); do
            if [ "$g" = auto ]; then unset TPEOPT_SIGNAL_SEGMENTS; else export TPEOPT_SIGNAL_SEGMENTS="$g"; fi
            timeout 120 "$BIN/tpeopt" run -c "$S/$ex.json" --executor cuda --batch "$b" --depth 1 \
              --trials $((3 * 65536)) -q --out "$S/seg_run" > "$S/seg_run.log" 2>&1 &&
              python3 scripts/per_trial_summary.py "$S/seg_run/timings.csv" "$ex batch $b segments $g" ||
              tail -3 "$S/seg_run.log"
            rm -rf "$S/seg_run"
          done
        done
        unset TPEOPT_SIGNAL_SEGMENTS
      done | tee "$S/segments.txt" ;;
    robust)
      timeout "${ROBUST_TIMEOUT:-300}" python3 bench/robust/holdout_selection.py --tpeopt "$BIN/tpeopt" --executor cuda \
        --trials "${ROBUST_TRIALS:-200704}" --batch "${ROBUST_BATCH:-4096}" --seeds "${ROBUST_SEEDS:-5}" \
        --first-seed "${ROBUST_FIRST_SEED:-1}" --sets "${ROBUST_SETS:-tuning,held-out}" --settings "${ROBUST_SETTINGS:-all,mean}" --jobs "${ROBUST_GPU_JOBS:-4}" \
        --bars "${ROBUST_BARS:-200000}" --work "$S/robust_gen" --out "$S/robust.jsonl" > "$S/robust.txt" 2>&1
      echo "robust exit $?"; grep -E '^\||^best|^held-out' "$S/robust.txt"; rm -rf "$S/robust_gen" ;;
    robust_cpu)
      cp "$BIN/tpeopt" /tmp/tpeopt-robust  # a later step may relink the build's own
      (timeout "${ROBUST_TIMEOUT:-400}" python3 bench/robust/holdout_selection.py --tpeopt /tmp/tpeopt-robust \
        --executor cpu --trials 20000 --batch 1000 --seeds "${ROBUST_SEEDS:-5}" --first-seed "${ROBUST_FIRST_SEED:-1}" \
        --jobs "${ROBUST_JOBS:-12}" \
        --bars "${ROBUST_BARS:-40000}" --work /tmp/robust_cpu_gen --out "$S/robust_cpu.jsonl" > "$S/robust_cpu.txt" 2>&1;
       echo "robust_cpu exit $?" >> "$S/robust_cpu.txt") &
      ROBUST_CPU_PID=$! ;;
    robust_wait)
      wait "${ROBUST_CPU_PID:-0}" 2>/dev/null; tail -1 "$S/robust_cpu.txt"
      grep -E '^\||^best|^held-out' "$S/robust_cpu.txt" ;;
  esac
done
tar -czf "$OUT/validate.tar.gz" -C "$OUT" validate && rm -rf "$S"
