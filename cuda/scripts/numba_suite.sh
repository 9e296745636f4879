#!/usr/bin/env bash
# Runs numba-cuda's own test suite under warpjit's CUDA driver (warpjit cuda --) and prints
# its summary:
#
#   cuda/scripts/numba_suite.sh [VENV] [PACKAGES...]
#
# VENV is a virtual environment made by numba_env.sh (default target/numba-venv; NUMBA_VENV
# overrides it). PACKAGES default to numba.cuda.tests.doc_examples and numba.cuda.tests.cudapy.
# doc_examples runs with Numba's runner (`python -m numba.runtests`); cudapy with pytest and the
# plugin warpjit_numba_plugin.py beside this script (numba's runner cannot import cudapy: one
# module skips itself with pytest at import), which defines the fixture numba-cuda's repository
# conftest has and its wheel lacks. WARPJIT (default target/release/warpjit, built if missing)
# runs the commands. Output goes to target/numba-suite-PACKAGE.log.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
venv="${1:-${NUMBA_VENV:-target/numba-venv}}"
shift || true
packages=("$@")
if [ ${#packages[@]} -eq 0 ]; then
    packages=(numba.cuda.tests.doc_examples numba.cuda.tests.cudapy)
fi
warpjit="${WARPJIT:-target/release/warpjit}"
if [ ! -x "$warpjit" ] || [ ! -f "$(dirname "$warpjit")/libcuda.so" ]; then
    cargo build --release --locked -p warpjit -p warpjit-cuda
fi
status=0
for p in "${packages[@]}"; do
    log="target/numba-suite-$p.log"
    set +e
    if [ "$p" = numba.cuda.tests.doc_examples ]; then
        "$warpjit" cuda -- "$venv/bin/python" -m numba.runtests -v -m "${JOBS:-2}" "$p" >"$log" 2>&1
    else
        PYTHONPATH="$root/cuda/scripts${PYTHONPATH:+:$PYTHONPATH}" \
            "$warpjit" cuda -- "$venv/bin/python" -m pytest -p warpjit_numba_plugin --pyargs "$p" \
            -v -rfEs --tb=short -p no:cacheprovider --import-mode=importlib >"$log" 2>&1
    fi
    s=$?
    set -e
    [ $s -ne 0 ] && status=$s
    echo "$p: $(grep -a -E '^(Ran |OK|FAILED|=+ .*(passed|failed|error).* =+$)' "$log" | tr '\n' ' ') (log: $log)"
done
exit $status
