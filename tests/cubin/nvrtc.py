#!/usr/bin/env python3
"""Compile the CUDA C++ sources of tests/cubin to PTX with NVIDIA's NVRTC, for compute_50.

    python3 nvrtc.py              # every source in SOURCES below
    python3 nvrtc.py switch.cu    # only the named ones

Each FILE.cu becomes the .ptx file(s) SOURCES names beside it; build.sh then makes the cubins
with ptxas for sm_50. NVRTC comes from the `nvidia-cuda-nvrtc-cu12` wheel through `cuda-python`
(`cuda.bindings.nvrtc`); sources that use cooperative groups also need the headers of the
`nvidia-cuda-runtime-cu12` and `nvidia-cuda-cccl-cu12` wheels of the same Python. The committed
PTX was made by NVRTC 12.9; the script prints NVRTC's version and each source's log (sm_50 is
deprecated: NVRTC warns).

The options of each source are the ones its committed PTX was made with, so running the script
with NVRTC 12.9 rewrites the committed files byte for byte.
"""
import pathlib
import sys

from cuda.bindings import nvrtc

HERE = pathlib.Path(__file__).resolve().parent
ARCH = b"--gpu-architecture=compute_50"
DEFAULT_DEVICE = b"-default-device"  # functions without __global__/__device__ are device code
COOPERATIVE = "cooperative"  # the source includes cooperative_groups.h (C++17, wheel headers)

# source: (options beyond ARCH, outputs, whether the PTX ends with an added newline, header line)
SOURCES = {
    # SIMD intrinsics; the same PTX is also compiled at -O0 by build.sh (`*_O0.ptx`).
    "simd.cu": ([DEFAULT_DEVICE], ["simd.ptx", "simd_O0.ptx"], False, None),
    "fences.cu": ([DEFAULT_DEVICE], ["fences.ptx"], False, None),
    "spin.cu": ([DEFAULT_DEVICE, COOPERATIVE], ["spin.ptx"], True, None),
    "gridbar.cu": ([DEFAULT_DEVICE, COOPERATIVE], ["gridbar.ptx"], True, None),
    "cg_grid.cu": ([DEFAULT_DEVICE, COOPERATIVE], ["cg_grid.ptx"], True, None),
    "params.cu": (
        [DEFAULT_DEVICE],
        ["params.ptx"],
        False,
        "// Made from params.cu by nvrtc.py (NVRTC {major}.{minor}, compute_50).\n",
    ),
    "switch.cu": ([], ["switch.ptx"], False, None),
    "fnptr.cu": ([], ["fnptr.ptx"], False, None),
    "printf.cu": ([], ["printf.ptx"], False, None),
}


def check(result):
    err, *rest = result
    if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        raise SystemExit(f"NVRTC: {nvrtc.nvrtcGetErrorString(err)[1].decode()}")
    return rest[0] if len(rest) == 1 else rest


def include_dirs():
    """The include directories of the NVIDIA wheels (cuda_runtime, cuda_cccl) of this Python."""
    import nvidia

    dirs = []
    for root in nvidia.__path__:
        for name in ("cuda_runtime", "cuda_cccl"):
            inc = pathlib.Path(root) / name / "include"
            if inc.is_dir():
                dirs.append(inc)
    if len(dirs) < 2:
        raise SystemExit("need the nvidia-cuda-runtime-cu12 and nvidia-cuda-cccl-cu12 wheels")
    return dirs


def options_of(extra):
    options = [ARCH]
    for opt in extra:
        if opt == COOPERATIVE:
            options.append(b"-std=c++17")
            options += [b"-I" + str(d).encode() for d in include_dirs()]
        else:
            options.append(opt)
    return options


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
    names = [pathlib.Path(a).name for a in args] or list(SOURCES)
    for name in names:
        if name not in SOURCES:
            raise SystemExit(f"{name}: not a source of this folder (see SOURCES in nvrtc.py)")
        extra, outs, newline, header = SOURCES[name]
        ptx = compile_cu(HERE / name, options_of(extra))
        if newline:
            ptx += b"\n"
        if header:
            ptx = header.format(major=major, minor=minor).encode() + ptx
        for out in outs:
            (HERE / out).write_bytes(ptx)
            print(f"  {name} -> {out} ({len(ptx)} bytes)")


if __name__ == "__main__":
    main(sys.argv[1:])
