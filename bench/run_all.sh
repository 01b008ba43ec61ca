#!/usr/bin/env bash
# The benchmarks behind docs/benchmarks.md. Each writes the raw output the page cites, named
# <machine>-<what it measures> (bench/results/), so that a new measurement replaces a file
# and the page's table that quotes it is updated from that file.
#
#   bench/run_all.sh [--build DIR] [--out DIR] [--optuna VENV] [--peers] [ONLY...]
#       the CPU part, on the development box (machine prefix "dev"): TPE ask + tell,
#       trade_filter (and its numba baseline when numba imports), the peers
#       benchmark's tpeopt side, the quickstart run, the values the TPE tests print.
#       --optuna VENV also runs the comparison with Optuna (a venv with optuna==5.0.0);
#       --peers also runs vectorbt's side (bench/peers/run_peers.sh: installs vectorbt,
#       checks every trade, then times; about 80 minutes on 2 cores).
#       --python VENV also runs the Python boundary (bench/python/bench_python.py; a venv with
#       the tpeopt package, `pip install .`, optuna==5.0.0 and rustuna==0.2.0; 2-4 minutes), and
#       the Python pipeline's depth 1 against 2 (bench/python/depth.py; under a minute).
#   BIN=DIR bench/run_all.sh --gpu [--out DIR] [ONLY...]
#       the GPU part, on the GPU machine, over binaries built elsewhere or there by
#       scripts/device_build.sh (BIN: a flat folder with tpeopt, tpeopt_tests and the bench_*
#       programs; default .carry): the [gpu] tests and every example on both executors
#       (scripts/gpu_conformance.sh), scripts/gpu_session.sh's benchmarks, the GPU-fill
#       measurements (scripts/gpu_fill.sh), the segmented walks, the fold cost and the
#       selection statistics (scripts/gpu_validate.sh), depth 1 against 2, and ask + tell on
#       the host's cores; their outputs renamed to the page's names with the machine's prefix
#       (h100, h200, h200x2, ... from nvidia-smi). A device call is limited to 10 minutes:
#       pass ONLY lists to split the part over calls. MEASURED_COMMIT names the commit in
#       each file's stamp where the machine has no .git.
#   bench/run_all.sh --check
#       the page cites every file in bench/results/ and no file that is missing, and every
#       section with a table names its machine, command, date and raw file (a test runs this).
#   bench/run_all.sh --list
#       the raw files each part writes.
#
# ONLY: names of raw files (without the machine prefix, e.g. trade_filter.txt) to run only those.
# --out defaults to bench/results: the run replaces the files there; `git diff bench/results`
# then shows what changed, and the page is updated from the new files.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
mode=cpu build="$root/build" out="$root/bench/results" optuna_venv="" python_venv="" peers=0 only=()
while [ $# -gt 0 ]; do
  case "$1" in
    --gpu) mode=gpu ;;
    --check) mode=check ;;
    --list) mode=list ;;
    --build) build="$(cd "$2" && pwd)"; shift ;;
    --out) mkdir -p "$2"; out="$(cd "$2" && pwd)"; shift ;;
    --optuna) optuna_venv="$2"; shift ;;
    --python) python_venv="$2"; shift ;;
    --peers) peers=1 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "run_all.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) only+=("$1") ;;
  esac
  shift
done

cpu_files=(tpe_ask_tell-142x20000-cold.txt tpe_ask_tell-sweep.csv tpe_ask_tell-sweep_series.txt
  tpe_tell-sorted_runs.txt tpe_ask_tell-int_axes.txt tpe_multivariate_ask_cost.txt tpe_tests-printed_values.txt
  tpe_vs_optuna-10_seeds.md tpe_vs_optuna-30_seeds.txt tpe_vs_optuna-optuna_raw.txt
  trade_filter.txt trade_filter-numba.txt peers-tpeopt_cpu.txt peers-vectorbt.txt quickstart.txt)
gpu_files=(gpu_tests-examples-fallback.txt examples-holdout.txt grid-segments-resume.txt exhaustion.txt
  trade_filter.txt pipeline-functions.txt pipeline-trade_filter.txt halving-trade_filter.txt
  halving-exhaustion.txt atc.txt peers.txt multi_gpu.txt gpu_fill-runs.txt gpu_fill-tpe_run_4096-timings.csv
  gpu_fill-replay.txt gpu_fill-ncu.txt gpu_fill-per_trial.txt signal_segments.txt folds-cost.txt
  selection-cpu-cuda.txt pipeline-depth.txt ask_tell-142-axes.txt)

