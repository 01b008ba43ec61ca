#!/usr/bin/env bash
# Formats the C++ and CUDA sources with the repository's .clang-format.
#
#   scripts/format.sh [FILE...]           format the files in place (default: every tracked
#                                         .cpp, .hpp, .cu and .cuh file)
#   scripts/format.sh --check [FILE...]   change nothing: name each file that formatting would
#                                         change, with the number of lines, and exit 1 if any
#
# CLANG_FORMAT picks the binary (default: clang-format; the style needs version 14 or later).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cf="${CLANG_FORMAT:-clang-format}"
check=0
if [ "${1:-}" = "--check" ]; then check=1; shift; fi
if ! command -v "$cf" > /dev/null; then
  echo "format.sh: $cf not found (apt-get install clang-format, or set CLANG_FORMAT)" >&2
  exit 2
fi
files=("$@")
if [ ${#files[@]} -eq 0 ]; then
  mapfile -t files < <(git -C "$root" ls-files '*.cpp' '*.hpp' '*.cu' '*.cuh' | sed "s|^|$root/|")
fi
changed=0
for f in "${files[@]}"; do
  [ -f "$f" ] || { echo "format.sh: $f: no such file" >&2; exit 2; }
  case "$f" in *.cpp|*.hpp|*.cu|*.cuh|*.h|*.cc) ;; *) echo "format.sh: $f: not a C++ or CUDA source" >&2; exit 2 ;; esac
  if [ $check = 1 ]; then
    n=$("$cf" --style="file:$root/.clang-format" "$f" | diff -U0 "$f" - | grep -c '^[-+][^-+]' || true)
    if [ "$n" -gt 0 ]; then echo "$f: $n lines would change"; changed=$((changed + 1)); fi
  else
    "$cf" --style="file:$root/.clang-format" -i "$f"
  fi
done
if [ $check = 1 ] && [ $changed -gt 0 ]; then
  echo "format.sh: $changed of ${#files[@]} files are not formatted (scripts/format.sh FILE... formats them)" >&2
  exit 1
fi
