#!/usr/bin/env bash
# Sets up a Python virtual environment for running Numba programs and numba-cuda's test suite
# under warpjit's CUDA driver: numba-cuda with its CUDA 12 wheels (NVVM, NVRTC, nvJitLink,
# ptxas, the runtime headers), cuda-python, and what the suite imports (pytest, filecheck,
# ml_dtypes, cffi).
#
#   cuda/scripts/numba_env.sh [VENV]      # default: target/numba-venv
#
# Prints the venv's path last. Needs Python 3.10+ with venv and pip, and PyPI.
set -euo pipefail
cd "$(dirname "$0")/../.."
venv="${1:-target/numba-venv}"
python="${PYTHON:-python3}"
if [ ! -x "$venv/bin/python" ]; then
    "$python" -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --upgrade pip
"$venv/bin/python" -m pip install --quiet "numba-cuda[cu12]" pytest filecheck ml_dtypes cffi \
    cuda-python nvidia-cuda-nvcc-cu12 nvidia-cuda-runtime-cu12
echo "$venv"
