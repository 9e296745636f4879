#!/usr/bin/env python3
"""Compile CUDA C++ sources to PTX with NVIDIA's NVRTC, as the fixtures made from `.cu` files were.

    python3 nvrtc.py switch.cu            # writes switch.ptx (then build.sh makes switch.cubin)

Needs the `cuda-python` bindings (`cuda.bindings.nvrtc`) and NVRTC 12.9
(`nvidia-cuda-nvrtc-cu12` on PyPI); options: `-arch=compute_50` only. The PTX is committed, so
the tests need neither.
"""
import sys

from cuda.bindings import nvrtc


def check(result, prog=None):
    err = result[0]
    if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        log = ""
        if prog is not None:
            _, n = nvrtc.nvrtcGetProgramLogSize(prog)
            buf = b" " * n
            nvrtc.nvrtcGetProgramLog(prog, buf)
            log = buf.decode(errors="replace")
        sys.exit(f"nvrtc: {err}\n{log}")
    return result[1:]


def compile_cu(path):
    src = open(path, "rb").read()
    (prog,) = check(nvrtc.nvrtcCreateProgram(src, path.encode(), 0, [], []))
    opts = [b"-arch=compute_50"]
    check(nvrtc.nvrtcCompileProgram(prog, len(opts), opts), prog)
    (n,) = check(nvrtc.nvrtcGetPTXSize(prog))
    ptx = b" " * n
    check(nvrtc.nvrtcGetPTX(prog, ptx))
    return ptx.rstrip(b"\0").decode()


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: nvrtc.py FILE.cu ...")
    _, major, minor = nvrtc.nvrtcVersion()
    print(f"NVRTC {major}.{minor}")
    for cu in sys.argv[1:]:
        out = cu[: -len(".cu")] + ".ptx"
        open(out, "w").write(compile_cu(cu))
        print(f"  {cu} -> {out}")
