# A Numba kernel with launch_bounds=128 (numba-cuda 0.30.4, CUDA 12.9 wheels), for
# tests/device.rs: its .nv.info.NAME has EIATTR_MAX_THREADS (128, 1, 1), and CUDA refuses a
# block of more threads with CUDA_ERROR_INVALID_VALUE (numba-cuda's TestLaunchBounds).
#   python numba_launch_bounds.py   (writes numba_launch_bounds.cubin; run it under `warpjit cuda --`)
from numba import cuda


@cuda.jit("void()", launch_bounds=128)
def f():
    pass


for ov in f.overloads.values():
    with open("numba_launch_bounds.cubin", "wb") as out:
        out.write(bytes(ov._codelibrary.get_cubin().code))
