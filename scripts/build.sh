#!/usr/bin/env bash
# Installs the dependencies (scripts/setup.sh), configures and builds tpeopt.
# Usage: scripts/build.sh [BUILD_DIR] [extra cmake args...]   (default BUILD_DIR: build)
# The environment may add configure arguments: TPEOPT_CUDA=OFF builds without the CUDA
# toolkit even where nvcc is installed (ON requires it; default AUTO: when nvcc is found),
# TPEOPT_CMAKE_ARGS="..." (split at spaces) any others, e.g. a compiler.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$root/build}"
shift || true
"$root/scripts/setup.sh"
extra=()
[ -z "${TPEOPT_CUDA:-}" ] || extra+=("-DTPEOPT_CUDA=$TPEOPT_CUDA")
# shellcheck disable=SC2206  # split at spaces on purpose
[ -z "${TPEOPT_CMAKE_ARGS:-}" ] || extra+=($TPEOPT_CMAKE_ARGS)
set -- "${extra[@]}" "$@"
generator=()
command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release "$@"
else
  cmake -S "$root" -B "$build" "$@" >/dev/null
fi
cmake --build "$build" --parallel "$(nproc)"