# --check: the page against bench/results/.
if [ "$mode" = check ]; then
  python3 - "$root" <<'PY'
import os, re, sys
root = sys.argv[1]
page_path = os.path.join(root, "docs", "benchmarks.md")
page = open(page_path, encoding="utf-8").read()
results = os.path.join(root, "bench", "results")
present = sorted(f for f in os.listdir(results) if not f.startswith("."))
cited = set(re.findall(r"bench/results/([A-Za-z0-9_.-]*[A-Za-z0-9])(?![-*A-Za-z0-9_.])", page))
globs = re.findall(r"bench/results/([A-Za-z0-9_-]+)-\*", page)  # files a generated section owns
errors = []
for f in sorted(cited - set(present)):
    if "*" not in f:
        errors.append(f"the page cites bench/results/{f}, which does not exist")
for f in present:
    if f not in cited and not any(f.startswith(g + "-") for g in globs):
        errors.append(f"bench/results/{f} is cited by no section of docs/benchmarks.md: cite it or delete it")
# Every block with a table names machine, command, date and raw file, itself or in its
# section's text before the first subsection.
exempt = {"Machines", "Code measured"}
blocks, heading, level, text = [], None, 0, []
for line in page.split("\n") + ["## end"]:
    m = re.match(r"^(#{2,3}) (.*)", line)
    if m:
        if heading is not None:
            blocks.append((level, heading, "\n".join(text)))
        level, heading, text = len(m.group(1)), m.group(2), []
    else:
        text.append(line)
parent_text = ""
for level, heading, body in blocks:
    if level == 2:
        parent_text, parent = body, heading
    if heading in exempt or "| --- |" not in body:
        continue
    scope = body + "\n" + (parent_text if level == 3 else "")
    for field in ("Machine", "Command", "Date", "Raw"):
        if not re.search(r"^\s*- .*\b" + field + r"s?:", scope, re.MULTILINE):
            errors.append(f'docs/benchmarks.md, "{heading}": a table without "{field}:" in its list of facts')
for e in errors:
    print("run_all.sh --check: " + e, file=sys.stderr)
if errors:
    sys.exit(1)
print(f"docs/benchmarks.md: {len(present)} raw files in bench/results, each cited; every table has its machine, command, date and raw file")
PY
  exit $?
fi

if [ "$mode" = list ]; then
  echo "CPU part (dev box):"; printf '  dev-%s\n' "${cpu_files[@]}"
  echo "Python part (--python VENV, dev box):"; printf '  %s\n' python-boundary.json python-boundary.md python-depth.json python-depth.md
  echo "GPU part (--gpu; prefix from the device, e.g. h100):"; printf '  <gpu>-%s\n' "${gpu_files[@]}"
  exit 0
fi

