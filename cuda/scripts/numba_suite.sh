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
        s=$?
    else
        # SHARDS pytest processes in parallel, each given every SHARDS-th test module of the
        # package (logs target/numba-suite-PACKAGE.N.log), their summaries then added up.
        shards="${SHARDS:-1}"
        dir=$("$venv/bin/python" -c "import importlib, os; print(os.path.dirname(importlib.import_module('$p').__file__))")
        # Modules by name (--pyargs), so that the tests that start Python subprocesses
        # (multiprocessing's spawn) can import them again.
        mapfile -t files < <(cd "$dir" && ls test_*.py | sort | sed "s/\.py\$//; s/^/$p./")
        rm -f "target/numba-suite-$p".*.log
        pids=()
        for ((k = 0; k < shards; k++)); do
            mine=()
            for ((i = k; i < ${#files[@]}; i += shards)); do mine+=("${files[$i]}"); done
            PYTHONPATH="$root/cuda/scripts${PYTHONPATH:+:$PYTHONPATH}" \
                "$warpjit" cuda -- "$venv/bin/python" -m pytest -p warpjit_numba_plugin --pyargs "${mine[@]}" \
                -v -rfEs --tb=short -p no:cacheprovider --import-mode=importlib \
                >"target/numba-suite-$p.$k.log" 2>&1 &
            pids+=($!)
        done
        s=0
        for pid in "${pids[@]}"; do wait "$pid" || s=$?; done
        cat "target/numba-suite-$p".*.log >"$log"
        for kind in passed failed skipped error xfailed xpassed; do
            n=$(grep -a -h -E '^=+ .* in [0-9.]+s' "target/numba-suite-$p".*.log \
                | grep -o -E "[0-9]+ $kind" | awk '{n += $1} END {print n + 0}')
            echo "$kind $n"
        done >"target/numba-suite-$p.counts"
    fi
    set -e
    [ $s -ne 0 ] && status=$s
    if [ -f "target/numba-suite-$p.counts" ] && [ "$p" != numba.cuda.tests.doc_examples ]; then
        echo "$p: $(tr '\n' ' ' <"target/numba-suite-$p.counts") (log: $log)"
    else
        echo "$p: $(grep -a -E '^(Ran |OK|FAILED|=+ .*(passed|failed|error).* =+$)' "$log" | tr '\n' ' ') (log: $log)"
    fi
done
exit $status
