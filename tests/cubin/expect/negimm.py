#!/usr/bin/env python3
"""Expected results of tests/cubin/negimm.ptx, from the PTX definitions (standard library only).
Writes tests/traces/cubin_negimm.toml (run from anywhere: python3 tests/cubin/expect/negimm.py).

The inputs are small multiples of 1/4, so every product and sum below is exact in binary32 and
binary64: the expected values need no rounding.
"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
TRACES = os.path.join(HERE, "..", "..", "traces")
N = 40


def f32(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def f64(x):
    return list(struct.unpack("<II", struct.pack("<d", x)))


def table(kind, addr, words, comment):
    rows = [", ".join(f"{w:#x}" for w in words[i:i + 8]) for i in range(0, len(words), 8)]
    return (f"[[{kind}]]{' ' * (23 - len(kind))}# {comment}\naddr = {addr:#x}\nu32 = ["
            + ",\n       ".join(rows) + "]\n")


xs = [t / 4 - 3 for t in range(N)]
ys = [2 * t - 40 for t in range(N)]
xs[0], ys[0] = 0.0, 0.0                 # -(0 * 3.5) + 0 = +0; -0 * 2.5 = -0
out = [w for x, y in zip(xs, ys) for w in (f32(-x * 3.5 + y), f32(-x * 2.5))]
outd = [w for x, y in zip(xs, ys) for w in f64(-x * 3.5 + y) + f64(-x * 2.5)]
X, Y, OUT, XD, YD, OUTD = 0x10000, 0x11000, 0x12000, 0x20000, 0x21000, 0x22000
with open(os.path.join(TRACES, "cubin_negimm.toml"), "w") as f:
    f.write(f"""# negimm from a real cubin: ptxas 12.9 -arch=sm_50 -O3 compiled tests/cubin/negimm.ptx
#
# out[2t] = fma(-x[t], 3.5, y[t]) and out[2t+1] = -x[t] * 2.5 in binary32, outd the same in
# binary64: ptxas writes FFMA, FMUL, DFMA and DMUL with an immediate factor and the
# product-negation bit, which the decoder folds into the immediate (FFMA R18, R2, -3.5, R4).
# One CTA of {N} threads; x = t / 4 - 3 and y = 2 t - 40 (thread 0: both 0, so the signs of
# zero show), exact in both formats.
# Expectations: tests/cubin/expect/negimm.py, from the PTX definitions.

format = "warpjit-trace/1"

{table("global", X, [f32(x) for x in xs], "x (binary32)")}
{table("global", Y, [f32(y) for y in ys], "y (binary32)")}
[[global]]                 # out, zero-filled
addr = {OUT:#x}
size = {8 * N}

{table("global", XD, [w for x in xs for w in f64(x)], "xd (binary64)")}
{table("global", YD, [w for y in ys for w in f64(y)], "yd (binary64)")}
[[global]]                 # outd, zero-filled
addr = {OUTD:#x}
size = {16 * N}

[[const]]                  # parameters: x, y, out, xd, yd, outd
bank = 0
offset = 0x140
u32 = [{X:#x}, 0x0, {Y:#x}, 0x0, {OUT:#x}, 0x0, {XD:#x}, 0x0, {YD:#x}, 0x0, {OUTD:#x}, 0x0]

[[launch]]
code_file = "../cubin/negimm.cubin"
kernel = "negimm"
block = [{N}]

{table("expect", OUT, out, "out")}
{table("expect", OUTD, outd, "outd")}""")
