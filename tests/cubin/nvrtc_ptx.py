#!/usr/bin/env python3
"""Compile a CUDA C file to PTX for compute_50 with NVIDIA's NVRTC (cuda-python's bindings):
nvrtc_ptx.py SRC.cu OUT.ptx. ptxas (build.sh) then makes the sm_50 cubin from the PTX."""
import sys
from cuda.bindings import nvrtc


def check(result):
    err, *rest = result
    if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        raise SystemExit(f"nvrtc: {err}")
    return rest[0] if len(rest) == 1 else rest


def main():
    src_path, out_path = sys.argv[1], sys.argv[2]
    src = open(src_path, "rb").read()
    prog = check(nvrtc.nvrtcCreateProgram(src, src_path.encode(), 0, [], []))
    opts = [b"--gpu-architecture=compute_50", b"-default-device"]
    err, = nvrtc.nvrtcCompileProgram(prog, len(opts), opts)
    size = check(nvrtc.nvrtcGetProgramLogSize(prog))
    log = b" " * size
    check_log = nvrtc.nvrtcGetProgramLog(prog, log)
    if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        raise SystemExit(f"nvrtc: {err}\n{log.decode(errors='replace')}")
    size = check(nvrtc.nvrtcGetPTXSize(prog))
    ptx = b" " * size
    nvrtc.nvrtcGetPTX(prog, ptx)
    major, minor = check(nvrtc.nvrtcVersion())
    text = ptx.rstrip(b"\0").decode()
    header = f"// Made from {src_path.split('/')[-1]} by nvrtc_ptx.py (NVRTC {major}.{minor}, compute_50).\n"
    open(out_path, "w").write(header + text)
    print(f"{src_path} -> {out_path} (NVRTC {major}.{minor})")


if __name__ == "__main__":
    main()
