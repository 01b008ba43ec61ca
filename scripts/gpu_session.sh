#!/usr/bin/env bash
# One batched GPU session (device time is scarce): [gpu] tests, benchmarks, logged runs.
# Runs on the GPU machine from the repository root over binaries built elsewhere:
#   BIN=.carry OUT=$OUT scripts/gpu_session.sh [STEP...]   (the real data is the tree's data/)
# Steps: tests bench_exhaustion bench_trade_filter bench_pipeline bench_pipeline_tf run fallback grid (default: all but
# the optional ones: multi_gpu bench_peers bench_atc bench_subsets bench_subsets_exhaustion).
# Everything lands in $OUT/session/ and, packed, in $OUT/session.tar.gz (one file).
set -uo pipefail
BIN="$(cd "${BIN:-.carry}" && pwd)"; OUT="${OUT:-out}"
export TPEOPT_SOURCE_DIR="$PWD" TPEOPT_CACHE_DIR="$(mktemp -d)"
S="$OUT/session"; mkdir -p "$S"
steps=("$@"); [ ${#steps[@]} -gt 0 ] || steps=(tests bench_exhaustion bench_trade_filter bench_pipeline bench_pipeline_tf run fallback grid)
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv,noheader | tee "$S/device.txt"
T="$BIN/tpeopt"
# bench_regimes CONFIG LABEL NAME [extra bench flags]: `tpeopt bench` in the three regimes
# (ask < GPU, ask = GPU, ask > GPU, set by synthetic per-batch loads) into $S/bench_pipeline_NAME.txt.
bench_regimes() {
  local config="$1" label="$2" name="$3"; shift 3
  for regime in "ask<gpu:2:20" "ask=gpu:20:20" "ask>gpu:20:2"; do
    IFS=: read -r rname s e <<< "$regime"
    echo "== $label, $rname (sampler +${s} ms, executor +${e} ms)"
    "$T" bench -c "$config" --executor cuda --sampler-ms "$s" --executor-ms "$e" "$@" --json "$S/bench_${name}_$rname.json" 2>&1
  done > "$S/bench_pipeline_$name.txt"
}
for step in "${steps[@]}"; do
  echo "### $step"
  case "$step" in
    tests)
      "$BIN/tpeopt_tests" "${GPU_TESTS:-[gpu]}" --durations yes > "$S/gpu_tests.txt" 2>&1; tail -3 "$S/gpu_tests.txt" ;;
    bench_exhaustion)
      "$BIN/bench_exhaustion" --bars 1000000 --cpu-trials 4 --repeats 3 > "$S/bench_exhaustion.txt" 2>&1
      tail -8 "$S/bench_exhaustion.txt" ;;
    bench_trade_filter)
      "$BIN/bench_trade_filter" --data "$(mktemp -d)/tf" > "$S/bench_trade_filter.txt" 2>&1
      tail -15 "$S/bench_trade_filter.txt" ;;
    bench_pipeline)
      bench_regimes examples/bench_functions_random.json "functions rastrigin-10, random sampler, 10 batches of 4096" functions --depths 2,3
      bench_regimes examples/exhaustion_eurusd.json "exhaustion EURUSD, TPE, 3000 trials in batches of 100" exhaustion
      grep -v "^tpeopt bench" "$S/bench_pipeline_functions.txt" | tail -12 ;;
    bench_pipeline_tf)
      [ -d data/trade_filter/market ] || "$T" data generate --out data/trade_filter --days 20 --trades 100000 --seed 1 > /dev/null
      bench_regimes examples/bench_trade_filter_random.json "trade_filter, random sampler, 10 batches of 4096 over 100,000 generated trades" trade_filter
      grep -v "^tpeopt bench" "$S/bench_pipeline_trade_filter.txt" ;;
    run)
      "$T" run -c examples/exhaustion_eurusd.json --executor cuda --out "$S/run_exhaustion_cuda" > "$S/run_exhaustion_cuda.log" 2>&1
      tail -4 "$S/run_exhaustion_cuda.log"
      "$T" run -c examples/functions_rastrigin.json --executor cuda --out "$S/run_rastrigin_cuda" > "$S/run_rastrigin_cuda.log" 2>&1
      tail -3 "$S/run_rastrigin_cuda.log" ;;
    fallback)
      # A device failure in the middle of a run, then the CPU finishes it: same digest.
      "$T" run -c examples/exhaustion_eurusd.json --executor cuda -q --out "$S/fb_ref" > "$S/fallback.txt" 2>&1
      TPEOPT_FAIL_AT_BATCH=7 "$T" run -c examples/exhaustion_eurusd.json --executor cuda -q --out "$S/fb_run" >> "$S/fallback.txt" 2>&1
      echo "exit after injected failure: $?" >> "$S/fallback.txt"
      "$T" resume "$S/fb_run" --executor cpu -q >> "$S/fallback.txt" 2>&1
      echo "reference digest: $(grep -o '"digest": "[0-9a-f]*"' "$S/fb_ref/summary.json")" >> "$S/fallback.txt"
      echo "resumed digest:   $(grep -o '"digest": "[0-9a-f]*"' "$S/fb_run/summary.json")" >> "$S/fallback.txt"
      tail -4 "$S/fallback.txt" ;;
    grid)
      # A trade_filter grid on the GPU in segments, killed after 1.5 s (on an H100 it may finish first:
      # "killed: 0"), finished or replayed on the CPU: same top K as one CPU pass.
      [ -d data/trade_filter/market ] || "$T" data generate --out data/trade_filter --days 20 --trades 100000 --seed 1 > /dev/null
      "$T" grid -c examples/trade_filter_grid.json --executor cpu -q -o "$S/grid_cpu" > "$S/grid.txt" 2>&1
      "$T" grid -c examples/trade_filter_grid.json --executor cuda -q --segment-combinations 400 -o "$S/grid_gpu" >> "$S/grid.txt" 2>&1
      timeout -s KILL 1.5 "$T" grid -c examples/trade_filter_grid.json --executor cuda -q --segment-combinations 20 -o "$S/grid_mixed" >> "$S/grid.txt" 2>&1
      echo "killed: $?" >> "$S/grid.txt"
      "$T" resume "$S/grid_mixed" --executor cpu -q >> "$S/grid.txt" 2>&1
      for d in grid_cpu grid_gpu grid_mixed; do
        echo "$d: $(grep -o '"digest": "[0-9a-f]*"' "$S/$d/summary.json") $(grep -o '"replayed_segments": [0-9]*' "$S/$d/summary.json")"
      done >> "$S/grid.txt"
      tail -4 "$S/grid.txt" ;;
    multi_gpu)
      # Several GPUs of the host: same digest on 1 and N devices; throughput of one filled batch.
      "$BIN/bench_exhaustion" --bars 1000000 --multi-gpu-trials ${MULTI_GPU_TRIALS:-65536,131072,262144} --repeats 3 > "$S/multi_gpu.txt" 2>&1
      for devs in 0 0,1 all; do
        "$T" run -c examples/exhaustion_eurusd.json --executor cuda --devices "$devs" -q --out "$S/run_devices_$devs" > "$S/run_devices_$devs.log" 2>&1
        echo "devices $devs: $(grep -o '"digest": "[0-9a-f]*"' "$S/run_devices_$devs/summary.json") $(grep '^trials:' "$S/run_devices_$devs.log")"
      done >> "$S/multi_gpu.txt"
      tail -12 "$S/multi_gpu.txt" ;;
    bench_peers)
      "$BIN/bench_ema_cross" ${PEERS_ARGS:-} > "$S/bench_peers.txt" 2>&1; tail -20 "$S/bench_peers.txt" ;;
    bench_subsets)
      # Successive halving against the full evaluation (docs/strategies.md, "Data subsets"): large planted data,
      # 5 seeds (medians) at batches of 2,048 and 1,024, then the small defaults.
      L="--executor cuda --days 250 --trades-per-day 2000 --path-len 390 --trials 16384 --seeds ${SUBSETS_SEEDS:-5}"
      { for b in 2048 1024; do timeout "${SUBSETS_TIMEOUT:-300}" "$BIN/bench_subsets" $L --batch $b; done
        timeout "${SUBSETS_TIMEOUT:-300}" "$BIN/bench_subsets" --executor cuda ${SUBSETS_ARGS:-}; } > "$S/bench_subsets.txt" 2>&1
      grep -E "^bench_subsets|halving/full|median" "$S/bench_subsets.txt" ;;
    bench_subsets_exhaustion)
      # Exhaustion halving against the full evaluation on a generated 1,000,000-bar series:
      # executor (GPU) time and best score of each run, from summary.json.
      [ -f bench/subsets/gen/SYM0000.csv ] || "$T" data generate-candles -o bench/subsets/gen --symbols 1 --bars 1000000 --interval-s 3600 --seed 3 > /dev/null
      for c in full halving; do
        "$T" run -c "bench/subsets/exhaustion_$c.json" --executor cuda -q --out "$S/exh_$c" > "$S/exh_$c.log" 2>&1
        echo "$c: $(grep -E '^trials' "$S/exh_$c.log")"
        echo "$c: $(grep -o '"exec_ms": [0-9.]*' "$S/exh_$c/summary.json") $(grep -E '^best' "$S/exh_$c.log" | cut -c1-60) $(grep -E '^digest' "$S/exh_$c.log")"
      done > "$S/bench_subsets_exhaustion.txt"
      cat "$S/bench_subsets_exhaustion.txt" ;;
    bench_atc)
      "$BIN/bench_atc" ${ATC_ARGS:-} > "$S/bench_atc.txt" 2>&1; tail -20 "$S/bench_atc.txt" ;;
  esac
done
tar -czf "$OUT/session.tar.gz" -C "$OUT" session && rm -rf "$S"
ls -la "$OUT"
