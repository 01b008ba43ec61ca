#!/usr/bin/env bash
# The GPU-fill measurements in one GPU session (docs/benchmarks.md, "`tpeopt run`, TPE,
# 1,000,000-bar series: where the GPU time goes" and "GPU time per trial"), over
# binaries built elsewhere (static cudart, sm_90, -DTPEOPT_MPI=OFF): BEFORE holds tpeopt and
# bench_exhaustion of the code to compare against (BEFORE=none: this code alone), BIN this
# code's tpeopt, tpeopt_tests and bench_exhaustion. From the repository root on the GPU machine:
#   BEFORE=.carry/before BIN=.carry/after OUT=$OUT scripts/gpu_fill.sh [STEP...]
# Steps (default: tests, bench, runs): tests ([gpu], the parity tests among them), bench (bench_exhaustion
# --bars 1000000, before then after), runs (`tpeopt run` TPE on a generated 1,000,000-bar
# series, batches of 4,096 and of 65,536, before then after: trials/s, device occupancy, and
# the digests, which must not change), per_trial (GPU time per trial of ema_cross, atc,
# exhaustion, bollinger and donchian at batches of 4,096 and 65,536, on the bundled data or
# the generated series, with or without folds: PER_TRIAL_* below),
# replay (after runs: the 4,096-trial TPE run's own batches replayed by
# bench_exhaustion_replay: each batch's launch on the host and on the device, warm and as in
# the run, and the sequence through the executor with 1 and 2 batches in flight), ncu (the
# kernels' own durations in a shorter run of the same config at batch 4,096), threads (the
# runs' TPE run of this code at 4,096 with THREADS ask workers, "1 2 4 8 default" by default,
# and at 65,536 with 1 and the default: docs/benchmarks.md, "TPE's ask workers beside the
# GPU"; "default" leaves search.tpe.threads out). Results:
# $OUT/gpu_fill/, packed into $OUT/gpu_fill.tar.gz, and $OUT/summary.txt (.2, .3, ... for
# further calls into the same $OUT).
set -uo pipefail
versions=(before after)
if [ "${BEFORE:-}" = none ]; then versions=(after); else BEFORE="$(cd "${BEFORE:-.carry/before}" && pwd)"; fi
BIN="$(cd "${BIN:-.carry/after}" && pwd)"
OUT="${OUT:-out}"
export TPEOPT_SOURCE_DIR="$PWD" TPEOPT_CACHE_DIR="$(mktemp -d)"
S="$OUT/gpu_fill"
n=""
while [ -e "$OUT/gpu_fill$n.tar.gz" ]; do n=".$(( ${n#.} + 1 ))"; [ "$n" = .1 ] && n=.2; done
mkdir -p "$S"
steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(tests bench runs)
RUN_TRIALS="${RUN_TRIALS:-262144}"
TMPDIR_TRIALS="$(mktemp -d)/run_after_4096_trials"
{
  date -u '+%Y-%m-%d %H:%M UTC'
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader
} | tee "$S/device.txt"
# The generated 1,000,000-bar hourly series (seed 3) of the runs and of per_trial's generated data.
generate_series() {
  [ -f bench/subsets/gen/SYM0000.csv ] || "$BIN/tpeopt" data generate-candles -o bench/subsets/gen --symbols 1 \
    --bars 1000000 --interval-s 3600 --seed 3 > /dev/null
}
for step in "${steps[@]}"; do
  echo "### $step"
  case "$step" in
    tests)
      timeout "${TESTS_TIMEOUT:-360}" "$BIN/tpeopt_tests" "${GPU_TESTS:-[gpu]}" --durations yes > "$S/gpu_tests.txt" 2>&1
      echo "tpeopt_tests exit $?" >> "$S/gpu_tests.txt"
      tail -4 "$S/gpu_tests.txt" ;;
    bench)
      for v in "${versions[@]}"; do
        dir="${BEFORE:-}"; [ "$v" = after ] && dir="$BIN"
        timeout 150 "$dir/bench_exhaustion" --bars 1000000 --cpu-trials 4 --repeats 3 > "$S/bench_exhaustion_$v.txt" 2>&1
        echo "== $v"; grep -E '^\| cuda' "$S/bench_exhaustion_$v.txt"
      done ;;
    runs)
      generate_series
      for v in "${versions[@]}"; do
        dir="${BEFORE:-}"; [ "$v" = after ] && dir="$BIN"
        for b in 4096 65536; do
          name="run_${v}_$b"
          timeout 90 "$dir/tpeopt" run -c bench/subsets/exhaustion_full.json --executor cuda --batch "$b" --depth 2 \
            --trials "$RUN_TRIALS" -q --out "$S/$name" > "$S/$name.log" 2>&1
          echo "$name: $(grep -E '^trials:' "$S/$name.log") $(grep -E '^device occupancy' "$S/$name.log")" \
            "$(grep -o '"digest": "[0-9a-f]*"' "$S/$name/summary.json")"
          # large: timings.csv and summary.json stay; the replay step reads the after run's trials
          [ "$name" = run_after_4096 ] && mv "$S/$name/trials.csv" "$TMPDIR_TRIALS.csv"
          rm -f "$S/$name/trials.csv" "$S/$name/journal.bin"
        done
      done | tee "$S/runs.txt" ;;
    threads)
      generate_series
      for t in ${THREADS:-1 2 4 8 default}; do
        for b in 4096 65536; do
          [ "$b" = 65536 ] && [ "$t" != 1 ] && [ "$t" != default ] && continue
          # The copy lies beside the config: its data path is relative to the config's folder.
          cfg=bench/subsets/.exhaustion_full_threads_$t.json
          python3 - "$t" "$cfg" <<'PY'
