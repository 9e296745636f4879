# A recursive Numba kernel (numba-cuda 0.30.4's recursion_usecases.raise_self_kernel, CUDA 12.9
# wheels), for tests/device.rs. numba_recursion.cubin is the module nvJitLink linked for it:
#   python numba_recursion.py   (writes numba_recursion.cubin; run it under `warpjit cuda --`)
# ptxas cannot bound a recursive function's stack and writes 0xffffffff as its stack size
# (EIATTR_MIN_STACK_SIZE); the driver gives such a kernel the context's stack limit (1 KiB).
from numba import int64
from numba.cuda.tests.cudapy import recursion_usecases as mod

k = mod.raise_self_kernel
k.compile((int64,))
for ov in k.overloads.values():
    with open("numba_recursion.cubin", "wb") as f:
        f.write(bytes(ov._codelibrary.get_cubin().code))
