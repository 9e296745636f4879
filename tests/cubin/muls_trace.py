#!/usr/bin/env python3
"""Writes tests/traces/cubin_muls.toml: inputs for the `muls` kernel of muls_O0.ptx (ptxas -O0:
IMUL, IMUL32I, IMAD) and the outputs PTX defines for them, computed here from the PTX ISA's
definitions of mul and mad (standard library only; nothing of warpjit is used).

Usage: muls_trace.py > ../traces/cubin_muls.toml
"""

M32 = (1 << 32) - 1
M64 = (1 << 64) - 1
N = 32


def s32(v):
    return v - (1 << 32) if v >> 31 else v


def outputs(t, a, b):
    c = -16 - t
    return [
        (a * b) & M32,                                   # mul.lo.u32
        ((s32(a) * s32(b)) >> 32) & M32,                 # mul.hi.s32
        (a * b) >> 32,                                   # mul.hi.u32
        (s32(a) * s32(b) + t) & M32,                     # mad.lo.s32
        (((s32(a) * s32(b)) >> 32) + t) & M32,           # mad.hi.s32
        (((a * b) >> 32) + t) & M32,                     # mad.hi.u32
        (s32(a) * c) & M32,                              # mul.wide.s32, low word
        ((s32(a) * c) & M64) >> 32,                      # and high word
    ]


def inputs():
    edge = [(0, 0), (1, 1), (M32, M32), (M32, 1), (0x8000_0000, 0x8000_0000),
            (0x8000_0000, M32), (0x7FFF_FFFF, 0x7FFF_FFFF), (0x9E37_79B9, 0xFFFF_FFFD),
            (0x0001_0000, 0x0001_0000), (0xFFFF_0000, 0x0000_FFFF)]
    x = 0x13198A2E03707344  # more digits of pi: a fixed seed
    out = list(edge)
    while len(out) < N:
        x = (x * 6364136223846793005 + 1442695040888963407) & M64
        out.append((x & M32, x >> 32))
    return out


def words(vals):
    rows = [", ".join(f"{v:#x}" for v in vals[i:i + 8]) for i in range(0, len(vals), 8)]
    return "[" + ",\n       ".join(rows) + "]"


def main():
    pairs = inputs()
    data = [v for p in pairs for v in p]
    expect = [w for t, (a, b) in enumerate(pairs) for w in outputs(t, a, b)]
    print(f"""# muls from a real cubin: ptxas 12.9 -arch=sm_50 -O0 compiled the muls kernel of
# tests/cubin/muls_O0.ptx, which at -O0 multiplies with IMUL, IMUL32I and IMAD (.HI, signed and
# unsigned operands). Written by tests/cubin/muls_trace.py from the PTX definitions of mul and
# mad (edge cases first, then pseudo-random pairs from a fixed LCG).
#
# Thread t reads a = in[2t], b = in[2t + 1] (u32) and writes 8 words to out + 32 t. One CTA of
# {N} threads; the parameters in and out (64-bit) are bank-0 data from 0x140; the -O0 code keeps
# nothing on the stack.

format = "warpjit-trace/1"

[[global]]                     # in[{2 * N}]
addr = 0x10000
u32 = {words(data)}

[[global]]                     # out[{N}], 8 words each
addr = 0x20000
size = {32 * N}

[[const]]                      # parameters: in, out
bank = 0
offset = 0x140
u32 = [0x10000, 0x0, 0x20000, 0x0]

[[launch]]
code_file = "../cubin/muls_O0.cubin"
kernel = "muls"
grid = [1]
block = [{N}]

[[expect]]
addr = 0x20000
u32 = {words(expect)}""")


if __name__ == "__main__":
    main()