import json, sys
c = json.load(open("bench/subsets/exhaustion_full.json"))
if sys.argv[1] != "default":
    c["search"].setdefault("tpe", {})["threads"] = int(sys.argv[1])
json.dump(c, open(sys.argv[2], "w"), indent=2)
PY
          name="threads_${t}_$b"
          timeout 90 "$BIN/tpeopt" run -c "$cfg" --executor cuda --batch "$b" --depth 2 --trials "$RUN_TRIALS" -q \
            --out "$S/$name" > "$S/$name.log" 2>&1
          echo "$name: $(grep -E '^trials:' "$S/$name.log") $(grep -o '"digest": "[0-9a-f]*"' "$S/$name/summary.json")"
          rm -f "$cfg" "$S/$name/trials.csv" "$S/$name/journal.bin"
        done
      done | tee "$S/threads.txt" ;;
    replay)
      [ -f "$TMPDIR_TRIALS.csv" ] || { echo "replay: run the runs step first"; continue; }
      timeout 240 "$BIN/bench_exhaustion_replay" --candles bench/subsets/gen/SYM0000.csv --trials "$TMPDIR_TRIALS.csv" \
        --fixed fee_bp=1.0,slippage_bp=0.5 --regroup 65536 --segments "${SEGMENTS:-0,2,4,8,16,32,64}" --batches 0,1,2,3,4,5,8,9,16,17,32,33,62,63 > "$S/replay.txt" 2>&1
      echo "replay exit $?" >> "$S/replay.txt"
      grep -E '^\|' "$S/replay.txt" | tail -30 ;;
    ncu)
      # Kernel durations only (one metric, no replay passes to speak of): 16 batches of 4,096.
      command -v ncu >/dev/null || { echo "ncu: not found"; continue; }
      timeout "${NCU_TIMEOUT:-150}" ncu --metrics gpu__time_duration.sum --csv --log-file "$S/ncu_4096.csv" "$BIN/tpeopt" run \
        -c bench/subsets/exhaustion_full.json --executor cuda --batch 4096 --depth 2 --trials 65536 -q \
        --out "$S/ncu_run" > "$S/ncu_run.log" 2>&1
      echo "ncu exit $?" >> "$S/ncu_run.log"
      rm -f "$S/ncu_run/trials.csv" "$S/ncu_run/journal.bin"
      python3 - "$S/ncu_4096.csv" <<'PY' | tee "$S/ncu_summary.txt"
