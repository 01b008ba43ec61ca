#!/usr/bin/env bash
# The peers benchmark (docs/benchmarks.md, "Peers"): tpeopt's ema_cross against vectorbt (and
# Manifold-BT when its package can be installed), on the same parameter sets and data.
#
#   bench/peers/run_peers.sh [BUILD_DIR] [peers.py check options, e.g. --sets 1000]
#
# 1. creates a virtual environment (bench_data/peers/venv, or $PEERS_VENV) and installs
#    vectorbt from PyPI (and vectorbt-rust, its optional Rust engine, when available),
#    printing the versions; tries Manifold-BT (`pip install manifoldbt`);
# 2. peers.py check: generates the data (the same splitmix64 walk as bench_ema_cross,
#    checked bit for bit), writes tpeopt's trades of every set (bench_ema_cross
#    --trades-out), runs vectorbt on the same sets and asserts that every trade agrees
#    (entry and exit bar, entry and exit fill within 1e-9 relative, the trade count and
#    the compounded return) for the sweep (10,000 sets x 200,000 bars) and the long
#    backtest (1 set x 10,000,000 bars); only then times vectorbt;
# 3. times tpeopt: bench_ema_cross (CPU executor; the CUDA executor too when built with
#    CUDA and a GPU is present, after its own CPU == GPU check).
# Needs: python3 (3.9+), network access to PyPI (or a mirror), BUILD_DIR with
# bench_ema_cross built (default: build). Takes about an hour on a 2-core machine
# (vectorbt's sweep runs twice per engine: once checked, once timed).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-build}
[ $# -gt 0 ] && shift
bench="$build/bench/peers/bench_ema_cross"
if [ ! -x "$bench" ]; then
  echo "run_peers.sh: $bench not found; build it first: ninja -C $build bench_ema_cross" >&2
  exit 1
fi
work=${PEERS_WORKDIR:-bench_data/peers}
venv=${PEERS_VENV:-$work/venv}
mkdir -p "$work"
# A copy of the binary: a rebuild during the run does not change what is measured.
cp "$bench" "$work/bench_ema_cross"
bench="$work/bench_ema_cross"

echo "== machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores; load: $(cut -d' ' -f1-3 /proc/loadavg)"
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/pip" install --quiet vectorbt
echo "== vectorbt $("$venv/bin/python" -c 'import vectorbt; print(vectorbt.__version__)') installed from PyPI"
if "$venv/bin/pip" install --quiet vectorbt-rust 2>/dev/null; then
  echo "== vectorbt-rust $("$venv/bin/python" -c 'import vectorbt_rust; print(vectorbt_rust.__version__)') installed (vectorbt's optional Rust engine)"
else
  echo "== vectorbt-rust: not installable here; vectorbt's numba engine only"
fi
if "$venv/bin/pip" install --quiet manifoldbt 2>/dev/null; then
  echo "== Manifold-BT $("$venv/bin/python" -c 'import manifoldbt; print(getattr(manifoldbt, "__version__", "?"))') installed," \
       "but peers.py has no Manifold-BT runner yet (its fill rules are not mapped to ema_cross): not checked, not timed"
else
  echo "== Manifold-BT (pip install manifoldbt): not available from this machine's package index; skipped."
  echo "   Its published number (10,000 parameter sets x 200,000 bars in 3.5 s on a 4-vCPU runner) is quoted"
  echo "   in docs/benchmarks.md, not measured."
fi

echo "== vectorbt: check every trade against tpeopt, then time"
"$venv/bin/python" "$here/peers.py" check --bench "$bench" --workdir "$work" "$@"

# The same workload sizes for tpeopt (peers.py's other options do not apply to it).
bench_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --bars|--sets|--long-bars|--repeats) bench_args+=("$1" "$2"); shift 2 ;;
    *) shift ;;
  esac
done
echo "== tpeopt: bench_ema_cross (the same sweep grid and long set; CPU executor, CUDA when present)"
"$bench" --repeats 3 ${bench_args[@]+"${bench_args[@]}"}
