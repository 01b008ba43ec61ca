#!/usr/bin/env bash
# Installs the tpeopt Python package as the README says (`pip install .`, with the test
# extras, into a virtual environment under the build folder) and runs its tests
# (python/tests), then the Optuna export's tests again with the lowest Optuna declared, then
# the quality benchmark's own tests (its paired rule and its sets: bench/quality/test_*.py,
# with the benchmark's scipy). The C++ build (scripts/build.sh) must exist: the tests compare
# with the command line, and pip builds the module in that same build folder with that build's
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
# scikit-build-core clears the CMake cache of a folder it built in from another isolated
# environment (its record, .skbuild-info.json), and pip's is a new temporary one each time:
# a second install would reconfigure with the default compiler and rebuild everything.
rm -f "$build/.skbuild-info.json"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "$root[test]" \
  --config-settings=build-dir="$build" \
  --config-settings=cmake.define.TPEOPT_CUDA="$(setting TPEOPT_CUDA)" \
  --config-settings=cmake.define.TPEOPT_MPI="$(setting TPEOPT_MPI)" \
  --config-settings=cmake.define.TPEOPT_BUILD_TESTS="$(setting TPEOPT_BUILD_TESTS)"
cd "$root"
TPEOPT_CLI="$build/apps/tpeopt" "$venv/bin/python" -m pytest -q -p no:cacheprovider "$root/python/tests" "$@"

# The lowest Optuna pyproject.toml allows (its "optuna>=X" extra), for the Optuna tests only:
# that one wheel in a folder of its own put first on the path (--no-deps: its dependencies are
# the ones Optuna 5 brought, which cover the lowest's), instead of a second environment.
lowest="$(sed -n 's/^optuna = \["optuna>=\([0-9.]*\)"\]$/\1/p' "$root/pyproject.toml")"
[ -n "$lowest" ] || { echo "test_python.sh: no optuna>=X extra in pyproject.toml" >&2; exit 2; }
old_optuna="$build/python-optuna-$lowest"
[ -f "$old_optuna/optuna/version.py" ] ||
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps --target "$old_optuna" "optuna==$lowest"
echo "test_python.sh: the Optuna tests again with Optuna $lowest"
PYTHONPATH="$old_optuna" TPEOPT_CLI="$build/apps/tpeopt" TPEOPT_EXPECT_OPTUNA="$lowest" "$venv/bin/python" -m pytest -q \
  -p no:cacheprovider "$root/python/tests/test_optuna_export.py"

# The quality benchmark's tests need scipy (its paired test), pinned in the benchmark's
# requirements; the package's tests above ran without it. That scipy needs Python 3.11 or
# later (the package itself runs on 3.9): on an older Python they are skipped, saying so.
scipy_pin="$(sed -n 's/^\(scipy==[0-9.]*\).*/\1/p' "$root/bench/quality/requirements.txt" | head -1)"
[ -n "$scipy_pin" ] || { echo "test_python.sh: no scipy==X line in bench/quality/requirements.txt" >&2; exit 2; }
if "$venv/bin/python" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "$scipy_pin"
  echo "test_python.sh: the quality benchmark's tests"
  "$venv/bin/python" -m pytest -q -p no:cacheprovider "$root/bench/quality/test_report.py" \
    "$root/bench/quality/test_suites.py"
else
  echo "test_python.sh: the quality benchmark's tests skipped: $scipy_pin needs Python 3.11 or later"
fi
