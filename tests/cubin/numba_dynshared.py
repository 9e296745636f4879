# numba-cuda's test_sm.py test_dynshared_slice_gaps (numba-cuda 0.30.4, CUDA 12.9 wheels), for
# tests/device.rs. numba_dynshared.cubin is the module Numba handed the driver, recorded by
# warpjit's driver:
#   warpjit cuda --record DIR -- python numba_dynshared.py   (then DIR/module-*.cubin)
# The kernel asks for 28 bytes of dynamic shared memory (7 int32) and ptxas reads its last four
# elements with one 128-bit LDS at offset 0x10, past the 28 bytes: the GPU allocates shared
# memory in 256-byte units, so that read is inside the CTA's memory.
import numpy as np
from numba import cuda, int32


@cuda.jit
def slice_gaps(x):
    dynsmem = cuda.shared.array(0, dtype=int32)
    sm1 = dynsmem[1:3]
    sm2 = dynsmem[4:6]
    for i in range(7):
        dynsmem[i] = 99
    sm1[0] = 1
    sm1[1] = 2
    sm2[0] = 3
    sm2[1] = 4
    for i in range(7):
        x[i] = dynsmem[i]


arr = np.zeros(7, dtype=np.int32)
slice_gaps[1, 1, 0, arr.size * arr.dtype.itemsize](arr)
print(arr)
assert (arr == np.array([99, 1, 2, 99, 3, 4, 99], dtype=np.int32)).all()
