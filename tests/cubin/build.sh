#!/usr/bin/env bash
# Rebuild every tests/cubin/*.cubin from its .ptx with NVIDIA's ptxas for sm_50 (-O3; -O0 for
# files named *_O0.ptx).
# ptxas is taken from $PTXAS, else from PATH. Prints the ptxas version that made the files.
# The .ptx of each CUDA C++ source (*.cu) is itself NVRTC's (compute_50): python3 nvrtc.py
# (needs cuda-python's NVRTC bindings; its SOURCES table gives each source's options).
set -euo pipefail
cd "$(dirname "$0")"
PTXAS="${PTXAS:-$(command -v ptxas || true)}"
if [ -z "$PTXAS" ] || [ ! -x "$PTXAS" ]; then
    echo "build.sh: no ptxas: set PTXAS=/path/to/ptxas or put it on PATH" >&2
    exit 2
fi
echo "ptxas: $PTXAS"
"$PTXAS" --version | sed -n 's/^Cuda compilation tools, /  /p'
for ptx in *.ptx; do
    cubin="${ptx%.ptx}.cubin"
    opt=-O3
    case "$ptx" in *_O0.ptx) opt=-O0 ;; esac   # kernels kept at -O0 (what ptxas writes unoptimised)
    "$PTXAS" -arch=sm_50 "$opt" -o "$cubin" "$ptx"
    echo "  $ptx -> $cubin ($(wc -c <"$cubin") bytes)"
done
