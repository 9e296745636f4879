#!/usr/bin/env python3
"""Expected results of tests/cubin/selects.ptx (kernel bytesel), worked out from the PTX cvt
definitions, standard library only. Writes tests/traces/cubin_selects.toml (run from this
directory: python3 expect/selects.py).

cvt.rn/.rm.f32 of an 8- or 16-bit integer is exact; cvt.f32.f16 is exact, a NaN gives
warpjit's canonical binary32 NaN 0x7fffffff (docs/semantics.md §28); cvt.rzi.s32.f16 rounds
toward zero, saturates, and gives 0 for NaN.
"""
import math
import os
import struct

M32 = 0xFFFFFFFF
IN, OUT = 0x10000, 0x20000
N = 64
HERE = os.path.dirname(os.path.abspath(__file__))
TRACES = os.path.join(HERE, "..", "..", "traces")


def f32_bits(x):
    if math.isnan(x):
        return 0x7FFFFFFF
    return struct.unpack("<I", struct.pack("<f", x))[0]


def half(h):
    return struct.unpack("<e", struct.pack("<H", h))[0]


def sext(v, bits):
    return v - (1 << bits) if v >> (bits - 1) & 1 else v


def f16_to_s32(h):
    x = half(h)
    if math.isnan(x):
        return 0
    if math.isinf(x):
        return 0x7FFFFFFF if x > 0 else 0x80000000
    return int(x) & M32  # toward zero; |f16| < 2^16 always fits


def inputs():
    edges = [0x7C00, 0xFC00, 0x7E00, 0xFE01, 0x0001, 0x83FF, 0x8000, 0x0000, 0x3C00, 0xC500,
             0x7BFF, 0xFBFF, 0x3555, 0x5640, 0xD640, 0x0400]
    v = []
    for t in range(N):
        r = (t * 0x9E3779B1 + 0x7F4A7C15) & M32
        if t < 2 * len(edges):
            hi = edges[t % len(edges)]
            lo = edges[(t * 7 + 3) % len(edges)] if t >= len(edges) else r & 0xFFFF
            r = hi << 16 | lo
        v.append(r)
    return v


def bytesel(x):
    b1, b2, b3 = x >> 8 & 0xFF, x >> 16 & 0xFF, x >> 24
    hi, lo = x >> 16, x & 0xFFFF
    return [
        f32_bits(float(b3)),
        f32_bits(float(hi)),
        f32_bits(float(sext(hi, 16))),
        f32_bits(half(hi)),
        f16_to_s32(hi),
        f32_bits(half(lo)),
        f32_bits(float(sext(b1, 8))),
        f32_bits(float(b2)),
    ]


def table(kind, addr, words, comment):
    rows = [", ".join(f"{w:#x}" for w in words[i:i + 8]) for i in range(0, len(words), 8)]
    return (f"[[{kind}]]{' ' * (23 - len(kind))}# {comment}\naddr = {addr:#x}\nu32 = ["
            + ",\n       ".join(rows) + "]\n")


a = inputs()
out = [w for x in a for w in bytesel(x)]
with open(os.path.join(TRACES, "cubin_selects.toml"), "w") as f:
    f.write(f"""# bytesel from a real cubin: ptxas 12.9 -arch=sm_50 -O3 compiled tests/cubin/selects.ptx
#
# One CTA of {N} threads; thread t converts bytes and halves of x = in[t] and writes 8 words at
# out[8 t]: I2F.F32.U8 of .B3, I2F.F32.U16 and .S16 of .H1, F2F.F32.F16 of .H1,
# F2I.S32.F16.TRUNC of .H1, F2F.F32.F16 of the lower half, I2F.F32.S8 of x >> 8 and
# I2F.F32.U8.RM of .B2 (ptxas's selects). The halves include infinities, NaNs, subnormals and
# -0. Expectations: tests/cubin/expect/selects.py, from the PTX cvt definitions.

format = "warpjit-trace/1"

{table("global", IN, a, f"in[{N}]")}
[[global]]                 # out, zero-filled
addr = {OUT:#x}
size = {32 * N}

[[const]]                  # parameters: in, out
bank = 0
offset = 0x140
u32 = [{IN:#x}, 0x0, {OUT:#x}, 0x0]

[[launch]]
code_file = "../cubin/selects.cubin"
kernel = "bytesel"
block = [{N}]

{table("expect", OUT, out, "out")}""")
