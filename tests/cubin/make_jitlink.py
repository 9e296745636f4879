#!/usr/bin/env python3
"""Links printf.ptx and devdata.ptx for sm_52 with NVIDIA's nvJitLink, as Numba does, into
printf_jl.cubin and devdata_jl.cubin: nvJitLink leaves the module's data addresses as
.rel.text relocations of MOV32I immediates (R_CUDA_ABS32_LO_20/HI_20) and the call to vprintf
as a relocated JCAL (R_CUDA_ABS32_20), which the loader resolves.

Needs `pip install cuda-python nvidia-nvjitlink-cu12`."""
import os

from cuda.bindings import nvjitlink

here = os.path.dirname(os.path.abspath(__file__))
for name in ["printf", "devdata"]:
    h = nvjitlink.create(1, ["-arch=sm_52"])
    ptx = open(os.path.join(here, name + ".ptx"), "rb").read()
    nvjitlink.add_data(h, nvjitlink.InputType.PTX, ptx, len(ptx), name)
    nvjitlink.complete(h)
    buf = bytearray(nvjitlink.get_linked_cubin_size(h))
    nvjitlink.get_linked_cubin(h, buf)
    nvjitlink.destroy(h)
    with open(os.path.join(here, name + "_jl.cubin"), "wb") as f:
        f.write(buf)
    print(f"{name}.ptx -> {name}_jl.cubin ({len(buf)} bytes)")