import csv, sys, collections
rows = [r for r in csv.reader(l for l in open(sys.argv[1]) if l.startswith('"'))]
head, rows = rows[0], rows[1:]
k, v, u = head.index("Kernel Name"), head.index("Metric Value"), head.index("Metric Unit")
total = collections.defaultdict(float); count = collections.Counter()
for r in rows:
    scale = {"ns": 1e6, "nsecond": 1e6, "us": 1e3, "usecond": 1e3, "ms": 1.0, "msecond": 1.0}
    ms = float(r[v].replace(",", "")) / scale[r[u]]
    name = r[k].split("(")[0].split("<")[0]
    total[name] += ms; count[name] += 1
for name in sorted(total, key=total.get, reverse=True):
    print(f"{name}: {count[name]} launches, {total[name]:.1f} ms")
print(f"all kernels: {sum(total.values()):.1f} ms")
PY
      ;;
    per_trial)
      # GPU time per trial at batches of 4,096 and of 65,536 (random trials, depth 1, so each
      # batch's executor time is its own): exec_ms summed over the batches after the first
      # (the first computes the series), over their trials. PER_TRIAL_DEPTH=2: two batches in
      # flight, exec_ms then the device time no earlier batch covers (overlapping launches).
      # PER_TRIAL_EXAMPLES: the examples (default: the five below). PER_TRIAL_DATA=generated:
      # each on the generated 1,000,000-bar series instead of its bundled data (candle
      # strategies). PER_TRIAL_FOLDS=K: scored on K folds (the cost of folds against a run
      # without). PER_TRIAL_TRIALS: trials a run (default 196,608). PER_TRIAL_TAG names the
      # output (per_trial_TAG.txt).
      tag="${PER_TRIAL_TAG:+_$PER_TRIAL_TAG}"
      extra=()
      if [ "${PER_TRIAL_DATA:-bundled}" = generated ]; then
        generate_series
        extra+=(--candles bench/subsets/gen/SYM0000.csv)
      fi
      [ -n "${PER_TRIAL_FOLDS:-}" ] && extra+=(--folds "$PER_TRIAL_FOLDS")
      for ex in ${PER_TRIAL_EXAMPLES:-ema_cross_btc atc_backtesting_py exhaustion_eurusd bollinger_eurusd donchian_eurusd}; do
        python3 scripts/per_trial_config.py "examples/$ex.json" "$S/$ex$tag.json" ${extra[@]+"${extra[@]}"}
        for b in 4096 65536; do
          name="pt_${ex}${tag}_$b"
          timeout "${PER_TRIAL_TIMEOUT:-120}" "$BIN/tpeopt" run -c "$S/$ex$tag.json" --executor cuda --batch "$b" \
            --depth "${PER_TRIAL_DEPTH:-1}" --trials "${PER_TRIAL_TRIALS:-196608}" -q --out "$S/$name" > "$S/$name.log" 2>&1
          python3 scripts/per_trial_summary.py "$S/$name/timings.csv" \
            "$ex${PER_TRIAL_TAG:+ ($PER_TRIAL_TAG)} batch $b depth ${PER_TRIAL_DEPTH:-1}" || tail -3 "$S/$name.log"
          rm -f "$S/$name/trials.csv" "$S/$name/journal.bin"
        done
      done | tee "$S/per_trial$tag.txt" ;;
  esac
done
{
  cat "$S/device.txt"
  [ -f "$S/gpu_tests.txt" ] && tail -4 "$S/gpu_tests.txt"
  for v in before after; do
    [ -f "$S/bench_exhaustion_$v.txt" ] && { echo "== bench_exhaustion $v"; grep -E '^\|' "$S/bench_exhaustion_$v.txt"; }
  done
  [ -f "$S/runs.txt" ] && cat "$S/runs.txt"
  for f in "$S"/per_trial*.txt; do [ -f "$f" ] && cat "$f"; done
  [ -f "$S/replay.txt" ] && grep -E '^\|' "$S/replay.txt"
  [ -f "$S/ncu_summary.txt" ] && cat "$S/ncu_summary.txt"
} > "$OUT/summary$n.txt"
# One archive per call (the device tool brings back few files); a second call into the same
# $OUT adds gpu_fill.2.tar.gz and summary.2.txt instead of replacing the first's.
tar -czf "$OUT/gpu_fill$n.tar.gz" -C "$OUT" gpu_fill && rm -rf "$S"
ls -la "$OUT"
