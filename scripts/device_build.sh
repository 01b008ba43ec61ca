#!/usr/bin/env bash
# Builds tpeopt on the GPU machine, which has nvcc, CMake, ninja and GCC but none of the
# project's Debian packages: their .deb files (fetched here by `scripts/device_build.sh
# --fetch` into .deps/, ignored by git, carried to the machine with the working tree) are
# unpacked into a prefix that CMake searches. Release, sm_90, static cudart, no MPI.
#   scripts/device_build.sh --fetch                 # here: download the .deb files into .deps/
#   scripts/device_build.sh [BUILD_DIR] [cmake args] # there: unpack, configure, build everything
# The build log (warnings included) is BUILD_DIR/build.log.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
packages=(libfmt-dev libfmt9 nlohmann-json3-dev libboost1.74-dev libboost-random1.74-dev libreaderwriterqueue-dev
          catch2 libcli11-dev)
if [ "${1:-}" = "--fetch" ]; then
  mkdir -p "$root/.deps"
  (cd "$root/.deps" && apt-get download "${packages[@]}")
  exit 0
fi
build="${1:-$root/build-device}"
shift || true
prefix="${DEPS_PREFIX:-/tmp/tpeopt-deps}"
mkdir -p "$prefix"
for f in "$root"/.deps/*.deb; do dpkg -x "$f" "$prefix"; done
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTPEOPT_CUDA=ON -DTPEOPT_MPI=OFF \
  -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH="$prefix/usr" -DCMAKE_INCLUDE_PATH="$prefix/usr/include" "$@" \
  > "$build.configure.log" 2>&1 || { tail -30 "$build.configure.log"; exit 1; }
cmake --build "$build" --parallel "$(nproc)" -- -k 0 > "$build/build.log" 2>&1 || grep -E "error|FAILED" "$build/build.log" | head -40
echo "device_build: $(grep -c 'warning:' "$build/build.log") compiler warnings; $(gcc --version | head -1)"
[ -x "$build/apps/tpeopt" ] && [ -x "$build/tests/tpeopt_tests" ]