wanted() {  # wanted NAME: true when no ONLY list was given or NAME is on it
  [ ${#only[@]} -eq 0 ] && return 0
  local x; for x in "${only[@]}"; do [ "$x" = "$1" ] && return 0; done
  return 1
}
stamp() {  # the header line of a raw file: machine, date, load, commit
  echo "# $1; $(date -u +%Y-%m-%dT%H:%M:%SZ); $(uptime | sed 's/.*load/load/'); commit ${MEASURED_COMMIT:-$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)}"
}

# ---- GPU part ---------------------------------------------------------------------------
if [ "$mode" = gpu ]; then
  BIN="$(cd "$root" && cd "${BIN:-.carry}" && pwd)"; export BIN  # relative to the repository root
  name="$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
  count="$(nvidia-smi --query-gpu=name --format=csv,noheader | wc -l)"
  prefix="$(echo "$name" | { grep -o -i -E 'h100|h200|a100|l40s?' || true; } | head -1 | tr 'A-Z' 'a-z')"
  prefix="${prefix:-gpu}"; [ "$count" -gt 1 ] && prefix="${prefix}x$count"
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  # step -> file(s): run the steps needed by the wanted files, in one session.
  steps=()
  wanted gpu_tests-examples-fallback.txt && steps+=(run fallback)
  wanted grid-segments-resume.txt && steps+=(grid)
  wanted exhaustion.txt && steps+=(bench_exhaustion)
  wanted trade_filter.txt && steps+=(bench_trade_filter)
  wanted pipeline-functions.txt && steps+=(bench_pipeline)
  wanted pipeline-trade_filter.txt && steps+=(bench_pipeline_tf)
  wanted halving-trade_filter.txt && steps+=(bench_subsets)
  wanted halving-exhaustion.txt && steps+=(bench_subsets_exhaustion)
  wanted atc.txt && steps+=(bench_atc)
  wanted peers.txt && steps+=(bench_peers)
  [ "$count" -gt 1 ] && wanted multi_gpu.txt && steps+=(multi_gpu)
  export ATC_ARGS="${ATC_ARGS:---symbols 1000 --bars 1500 --trials 4096 --cpu-trials 16 --check-trials 16 --repeats 3}"
  export PEERS_ARGS="${PEERS_ARGS:---repeats 3}"
  S="$work/session"
  if [ ${#steps[@]} -gt 0 ]; then
    (cd "$root" && OUT="$work" bash scripts/gpu_session.sh "${steps[@]}")
    tar -xzf "$work/session.tar.gz" -C "$work"
  fi
  # The [gpu] tests and every example on the CPU and on CUDA (scripts/gpu_conformance.sh).
  if wanted gpu_tests-examples-fallback.txt; then
    rc=0; (cd "$root" && OUT="$work" timeout "${CONFORMANCE_TIMEOUT:-420}" bash scripts/gpu_conformance.sh) \
      > "$work/conformance.log" 2>&1 || rc=$?
    echo "gpu_conformance.sh exit $rc" >> "$work/conformance.log"
    mkdir -p "$S"; cp "$work"/conformance/{gpu_conformance.txt,gpu_other.txt,examples.txt} "$work/conformance.log" "$S"/ 2>/dev/null || true
    [ -f "$S/device.txt" ] || cp "$work/conformance/device.txt" "$S/device.txt" 2>/dev/null || true
  fi
  # GPU fill (scripts/gpu_fill.sh, this build alone): TPE runs at 4,096 and 65,536, their
  # replay, the kernels' durations under ncu, GPU time per trial of the examples.
  fill_steps=()
  { wanted gpu_fill-runs.txt || wanted gpu_fill-tpe_run_4096-timings.csv; } && fill_steps+=(runs)
  wanted gpu_fill-replay.txt && fill_steps+=(runs replay)
  wanted gpu_fill-ncu.txt && fill_steps+=(ncu)
  wanted gpu_fill-per_trial.txt && fill_steps+=(per_trial)
  if [ ${#fill_steps[@]} -gt 0 ]; then
    (cd "$root" && BEFORE=none OUT="$work/fill" bash scripts/gpu_fill.sh $(printf '%s\n' "${fill_steps[@]}" | awk '!seen[$0]++'))
    tar -xzf "$work/fill/gpu_fill.tar.gz" -C "$work"
    mkdir -p "$S"; [ -f "$S/device.txt" ] || cp "$work/gpu_fill/device.txt" "$S/device.txt"
  fi
  # Checks and measurements of scripts/gpu_validate.sh over these binaries.
  validate_steps=()
  wanted signal_segments.txt && validate_steps+=(segments)
  wanted folds-cost.txt && validate_steps+=(folds)
  wanted selection-cpu-cuda.txt && validate_steps+=(selection)
  if [ ${#validate_steps[@]} -gt 0 ]; then
    (cd "$root" && OUT="$work" SEGMENT_EXAMPLES="${SEGMENT_EXAMPLES:-bollinger_eurusd donchian_eurusd bollinger_eurusd:data/binance-1m/BTCUSDT_1m_2023-03.csv donchian_eurusd:data/binance-1m/BTCUSDT_1m_2023-03.csv}" \
      SEGMENTS_4096="${SEGMENTS_4096:-1 2 4 8 16 32 64 auto}" SEGMENTS_65536="${SEGMENTS_65536:-1 2 4 auto}" \
      bash scripts/gpu_validate.sh "${validate_steps[@]}") > "$work/validate.log" 2>&1
    tar -xzf "$work/validate.tar.gz" -C "$work"
    mkdir -p "$S"; [ -f "$S/device.txt" ] || cp "$work/validate/device.txt" "$S/device.txt"
  fi
  emit() {  # emit FILE PARTS...: the device line, then the parts, into $out/<prefix>-FILE
    local file="$1"; shift
    { stamp "$name x$count ($(hostname))"; cat "$S/device.txt"; for p in "$@"; do [ -f "$S/$p" ] && { echo "## $p"; cat "$S/$p"; }; done; } > "$out/$prefix-$file"
    echo "wrote $out/$prefix-$file"
  }
  for s in "${steps[@]}"; do
    case "$s" in
      grid) emit grid-segments-resume.txt grid.txt ;;
      bench_exhaustion) emit exhaustion.txt bench_exhaustion.txt ;;
      bench_trade_filter) emit trade_filter.txt bench_trade_filter.txt ;;
      bench_pipeline) emit pipeline-functions.txt bench_pipeline_functions.txt ;;
      bench_pipeline_tf) emit pipeline-trade_filter.txt bench_pipeline_trade_filter.txt ;;
      bench_subsets) emit halving-trade_filter.txt bench_subsets.txt ;;
      bench_subsets_exhaustion) emit halving-exhaustion.txt bench_subsets_exhaustion.txt ;;
      bench_atc) emit atc.txt bench_atc.txt ;;
      bench_peers) emit peers.txt bench_peers.txt ;;
      multi_gpu) emit multi_gpu.txt multi_gpu.txt ;;
    esac
  done
  wanted gpu_tests-examples-fallback.txt && emit gpu_tests-examples-fallback.txt gpu_conformance.txt gpu_other.txt \
    examples.txt conformance.log run_exhaustion_cuda.log run_rastrigin_cuda.log fallback.txt
  F="$work/gpu_fill"
  if [ -d "$F" ]; then
    for f in runs.txt replay.txt ncu_summary.txt ncu_run.log per_trial.txt; do [ -f "$F/$f" ] && cp "$F/$f" "$S/fill_$f"; done
    wanted gpu_fill-runs.txt && emit gpu_fill-runs.txt fill_runs.txt
    { wanted gpu_fill-runs.txt || wanted gpu_fill-tpe_run_4096-timings.csv; } && [ -f "$F/run_after_4096/timings.csv" ] &&
      { stamp "$name ($(hostname)): timings.csv of the TPE run at batch 4,096 in $prefix-gpu_fill-runs.txt"
        cat "$F/run_after_4096/timings.csv"; } > "$out/$prefix-gpu_fill-tpe_run_4096-timings.csv"
    wanted gpu_fill-replay.txt && emit gpu_fill-replay.txt fill_replay.txt
    wanted gpu_fill-ncu.txt && emit gpu_fill-ncu.txt fill_ncu_summary.txt fill_ncu_run.log
    wanted gpu_fill-per_trial.txt && emit gpu_fill-per_trial.txt fill_per_trial.txt
  fi
  V="$work/validate"
  if [ -d "$V" ]; then
    for f in segments.txt folds.txt; do [ -f "$V/$f" ] && cp "$V/$f" "$S/validate_$f"; done
    grep -E "^(cpu|cuda) exit|^selection_bias" "$work/validate.log" > "$S/validate_selection.txt" 2>/dev/null || true
    wanted signal_segments.txt && emit signal_segments.txt validate_segments.txt
    wanted folds-cost.txt && emit folds-cost.txt validate_folds.txt
    wanted selection-cpu-cuda.txt && emit selection-cpu-cuda.txt validate_selection.txt
  fi
  if wanted pipeline-depth.txt; then
    # What depth costs and buys in wall time: `tpeopt run` of TPE at 200,000 / 4,096 on each real
    # strategy, depth 1 and 2 (summary.json: wall, ask, executor, tell, idle and overlap ms).
    { stamp "$name ($(hostname)): tpeopt run --trials 200000 --batch 4096 --depth D --executor cuda; ms from summary.json, best = top.json's first score"
      for example in exhaustion_eurusd ema_cross_btc atc_binance trade_filter_tpe; do
        for depth in 1 2; do
          dir="$work/depth_${example}_$depth"
          (cd "$root" && "$BIN/tpeopt" run -c "examples/$example.json" --executor cuda --trials 200000 --batch 4096 \
            --depth "$depth" -q --out "$dir") > "$dir.log" 2>&1 || tail -3 "$dir.log"
          python3 - "$dir" "$example" "$depth" <<'PY' || true
import json, sys
s = json.load(open(sys.argv[1] + "/summary.json")); top = json.load(open(sys.argv[1] + "/top.json"))
keys = ("trials", "wall_ms", "ask_ms", "exec_ms", "tell_ms", "idle_ms", "overlap_ms")
print(sys.argv[2], "depth", sys.argv[3], json.dumps({k: s.get(k) for k in keys}), "best", top[0]["score"] if top else None)
PY
        done
      done; } > "$out/$prefix-pipeline-depth.txt" 2>&1
    echo "wrote $out/$prefix-pipeline-depth.txt"
  fi
  wanted ask_tell-142-axes.txt && [ ! -x "$BIN/bench_ask_tell" ] && echo "run_all.sh: $BIN/bench_ask_tell not found: ask_tell-142-axes.txt skipped" >&2
  if wanted ask_tell-142-axes.txt && [ -x "$BIN/bench_ask_tell" ]; then
    # Batch TPE's and the fast acquisition's ask + tell at 142 axes on the GPU machine's host cores.
    { stamp "$name host ($(nproc) cores): bench_ask_tell --single 142 20000 4096 batch|fast THREADS 2 int"
      for threads in "$(nproc)" 2 1; do for acq in batch fast; do
        echo "== bench_ask_tell --single 142 20000 4096 $acq $threads 2 int"
        "$BIN/bench_ask_tell" --single 142 20000 4096 "$acq" "$threads" 2 int
      done; done; } > "$out/$prefix-ask_tell-142-axes.txt" 2>&1
    echo "wrote $out/$prefix-ask_tell-142-axes.txt"
  fi
  if wanted examples-holdout.txt; then
    { stamp "$name ($(hostname))"; "$BIN/tpeopt" run -c "$root/examples/exhaustion_eurusd_holdout.json" --executor cuda \
        --out "$work/holdout" 2>&1; } > "$out/$prefix-examples-holdout.txt"
    echo "wrote $out/$prefix-examples-holdout.txt"
  fi
  exit 0
