#!/usr/bin/env bash
# The held-out functions at the GPU-sized budget, 200,000 trials in batches of 4,096
# (bench/quality/suites.py's HELD_OUT_LARGE: six cells), 10 seeds: tpeopt's TPE, GA and random
# against CMA-ES (`cmaes`, population = batch, IPOP restarts); NGOpt does not finish at this
# budget (functions.sh). CPU only (the functions are evaluated in Python), for a machine with
# many cores. Appends to $OUT/quality-large.jsonl (runs already there are skipped), then
# writes $OUT/quality-large.md.
#
#   PYTHON=venv/bin/python OUT=bench/results bench/quality/large.sh [JOBS]
# On a machine without network, as gpu.sh: BIN names the folder holding quality_server and
# WHEELS a folder of bench/quality/requirements.txt's wheels, unpacked here (no pip).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
py="${PYTHON:-python3}"
OUT="${OUT:-$root/bench/results}"
jobs="${1:-$(nproc)}"
mkdir -p "$OUT"
if [ -n "${BIN:-}" ]; then export TPEOPT_QUALITY_SERVER="$(cd "$BIN" && pwd)/quality_server"; fi
if [ -n "${WHEELS:-}" ]; then
  pylib="$(mktemp -d)"
  "$py" - "$WHEELS" "$pylib" <<'PY'
import sys, zipfile, pathlib
for w in sorted(pathlib.Path(sys.argv[1]).glob("*.whl")):
    zipfile.ZipFile(w).extractall(sys.argv[2])
PY
  export PYTHONPATH="$pylib"
fi
{ nproc | sed 's/^/cores: /'; lscpu | grep 'Model name'; date -u; } > "$OUT/quality-large-machine.txt"
"$py" "$root/bench/quality/run.py" --out "$OUT/quality-large.jsonl" --seeds 10 --jobs "$jobs" \
  --workloads held-out-large --budgets 200000/4096 --samplers tpe,ga,random,cmaes
"$py" "$root/bench/quality/report.py" "$OUT/quality-large.jsonl" --reference tpe --markdown "$OUT/quality-large.md"
