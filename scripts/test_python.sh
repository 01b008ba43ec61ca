#!/usr/bin/env bash
# Installs the tpeopt Python package as the README says (`pip install .`, here into a
# virtual environment under the build folder, with the test extras) and runs its tests
# (python/tests). The C++ build (scripts/build.sh) must exist: the tests compare with the
# command line. Usage: scripts/test_python.sh [BUILD_DIR] [pytest args...]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-${BUILD_DIR:-$root/build}}"
shift || true
venv="$build/python-venv"
# --system-site-packages: numpy, pandas and optuna already installed are used as they are.
[ -x "$venv/bin/python" ] || python3 -m venv --system-site-packages "$venv"
# CI has no GPU: the package is built without the CUDA executor (docs/python.md, "Install").
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "$root[test]" \
  --config-settings=cmake.define.TPEOPT_CUDA=OFF
cd "$root"
TPEOPT_CLI="$build/apps/tpeopt" "$venv/bin/python" -m pytest -q -p no:cacheprovider "$root/python/tests" "$@"
