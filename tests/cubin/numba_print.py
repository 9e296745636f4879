# Numba's `print` in a kernel (numba-cuda 0.30.4, CUDA 12.9 wheels), for tests/device.rs.
# numba_print.cubin is the module Numba handed the driver, recorded by warpjit's driver:
#   warpjit cuda --record DIR -- python numba_print.py   (then DIR/module-*.cubin)
# Numba keeps the format string in constant bank 3 and passes vprintf its generic address,
# which the kernel reads from c[0x0][0xd0] (PTX cvta.const).
from numba import cuda


@cuda.jit
def k():
    print("hello", cuda.threadIdx.x, 2.5)


k[1, 3]()
cuda.synchronize()
