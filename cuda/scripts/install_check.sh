#!/usr/bin/env bash
# Checks that `warpjit cuda` works after `cargo install --locked --path .` (which installs the
# warpjit binary only): the installed binary finds the driver library in the source tree it was
# built from, building it there once if it is missing. Installs into a scratch directory and
# runs the C program of cuda/tests/c/ (needs cuda.h: CUDA_INCLUDE, or the
# nvidia-cuda-runtime-cu12 wheel of python3) or, without cuda.h, `true` under warpjit cuda.
# Slow (a release build): not part of CI.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cargo install --locked --path . --root "$scratch/install"
bin="$scratch/install/bin/warpjit"
# Nothing beside the installed binary: the library comes from target/release (built if needed).
test ! -e "$scratch/install/bin/libcuda.so"
include="${CUDA_INCLUDE:-$(python3 -c "import nvidia.cuda_runtime as r; print(list(r.__path__)[0] + '/include')" 2>/dev/null || true)}"
if [ -n "$include" ] && [ -f "$include/cuda.h" ]; then
    mkdir "$scratch/lib"
    "$bin" cuda -- true   # makes sure the library exists (builds it once)
    ln -s "$root/target/release/libcuda.so" "$scratch/lib/libcuda.so"
    cc cuda/tests/c/vadd.c -I"$include" -L"$scratch/lib" -lcuda -o "$scratch/vadd"
    (cd "$scratch" && "$bin" cuda -- ./vadd "$root/tests/cubin/vadd.cubin")
else
    "$bin" cuda -- true
fi
echo "install_check: ok"
