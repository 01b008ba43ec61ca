# Sourced by the quality scripts that may run on a machine without network (heldout.sh,
# gpu.sh): BIN names the folder holding quality_server, WHEELS a folder of wheels of
# bench/quality/requirements.txt's packages, unpacked into a fresh folder on PYTHONPATH (no
# pip). Either may be unset: then the environment's own are used.
#   quality_offline_env PYTHON
quality_offline_env() {
  if [ -n "${BIN:-}" ]; then export TPEOPT_QUALITY_SERVER="$(cd "$BIN" && pwd)/quality_server"; fi
  if [ -n "${WHEELS:-}" ]; then
    local pylib
    pylib="$(mktemp -d)"
    "$1" - "$WHEELS" "$pylib" <<'PY'
import sys, zipfile, pathlib
for w in sorted(pathlib.Path(sys.argv[1]).glob("*.whl")):
    zipfile.ZipFile(w).extractall(sys.argv[2])
PY
    export PYTHONPATH="$pylib"
  fi
}
