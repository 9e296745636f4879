#!/usr/bin/env python3
"""Writes tests/traces/cubin_intops.toml: inputs for the `intops` kernel of intops.ptx and the
outputs PTX defines for them, computed here from the PTX ISA's definitions (standard library only;
nothing of warpjit is used).

Usage: intops_trace.py > ../traces/cubin_intops.toml
"""

M32 = (1 << 32) - 1
M64 = (1 << 64) - 1
N = 32


def s32(v):
    return v - (1 << 32) if v >> 31 else v


def s64(v):
    return v - (1 << 64) if v >> 63 else v


# PTX ISA, prmt: for each mode, selector c[1:0] = 0..3 -> source byte of (d.b3, d.b2, d.b1, d.b0)
# in the pool {b, a} (bytes 0-3 from a, 4-7 from b).
PRMT = {
    "f4e": [(3, 2, 1, 0), (4, 3, 2, 1), (5, 4, 3, 2), (6, 5, 4, 3)],
    "b4e": [(5, 6, 7, 0), (6, 7, 0, 1), (7, 0, 1, 2), (0, 1, 2, 3)],
    "rc8": [(0, 0, 0, 0), (1, 1, 1, 1), (2, 2, 2, 2), (3, 3, 3, 3)],
    "ecl": [(3, 2, 1, 0), (3, 2, 1, 1), (3, 2, 2, 2), (3, 3, 3, 3)],
    "ecr": [(0, 0, 0, 0), (1, 1, 1, 0), (2, 2, 1, 0), (3, 2, 1, 0)],
    "rc16": [(1, 0, 1, 0), (3, 2, 3, 2), (1, 0, 1, 0), (3, 2, 3, 2)],
}


def prmt(mode, a, b, c):
    pool = [(a >> (8 * i)) & 0xFF for i in range(4)] + [(b >> (8 * i)) & 0xFF for i in range(4)]
    b3, b2, b1, b0 = PRMT[mode][c & 3]
    return pool[b0] | pool[b1] << 8 | pool[b2] << 16 | pool[b3] << 24


ONE_F32 = 0x3F800000


def outputs(a, b):
    alo, ahi, blo, bhi = a & M32, a >> 32, b & M32, b >> 32
    sa, sb = s64(a), s64(b)
    w = []
    for v in (min(sa, sb) & M64, max(sa, sb) & M64, min(a, b), max(a, b)):
        w += [v & M32, v >> 32]
    w.append(((s32(alo) * s32(blo)) >> 32) & M32)
    w.append((alo * blo) >> 32)
    w.append((((s32(alo) * s32(blo)) >> 32) + s32(ahi)) & M32)
    w.append(((alo * blo) >> 32) + ahi & M32)
    w.append(M32 if sa < sb else 0)
    w.append(M32 if a > b else 0)
    w.append(ONE_F32 if s32(alo) <= s32(blo) else 0)
    w.append(M32 if (alo != blo) and sa >= sb else 0)
    x = alo if sa <= sb else blo
    q = (sa < sb) != (a > b)
    w.append(x if q else 7)
    for mode in ("f4e", "b4e", "rc8", "ecl", "ecr", "rc16"):
        w.append(prmt(mode, alo, blo, ahi))
    w.append(alo ^ blo ^ 0x1234)
    w.append(1 if alo & 0xF0F0 else 2)
    w.append(M32 if a == b else 0)
    w.append(1 if ((sa < sb) and ahi > blo) or sa <= sb else 0)
    w.append(ONE_F32 if alo > blo or sa < 100 else 0)
    assert len(w) == 28
    return w


def inputs():
    edge = [
        (0, 0),
        (1, 2),
        (2, 1),
        (0x1_0000_0000, 0x0_FFFF_FFFF),          # high words decide, low words disagree
        (0xFFFF_FFFF_0000_0005, 0x3),             # negative vs positive: signed and unsigned differ
        (0x7_8000_0000, 0x7_0000_0001),           # equal high words: low words unsigned
        (M64, 0),
        (1 << 63, (1 << 63) - 1),
        (0x8000_0000_8000_0000, 0x8000_0000_8000_0000),
        (0x0000_0003_0000_F0F0, 0x0000_0002_FFFF_0F0F),
        (0x0000_0002_9E37_79B9, 0x0000_0001_8001_5678),  # mul.hi.s32 with negative halves
        (0xFFFF_FFFE_FFFE_1234, 0xFFFF_FFFE_8001_5678),
        (0x0000_0001_0000_FFFF, 0x0000_0000_FFFF_0000),
        (0x0000_0000_1234_0000, 0xFFFF_FFFF_FFFF_8000),
        (99, 100),
        (0xFFFF_FFFF_FFFF_FF9C, 0xFFFF_FFFF_FFFF_FF9C),   # -100 == -100
    ]
    x = 0x243F6A8885A308D3  # the fractional digits of pi: a fixed, documented seed
    out = list(edge)
    while len(out) < N:
        x = (x * 6364136223846793005 + 1442695040888963407) & M64
        a = x
        x = (x * 6364136223846793005 + 1442695040888963407) & M64
        out.append((a, x))
    return out


def words(vals):
    lines = []
    for i in range(0, len(vals), 8):
        lines.append(", ".join(f"{v:#x}" for v in vals[i:i + 8]))
    return "[" + ",\n       ".join(lines) + "]"


def main():
    pairs = inputs()
    data = []
    for a, b in pairs:
        data += [a & M32, a >> 32, b & M32, b >> 32]
    expect = []
    for a, b in pairs:
        expect += outputs(a, b)
    print(f"""# intops from a real cubin: ptxas 12.9 -arch=sm_50 -O3 compiled the intops kernel of
# tests/cubin/intops.ptx (64-bit min/max as IMNMX.XHI.CC + IMNMX.XLO, mul.hi/mad.hi with
# XMAD.CSFU, ISET .X/.U32/.BF, predicate chains, PRMT in every mode, LOP3 with an immediate,
# LOP.AND.NZ). Written by tests/cubin/intops_trace.py, which computes every expected word from
# the PTX definitions (edge cases first, then pseudo-random pairs from a fixed LCG).
#
# Thread t reads a = in[2t], b = in[2t + 1] (u64) and writes 28 words to out + 112 t. One CTA
# of {N} threads; the parameters in and out (64-bit) are bank-0 data from 0x140.

format = "warpjit-trace/1"

[[global]]                     # in[{2 * N}]: a, b per thread, low word first
addr = 0x10000
u32 = {words(data)}

[[global]]                     # out[{N}], 28 words each
addr = 0x20000
size = {112 * N}

[[const]]                      # parameters: in, out
bank = 0
offset = 0x140
u32 = [0x10000, 0x0, 0x20000, 0x0]

[[launch]]
code_file = "../cubin/intops.cubin"
kernel = "intops"
grid = [1]
block = [{N}]

[[expect]]
addr = 0x20000
u32 = {words(expect)}""")


if __name__ == "__main__":
    main()
