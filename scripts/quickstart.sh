#!/usr/bin/env bash
# Sets up, builds and runs a real optimization on bundled data. Picks the GPU when
# one is usable, else the CPU (the executor "auto").
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BUILD_DIR:-$root/build}"
"$root/scripts/build.sh" "$build"
cd "$root"
config="${1:-examples/exhaustion_eurusd.json}"
exec "$build/apps/tpeopt" run --config "$config" --executor auto
