#!/usr/bin/env bash
# Sets up, builds and runs the test suite (everything but the [gpu] tests, which run
# on a GPU machine: scripts/gpu_check.sh), then installs the Python package and runs its
# tests (scripts/test_python.sh). This is what CI runs (.ci/run).
# Usage: scripts/test.sh [ctest args...]. The environment: BUILD_DIR (default build),
# scripts/build.sh's TPEOPT_CUDA and TPEOPT_CMAKE_ARGS, TPEOPT_PYTHON_TESTS=0 to skip the
# Python package's tests.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BUILD_DIR:-$root/build}"
"$root/scripts/build.sh" "$build"
(cd "$build" && ctest --output-on-failure --parallel "$(nproc)" "$@")
[ "${TPEOPT_PYTHON_TESTS:-1}" = 0 ] || "$root/scripts/test_python.sh" "$build"
