#!/usr/bin/env bash
# The held-out functions (bench/quality/suites.py) at the budgets too heavy for the 2-core
# development box, 10 seeds, in two parts:
#   medium  all 14 at 20,000 / 1,000: tpeopt's TPE, GA and random against CMA-ES (`cmaes`,
#           population = batch, IPOP restarts) -> $OUT/quality-heldout.jsonl
#   large   the six of HELD_OUT_LARGE at 200,000 / 4,096: batch TPE (the default, four
#           operators) and with the three operators joint, marginal, recombine (no evolve:
#           docs/tpe.md, "Evolve"), each at pipeline depth 2 (the default) and 1, against
#           CMA-ES (depth 1) -> $OUT/quality-heldout-large.jsonl
# run.py skips a run its output holds under the same label: `tpe` runs of sampler draws
# version 7 (bench/results before ef4303d) are the three operators', not the default's; write
# into a fresh file rather than one of those.
# NGOpt finishes at neither (functions.sh). CPU only (the functions are evaluated in Python),
# for a machine with many cores: the large part takes about 3 minutes on 16. Appends to the
# part's file (runs already there are skipped; a run cut short continues where it stopped),
# then writes its table beside it (.md; report.py needs scipy).
#
#   PYTHON=venv/bin/python OUT=bench/results bench/quality/heldout.sh [JOBS [PART...]]
# On a machine without network: BIN names the folder holding quality_server and WHEELS a
# folder of bench/quality/requirements.txt's wheels (bench/quality/offline_env.sh).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
py="${PYTHON:-python3}"
OUT="${OUT:-$root/bench/results}"
jobs="${1:-$(nproc)}"
shift || true
parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(medium large)
mkdir -p "$OUT"
source "$root/bench/quality/offline_env.sh"
quality_offline_env "$py"
{ nproc | sed 's/^/cores: /'; lscpu | grep 'Model name'; date -u; } > "$OUT/quality-heldout-machine.txt"
three='tpe{"operators": ["joint", "marginal", "recombine"]}'
for part in "${parts[@]}"; do
  case "$part" in
    medium) file=quality-heldout; set_args=(--workloads held-out --budgets 20000/1000) ;;
    large) file=quality-heldout-large; set_args=(--workloads held-out-large --budgets 200000/4096) ;;
    *) echo "heldout.sh: unknown part $part (medium, large)" >&2; exit 2 ;;
  esac
  run() { "$py" "$root/bench/quality/run.py" --out "$OUT/$file.jsonl" --seeds 10 --jobs "$jobs" "${set_args[@]}" "$@"; }
  if [ "$part" = medium ]; then
    run --samplers tpe,ga,random,cmaes
  else
    # run.py takes one tpe{...} sampler per call (its JSON holds commas).
    run --samplers tpe
    run --samplers "$three"
    run --depth 1 --samplers tpe
    run --depth 1 --samplers "$three"
    run --samplers cmaes
  fi
  "$py" "$root/bench/quality/report.py" "$OUT/$file.jsonl" --reference tpe --markdown "$OUT/$file.md" ||
    echo "heldout.sh: no table for $part (report.py needs scipy)"
done
