#!/usr/bin/env bash
# Which source files outside a strategy's folder name it (docs/design.md, "Strategies"):
#   scripts/strategy_mentions.sh [NAME ...]      (default: every strategy of strategies/CMakeLists.txt)
# prints, per strategy, the count and the files, and exits 1 when a strategy is named in
# more than one file outside its folder (its line in strategies/CMakeLists.txt is the one).
# Source: *.cpp *.hpp *.cu *.cuh and CMakeLists.txt of the product (common, tpe, io,
# strategies, gpu, engine, scaleout, study, storage, reports, apps and the top
# CMakeLists.txt); not tests, docs, benchmarks, examples or scripts. A mention is the name as
# a word, `_` counting as a separator (ema_cross_strategy.hpp mentions ema_cross, a comment
# saying "ema_cross" too). The functions strategy is named like an English word; for it a
# mention is a code reference only: "functions" in quotes, functions/ or functions:: or
# functions_ (the word in prose, "TPEOPT_HD functions", is not a mention).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
names=("$@")
status=0
if [ ${#names[@]} -eq 0 ]; then
  read -r -a names <<< "$(sed -n 's/^set(TPEOPT_STRATEGIES \(.*\))$/\1/p' strategies/CMakeLists.txt)"
fi
sources() {
  find common tpe io strategies gpu engine scaleout study storage reports apps \( -name '*.cpp' -o -name '*.hpp' -o -name '*.cu' -o -name '*.cuh' \
    -o -name 'CMakeLists.txt' \) -not -path "strategies/$1/*" | sort
  echo CMakeLists.txt
}
for name in "${names[@]}"; do
  if [ "$name" = functions ]; then
    pattern="\"$name\"|(^|[^A-Za-z0-9_])$name(/|::|_[A-Za-z0-9])|TPEOPT_STRATEGIES.*[ (]$name[ )]"
  else
    pattern="(^|[^A-Za-z0-9])$name([^A-Za-z0-9]|$)"
  fi
  files=$(sources "$name" | xargs grep -lE "$pattern" || true)
  count=$(printf '%s' "$files" | grep -c . || true)
  echo "$name: $count ${files//$'\n'/ }"
  [ "$count" -le 1 ] || status=1
done
exit "$status"
