#!/usr/bin/env bash
# Installs the tpeopt Python package as the README says (`pip install .`, with the test
# extras, into a virtual environment under the build folder) and runs its tests
# (python/tests). The C++ build (scripts/build.sh) must exist: the tests compare with the
# command line, and pip builds the module in that same build folder with that build's
# settings, so it compiles only the module (every library there is position-independent)
# instead of the whole library a second time.
# Usage: scripts/test_python.sh [BUILD_DIR] [pytest args...]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-${BUILD_DIR:-$root/build}}"
shift || true
build="$(cd "$build" && pwd)"
cache="$build/CMakeCache.txt"
[ -f "$cache" ] || { echo "test_python.sh: $build has no CMake build (run scripts/build.sh first)" >&2; exit 2; }
setting() { sed -n "s/^$1:[A-Z]*=//p" "$cache"; }

venv="$build/python-venv"
# --system-site-packages: numpy, pandas and optuna already installed are used as they are.
[ -x "$venv/bin/python" ] || python3 -m venv --system-site-packages "$venv"
# The build folder's own choices, so that pip's configure changes nothing the build compiled.
export CMAKE_GENERATOR="$(setting CMAKE_GENERATOR)"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "$root[test]" \
  --config-settings=build-dir="$build" \
  --config-settings=cmake.define.TPEOPT_CUDA="$(setting TPEOPT_CUDA)" \
  --config-settings=cmake.define.TPEOPT_MPI="$(setting TPEOPT_MPI)" \
  --config-settings=cmake.define.TPEOPT_BUILD_TESTS="$(setting TPEOPT_BUILD_TESTS)"
cd "$root"
TPEOPT_CLI="$build/apps/tpeopt" "$venv/bin/python" -m pytest -q -p no:cacheprovider "$root/python/tests" "$@"
