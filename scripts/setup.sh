#!/usr/bin/env bash
# Installs every build and test dependency of tpeopt from Debian's packages.
# Idempotent; run as root (or with sudo available). The CUDA toolkit is optional:
# when nvcc is on PATH the CUDA executor is built too. clang (Debian's Clang 14) builds
# CI's second configuration and the fuzzers (scripts/fuzz.sh).
set -euo pipefail

packages=(
  build-essential cmake ninja-build git
  clang
  libfmt-dev nlohmann-json3-dev libboost-random-dev
  libreaderwriterqueue-dev
  catch2 libcli11-dev
  libopenmpi-dev openmpi-bin
  python3 python3-dev python3-venv
  chromium
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
  sudo_cmd=""
  if [ "$(id -u)" -ne 0 ]; then sudo_cmd="sudo"; fi
  echo "setup: installing ${missing[*]}"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "setup: all Debian packages present"
fi

if [ "${TPEOPT_CUDA:-AUTO}" = OFF ]; then
  echo "setup: TPEOPT_CUDA=OFF; building the CPU executor only"
elif command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then
  echo "setup: CUDA toolkit found; the CUDA executor will be built"
else
  echo "setup: no CUDA toolkit; building the CPU executor only"
fi
