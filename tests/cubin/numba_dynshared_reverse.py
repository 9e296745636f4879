# numba-cuda's test_sm.py test_dynshared_slice_nonunit_reverse_stride (numba-cuda 0.30.4, CUDA
# 12.9 wheels), for tests/device.rs. numba_dynshared_reverse.cubin is the module Numba handed
# the driver, recorded by warpjit's driver:
#   warpjit cuda --record DIR -- python numba_dynshared_reverse.py   (then DIR/module-*.cubin)
# dynsmem[-1::-2] needs the dynamic array's length, which the kernel derives from the shared
# memory size in c[0x0][0xfc]: the size asked for (24 bytes), not the 256-byte allocation.
import numpy as np
from numba import cuda, int32


@cuda.jit
def slice_nonunit_reverse_stride(x):
    dynsmem = cuda.shared.array(0, dtype=int32)
    sm1 = dynsmem[-1::-2]
    for i in range(6):
        dynsmem[i] = 99
    sm1[0] = 1
    sm1[1] = 2
    sm1[2] = 3
    for i in range(6):
        x[i] = dynsmem[i]


arr = np.zeros(6, dtype=np.int32)
slice_nonunit_reverse_stride[1, 1, 0, arr.size * arr.dtype.itemsize](arr)
print(arr)
assert (arr == np.array([99, 3, 99, 2, 99, 1], dtype=np.int32)).all()
