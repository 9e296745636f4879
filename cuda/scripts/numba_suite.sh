#!/usr/bin/env bash
# Runs numba-cuda's own test suite under warpjit's CUDA driver (warpjit cuda --), with Numba's
# runner, and prints its summary:
#
#   cuda/scripts/numba_suite.sh [VENV] [TESTS...]
#
# VENV is a virtual environment made by numba_env.sh (default target/numba-venv; NUMBA_VENV
# overrides it); TESTS default to numba.cuda.tests.doc_examples and numba.cuda.tests.cudapy.
# WARPJIT (default target/release/warpjit, built if missing) runs the command; JOBS (default 2)
# is the runner's -m. The whole output goes to target/numba-suite.log.
set -euo pipefail
cd "$(dirname "$0")/../.."
venv="${1:-${NUMBA_VENV:-target/numba-venv}}"
shift || true
tests=("$@")
if [ ${#tests[@]} -eq 0 ]; then
    tests=(numba.cuda.tests.doc_examples numba.cuda.tests.cudapy)
fi
warpjit="${WARPJIT:-target/release/warpjit}"
if [ ! -x "$warpjit" ] || [ ! -f "$(dirname "$warpjit")/libcuda.so" ]; then
    cargo build --release --locked -p warpjit -p warpjit-cuda
fi
log=target/numba-suite.log
set +e
"$warpjit" cuda -- "$venv/bin/python" -m numba.runtests -v -m "${JOBS:-2}" "${tests[@]}" >"$log" 2>&1
status=$?
set -e
grep -a -E '^(Ran |OK|FAILED)' "$log" || true
echo "full output: $log (exit $status)"
exit $status
