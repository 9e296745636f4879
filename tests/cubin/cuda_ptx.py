#!/usr/bin/env python3
"""Compile the CUDA C++ sources of tests/cubin that use cooperative groups to PTX with NVIDIA's
NVRTC, for compute_50.

Usage: cuda_ptx.py [FILE.cu ...]   (default: spin.cu, gridbar.cu and cg_grid.cu)

FILE.cu becomes FILE.ptx beside it; build.sh then makes the cubins with ptxas. NVRTC comes from
the `nvidia-cuda-nvrtc-cu12` wheel through `cuda-python` (`cuda.bindings.nvrtc`); the headers
(`cooperative_groups.h` and the `nv/target` it includes) from the `nvidia-cuda-runtime-cu12` and
`nvidia-cuda-cccl-cu12` wheels of the same Python. The committed PTX was made by NVRTC 12.9.
NVRTC warns that compute_50 is deprecated; the warning is printed with its log.
"""
import pathlib
import sys

import nvidia
from cuda.bindings import nvrtc

HERE = pathlib.Path(__file__).resolve().parent
SOURCES = ["spin.cu", "gridbar.cu", "cg_grid.cu"]


def include_dirs():
    """The include directories of the NVIDIA wheels (cuda_runtime, cuda_cccl) of this Python."""
    dirs = []
    for root in nvidia.__path__:
        for name in ("cuda_runtime", "cuda_cccl"):
            inc = pathlib.Path(root) / name / "include"
            if inc.is_dir():
                dirs.append(inc)
    if len(dirs) < 2:
        raise SystemExit("need the nvidia-cuda-runtime-cu12 and nvidia-cuda-cccl-cu12 wheels")
    return dirs


def check(result):
    err, *rest = result
    if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        raise SystemExit(f"NVRTC: {nvrtc.nvrtcGetErrorString(err)[1].decode()}")
    return rest[0] if len(rest) == 1 else rest


def compile_cu(path, options):
    prog = check(nvrtc.nvrtcCreateProgram(path.read_bytes(), path.name.encode(), 0, [], []))
    err, = nvrtc.nvrtcCompileProgram(prog, len(options), options)
    log = b" " * check(nvrtc.nvrtcGetProgramLogSize(prog))
    check(nvrtc.nvrtcGetProgramLog(prog, log))
    text = log.decode(errors="replace").strip(" \0\n")
    if text:
        print(f"{path.name}: {text}")
    if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        raise SystemExit(f"{path.name}: compilation failed")
    ptx = b" " * check(nvrtc.nvrtcGetPTXSize(prog))
    check(nvrtc.nvrtcGetPTX(prog, ptx))
    check(nvrtc.nvrtcDestroyProgram(prog))
    return ptx.rstrip(b" \0")


def main(args):
    major, minor = check(nvrtc.nvrtcVersion())
    print(f"NVRTC {major}.{minor}")
    options = [b"--gpu-architecture=compute_50", b"-default-device", b"-std=c++17"]
    options += [b"-I" + str(d).encode() for d in include_dirs()]
    paths = [pathlib.Path(a) for a in args] or [HERE / s for s in SOURCES]
    for path in paths:
        ptx = compile_cu(path, options)
        out = path.with_suffix(".ptx")
        out.write_bytes(ptx + b"\n")
        print(f"  {path.name} -> {out.name} ({len(ptx)} bytes)")


if __name__ == "__main__":
    main(sys.argv[1:])
