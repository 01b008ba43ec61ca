#!/usr/bin/env bash
# The held-out functions (bench/quality/suites.py) at the budgets too heavy for the 2-core
# development box, 10 seeds: tpeopt's TPE, GA and random against CMA-ES (`cmaes`, population
# = batch, IPOP restarts): all 14 at 20,000 / 1,000, and the six of HELD_OUT_LARGE at
# 200,000 / 4,096. NGOpt finishes at neither (functions.sh). CPU only (the functions are
# evaluated in Python), for a machine with many cores: about 15 minutes on 16. Appends to
# $OUT/quality-heldout.jsonl (runs already there are skipped; a run cut short continues where
# it stopped), then writes $OUT/quality-heldout.md.
#
#   PYTHON=venv/bin/python OUT=bench/results bench/quality/heldout.sh [JOBS]
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
{ nproc | sed 's/^/cores: /'; lscpu | grep 'Model name'; date -u; } > "$OUT/quality-heldout-machine.txt"
run() { "$py" "$root/bench/quality/run.py" --out "$OUT/quality-heldout.jsonl" --seeds 10 --jobs "$jobs" "$@"; }
run --workloads held-out --budgets 20000/1000 --samplers tpe,ga,random,cmaes
run --workloads held-out-large --budgets 200000/4096 --samplers tpe,ga,random,cmaes
"$py" "$root/bench/quality/report.py" "$OUT/quality-heldout.jsonl" --reference tpe --markdown "$OUT/quality-heldout.md"
