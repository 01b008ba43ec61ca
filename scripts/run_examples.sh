#!/usr/bin/env bash
# Runs every examples/*.json as a user would, with a few trials on the CPU: each must exit 0.
# A config whose data is generated (data.generate) and not there yet must instead exit 2
# without creating its run directory and print the `tpeopt data generate` command that
# writes the data, on a line of its own; that command is run, then the config again.
# Usage: scripts/run_examples.sh [TPEOPT] [TRIALS]   (default build/apps/tpeopt, 200 trials)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tpeopt="${1:-$root/build/apps/tpeopt}"
tpeopt="$(cd "$(dirname "$tpeopt")" && pwd)/$(basename "$tpeopt")"  # absolute: the loop runs from $root
trials="${2:-200}"
out="$(mktemp -d "${TMPDIR:-/tmp}/tpeopt-examples.XXXXXX")"
trap 'rm -rf "$out"' EXIT
cd "$root"
failed=0
for config in examples/*.json; do
  name="$(basename "$config" .json)"
  run=("$tpeopt" run -c "$config" --executor cpu --trials "$trials" -q -o "$out/$name")
  start=$SECONDS
  set +e
  "${run[@]}" > "$out/$name.log" 2>&1
  code=$?
  set -e
  generate="$(grep '^tpeopt data generate ' "$out/$name.log" || true)"
  if [ "$code" -eq 2 ] && [ -n "$generate" ]; then
    if [ -e "$out/$name" ]; then
      echo "FAIL $name: refused for missing data, but created its run directory"; failed=1; continue
    fi
    echo "     $name: its data is generated; running: $generate"
    read -r -a words <<< "${generate#tpeopt }"
    "$tpeopt" "${words[@]}" > "$out/$name.generate.log" 2>&1 || { echo "FAIL $name: $generate"; cat "$out/$name.generate.log"; failed=1; continue; }
    set +e
    "${run[@]}" > "$out/$name.log" 2>&1
    code=$?
    set -e
  fi
  if [ "$code" -ne 0 ]; then
    echo "FAIL $name: exit $code"; tail -5 "$out/$name.log"; failed=1
  else
    echo "ok   $name ($((SECONDS - start)) s): $(grep -E '^digest' "$out/$name.log")"
  fi
done
exit "$failed"
