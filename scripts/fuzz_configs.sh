#!/usr/bin/env bash
# The long mode of the property test of `tpeopt run` (tests/apps/test_random_configs.cpp):
# random small configs, each run by the real program on the CPU, for SECONDS (default 600)
# from seed SEED (default: the clock's seconds), at low priority. Each failure prints its seed
# and config; `TPEOPT_FUZZ_SEED=<seed> TPEOPT_FUZZ_CASES=1 build/tests/tpeopt_tests "[fuzz]"`
# runs one config again. Builds first when BUILD_DIR (default build) has no test binary.
# Usage: scripts/fuzz_configs.sh [SECONDS] [SEED]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BUILD_DIR:-$root/build}"
seconds="${1:-600}"
seed="${2:-$(date +%s)}"
[ -x "$build/tests/tpeopt_tests" ] || "$root/scripts/build.sh" "$build"
echo "fuzz_configs: random configs from seed $seed for $seconds s"
TPEOPT_FUZZ_SECONDS="$seconds" TPEOPT_FUZZ_SEED="$seed" exec nice -n 10 "$build/tests/tpeopt_tests" "[fuzz]"
