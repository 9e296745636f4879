# A Numba kernel that takes cooperative groups' grid group, compiled with debug=True, opt=False
# (numba-cuda 0.30.4, CUDA 12.9 wheels), as numba-cuda's TestCudaDebugInfo.test_grid_group_type
# compiles one, for tests/device.rs. numba_grid_group.cubin is the module Numba handed the driver
# (nvJitLink's link of the kernel with the device runtime, libcudadevrt), written by warpjit's
# driver:
#   WARPJIT_CUDA_DUMP=DIR warpjit cuda -- python numba_grid_group.py   (then DIR/module-*.cubin)
# Its initialised __device__ data holds addresses: `.rel.nv.global.init` has R_CUDA_G64
# relocations (the debug strings $str..., pointers in .nv.global.init) and R_CUDA_FUNC_DESC_64
# ones (the device runtime's table of its memcpy/memset functions), which the loader applies to
# the data image; and the kernel calls __cuda_syscall_CGS_get_intrinsic_handle, a function the
# driver supplies. Compiling with a signature loads the module; the kernel is not launched here
# (Numba launches a kernel that uses cooperative groups cooperatively, which compute capability
# 5.2 does not offer).
from numba import cuda, types


@cuda.jit((types.int32[::1],), debug=True, opt=False)
def f(x):
    grid = cuda.cg.this_grid()  # noqa: F841
    x[cuda.grid(1)] = 7
