#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan) and runs each for SECONDS
# (default 600) on its corpus in fuzz/corpus/<target>. New inputs that grow coverage
# are added to the corpus. Usage: scripts/fuzz.sh [SECONDS] [TARGET...]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
seconds="${1:-600}"; shift || true
build="${FUZZ_BUILD_DIR:-$root/build-fuzz}"
mkdir -p "$build"
command -v clang++ >/dev/null || { apt-get update -qq && apt-get install -y -qq clang; }
flags=(-std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -DFMT_HEADER_ONLY
       -I"$root" -isystem /usr/include/readerwriterqueue)
common_src=("$root"/common/error.cpp "$root"/common/digest.cpp "$root"/tpe/search_space.cpp
            "$root"/io/json_fields.cpp "$root"/config/study_config.cpp)
declare -A sources=(
  [config]="$root/fuzz/fuzz_config.cpp"
)
for extra in "$root"/fuzz/fuzz_*.cpp; do
  name="$(basename "$extra" .cpp)"; name="${name#fuzz_}"
  [ -n "${sources[$name]:-}" ] || sources[$name]="$extra"
done
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${!sources[@]}")
for t in "${targets[@]}"; do
  src="${sources[$t]}"
  # Each target lists the extra sources it needs on a line "// fuzz-sources: a.cpp b.cpp".
  mapfile -t more < <(grep -oP '(?<=// fuzz-sources: ).*' "$src" | tr ' ' '\n' | sed "s#^#$root/#")
  echo "fuzz: building $t"
  clang++ "${flags[@]}" "$src" "${common_src[@]}" "${more[@]}" -o "$build/fuzz_$t"
  mkdir -p "$root/fuzz/corpus/$t"
  echo "fuzz: running $t for ${seconds}s"
  "$build/fuzz_$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=4096 \
    "$root/fuzz/corpus/$t" 2>&1 | tail -n 5
done
