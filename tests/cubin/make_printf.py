#!/usr/bin/env python3
"""Compiles printf.cu to printf.ptx with NVRTC (for compute_50), as build.sh expects.

Needs NVIDIA's NVRTC through cuda-python (`pip install cuda-python nvidia-cuda-nvrtc-cu12`)."""
import os
import sys

from cuda.bindings import nvrtc

here = os.path.dirname(os.path.abspath(__file__))
src = open(os.path.join(here, "printf.cu"), "rb").read()
err, prog = nvrtc.nvrtcCreateProgram(src, b"printf.cu", 0, [], [])
opts = [b"--gpu-architecture=compute_50"]
(res,) = nvrtc.nvrtcCompileProgram(prog, len(opts), opts)
if res != nvrtc.nvrtcResult.NVRTC_SUCCESS:
    _, n = nvrtc.nvrtcGetProgramLogSize(prog)
    log = b" " * n
    nvrtc.nvrtcGetProgramLog(prog, log)
    sys.exit(log.decode())
_, n = nvrtc.nvrtcGetPTXSize(prog)
ptx = b" " * n
nvrtc.nvrtcGetPTX(prog, ptx)
with open(os.path.join(here, "printf.ptx"), "wb") as f:
    f.write(ptx.rstrip(b"\0"))
print("printf.cu -> printf.ptx")