fi

# ---- CPU part (development box) ---------------------------------------------------------
T="$build/apps/tpeopt"
B="$build/bench"
for exe in "$T" "$B/tpe/bench_ask_tell"; do
  [ -x "$exe" ] || { echo "run_all.sh: $exe not found: build first (cmake --build $build)" >&2; exit 2; }
done
machine="dev box ($(nproc) cores, $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1))"
data="$(mktemp -d)"
trap 'rm -rf "$data"' EXIT
ask_tell="$B/tpe/bench_ask_tell"
run_to() {  # run_to FILE TITLE COMMAND...: the stamp, the command, its output
  local file="$1" title="$2"; shift 2
  wanted "$file" || return 0
  echo "== dev-$file: $title" >&2
  { stamp "$machine"; echo "# $title"; echo "\$ $*"; "$@" 2>&1; } > "$out/dev-$file"
}
repeat_single() {  # repeat_single N ARGS...: N runs of bench_ask_tell --single ARGS
  local n="$1"; shift
  for _ in $(seq "$n"); do echo "bench_ask_tell --single $* $("$ask_tell" --single "$@")"; done
}

run_to tpe_ask_tell-142x20000-cold.txt "the 100 ms case, cold, six runs" repeat_single 6 142 20000 4096 fast 2
if wanted tpe_ask_tell-sweep.csv || wanted tpe_ask_tell-sweep_series.txt; then
  echo "== dev-tpe_ask_tell-sweep.csv" >&2
  { stamp "$machine"; echo "\$ bench_ask_tell --sweep CSV 2"; "$ask_tell" --sweep "$out/dev-tpe_ask_tell-sweep.csv" 2 2>&1
    echo "## the first tell after a block of 1,000,000 trials (WARM 0) and the next (WARM 1), one thread"
    for _ in 1 2; do repeat_single 1 142 1000000 4096 fast 1 0; repeat_single 1 142 1000000 4096 fast 1 1; done
  } > "$out/dev-tpe_ask_tell-sweep_series.txt"
  [ -x "$root/bench/tpe/plot_ask_tell.py" ] && python3 -c "import matplotlib" 2>/dev/null &&
    python3 "$root/bench/tpe/plot_ask_tell.py" "$out/dev-tpe_ask_tell-sweep.csv" "$root/docs/figures/tpe_ask_tell.png" || true
