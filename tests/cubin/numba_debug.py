# A Numba kernel compiled with debug=True, opt=False (numba-cuda 0.30.4, CUDA 12.9 wheels), for
# tests/device.rs. numba_debug.cubin is the module Numba handed the driver, recorded by warpjit's
# driver:
#   warpjit cuda --record DIR -- python numba_debug.py   (then DIR/module-*.cubin)
# Its DWARF sections (.debug_line, .debug_info, ...) carry relocations (.rel.debug_line), which a
# loader must leave alone: numba-cuda's test_debuginfo tests load such modules.
import numpy as np
from numba import cuda


@cuda.jit("void(float64[:])", debug=True, opt=False)
def f(x):
    x[cuda.threadIdx.x] = 1.5 * cuda.threadIdx.x


a = np.zeros(4)
f[1, 4](a)
print(a)
