#!/usr/bin/env bash
# The held-out set's six 200,000 / 4,096 cells (bench/quality/suites.py, HELD_OUT_LARGE), 10
# seeds: batch TPE as it is and with the evolve operator (docs/tpe.md, "Evolve"), each at
# pipeline depth 2 (the default) and 1, against CMA-ES (`cmaes`, population = batch, IPOP,
# depth 1). CPU only, for a machine with many cores (about 3 minutes on 16). Appends to
# $OUT/quality-heldout-large.jsonl (runs already there are skipped), then writes the table
# $OUT/quality-heldout-large.md.
#
#   PYTHON=venv/bin/python OUT=bench/results bench/quality/heldout_large.sh [JOBS]
# On a machine without network: BIN names the folder holding quality_server and WHEELS a
# folder of wheels of numpy, cmaes and coco-experiment (bench/quality/requirements.txt's
# versions; scipy only for the table), unpacked here (no pip).
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
evolve='tpe{"operators": ["joint", "marginal", "recombine", "evolve"]}'
run() {
  "$py" "$root/bench/quality/run.py" --out "$OUT/quality-heldout-large.jsonl" --seeds 10 --jobs "$jobs" \
    --workloads held-out-large --budgets 200000/4096 "$@"
}
# run.py takes one tpe{...} sampler per call (its JSON holds commas).
run --samplers tpe
run --samplers "$evolve"
run --depth 1 --samplers tpe
run --depth 1 --samplers "$evolve"
run --samplers cmaes
"$py" "$root/bench/quality/report.py" "$OUT/quality-heldout-large.jsonl" --reference tpe \
  --markdown "$OUT/quality-heldout-large.md" || echo "heldout_large.sh: no table (report.py needs scipy)"