fi
sorted_runs() {
  repeat_single 4 142 20000 4096 fast 2 2; repeat_single 3 142 20000 4096 fast 1 2
  repeat_single 3 142 100000 4096 fast 1 2; repeat_single 2 142 1000000 4096 fast 1 2
}
run_to tpe_tell-sorted_runs.txt "tell and ask at up to 1,000,000 observations (warm 2)" sorted_runs
int_axes() {
  for _ in 1 2 3 4; do for w in 0 2; do for k in int float; do repeat_single 1 142 20000 4096 fast 2 $w $k; done; done; done
}
run_to tpe_ask_tell-int_axes.txt "int and float axes, cold and warm 2, four rounds" int_axes
multivariate_cost() {
  repeat_single 1 10 500 100 multivariate 1 0 float; repeat_single 1 10 500 100 multivariate 1 0 int
  repeat_single 1 10 500 64 multivariate 1; repeat_single 1 6 833 64 multivariate 1
  repeat_single 1 32 150 64 multivariate 1; repeat_single 1 142 35 4096 multivariate 1
  repeat_single 1 10 500 64 fast 1; repeat_single 1 142 35 4096 fast 1
}
run_to tpe_multivariate_ask_cost.txt "joint asks, one thread, and the fast per-axis model" multivariate_cost
run_to tpe_tests-printed_values.txt "the lines the TPE tests print" "$build/tests/tpeopt_tests" "[tpe]"
if [ -n "$optuna_venv" ] && { wanted tpe_vs_optuna-10_seeds.md || wanted tpe_vs_optuna-30_seeds.txt; }; then
  cmp="$root/bench/tpe/compare_optuna.py"
  { stamp "$machine"; "$optuna_venv/bin/python" "$cmp" --build "$build" --out "$data/cmp" --optuna-only quality --seeds 10 --trials 1000
    "$optuna_venv/bin/python" "$cmp" --build "$build" --out "$data/cmp" --optuna-only timing
    cat "$data/cmp"/*.jsonl 2>/dev/null || true; } > "$out/dev-tpe_vs_optuna-optuna_raw.txt" 2>&1
  python3 "$cmp" --build "$build" --out "$data/cmp" --seeds 10 --trials 1000 --reuse-optuna > /dev/null
  { stamp "$machine"; cat "$data/cmp/compare.md"; } > "$out/dev-tpe_vs_optuna-10_seeds.md"
  { stamp "$machine"; "$optuna_venv/bin/python" "$cmp" --build "$build" --out "$data/cmp30" --optuna-only quality --seeds 30 --trials 1000
    for f in rastrigin styblinski_tang hartmann6; do for b in 1 64; do
      for m in univariate multivariate auto=120000 auto=60000; do "$B/tpe/bench_tpe_quality" $f 30 1000 $b fast $m; done; done; done
  } > "$out/dev-tpe_vs_optuna-30_seeds.txt" 2>&1
fi
run_to trade_filter.txt "trade_filter CPU workloads" "$B/trade_filter/bench_trade_filter" --data "$data/tf"
if wanted trade_filter-numba.txt && python3 -c "import numba" 2>/dev/null; then
  [ -f "$data/tf/data.tfc" ] || "$B/trade_filter/bench_trade_filter" --data "$data/tf" > /dev/null
  run_to trade_filter-numba.txt "the reference grid in numba" python3 "$root/bench/trade_filter/numba_baseline.py" "$data/tf/data.tfc"
fi
run_to peers-tpeopt_cpu.txt "the peers workloads on the CPU executor" "$B/peers/bench_ema_cross" --repeats 3
if [ "$peers" = 1 ] && wanted peers-vectorbt.txt; then
  run_to peers-vectorbt.txt "vectorbt: check every trade, then time" env PEERS_WORKDIR="$data/peers" bash "$root/bench/peers/run_peers.sh" "$build"
fi
quickstart() {
  "$T" run --config "$root/examples/exhaustion_eurusd.json" --executor cpu --out "$data/qs1"
  "$T" run --config "$root/examples/exhaustion_eurusd_holdout.json" --executor cpu --out "$data/qs2"
}
run_to quickstart.txt "the quickstart run and the hold-out example" quickstart
if [ -n "$python_venv" ] && { wanted python-boundary.json || wanted python-boundary.md; }; then
  echo "== python-boundary.json, python-boundary.md" >&2
  (cd "$root" && "$python_venv/bin/python" bench/python/bench_python.py --json "$out/python-boundary.json" \
    --markdown "$out/python-boundary.md" > /dev/null)
fi
if [ -n "$python_venv" ] && { wanted python-depth.json || wanted python-depth.md; }; then
  echo "== python-depth.json, python-depth.md" >&2
  (cd "$root" && "$python_venv/bin/python" bench/python/depth.py --json "$out/python-depth.json" \
    --markdown "$out/python-depth.md" > /dev/null)
fi
echo "run_all.sh: raw outputs in $out; update docs/benchmarks.md from them, then bench/run_all.sh --check" >&2
