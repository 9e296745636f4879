#!/usr/bin/env python3
"""Compile the CUDA sources of tests/cubin to PTX with NVIDIA's NVRTC, for compute_50.

Usage: cu2ptx.py [FILE.cu ...]   (default: every *.cu beside this script)

FILE.cu becomes FILE.ptx; simd.cu also becomes simd_O0.ptx, the same PTX, which build.sh
compiles at -O0 (what ptxas writes unoptimised). Then build.sh makes the cubins. NVRTC comes from
the `nvidia-cuda-nvrtc-cu12` wheel through `cuda-python` (`cuda.bindings.nvrtc`); the committed
PTX was made by NVRTC 12.9. Prints NVRTC's version and log (sm_50 is deprecated: a warning).
"""
import pathlib
import sys

from cuda.bindings import nvrtc

HERE = pathlib.Path(__file__).resolve().parent
OPTIONS = [b"--gpu-architecture=compute_50", b"-default-device"]
# Sources whose PTX is also compiled at -O0 (under the name STEM_O0.ptx).
ALSO_O0 = {"simd"}


def check(result):
    err, *rest = result
    if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        raise SystemExit(f"NVRTC: {nvrtc.nvrtcGetErrorString(err)[1].decode()}")
    return rest[0] if len(rest) == 1 else rest


def compile_cu(path):
    prog = check(nvrtc.nvrtcCreateProgram(path.read_bytes(), path.name.encode(), 0, [], []))
    err, = nvrtc.nvrtcCompileProgram(prog, len(OPTIONS), OPTIONS)
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
    paths = [pathlib.Path(a) for a in args] or sorted(HERE.glob("*.cu"))
    for path in paths:
        ptx = compile_cu(path)
        outs = [path.with_suffix(".ptx")]
        if path.stem in ALSO_O0:
            outs.append(path.with_name(f"{path.stem}_O0.ptx"))
        for out in outs:
            out.write_bytes(ptx)
            print(f"  {path.name} -> {out.name} ({len(ptx)} bytes)")


if __name__ == "__main__":
    main(sys.argv[1:])
