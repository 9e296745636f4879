#!/usr/bin/env python3
"""Inputs and expected results of the kernels of tests/cubin/int64.ptx (mul64, shift64, arith64,
divrem64) and int64_O0.ptx, worked out from the PTX ISA's definitions of each instruction
(standard library only; nothing of warpjit is used).

Usage: int64.py KERNEL > ../../traces/cubin_int64_KERNEL.toml, KERNEL one of mul64, shift64,
arith64, divrem64, int64_O0 (`int64.py all` rewrites the five traces in place).
"""
import sys

M32 = (1 << 32) - 1
M64 = (1 << 64) - 1
MIN64 = 1 << 63
MAX64 = MIN64 - 1
N = 32
IN, OUT = 0x10000, 0x20000


def s64(v):
    return v - (1 << 64) if v >> 63 else v


def u64(v):
    return v & M64


def lcg(seed):
    x = seed
    while True:
        x = (x * 6364136223846793005 + 1442695040888963407) & M64
        yield x


# (a, b) pairs: the edges first, then pseudo-random values.
EDGE = [0, 1, M64, MIN64, MAX64, 2, MIN64 + 1, 0xFFFFFFFF, 1 << 32, 0x8000_0000, 0xFFFF_FFFF_0000_0000,
        0x1234_5678_9ABC_DEF0, 0xFEDC_BA98_7654_3210]
SHIFTS = [0, 1, 31, 32, 33, 63, 64, 65, 100, M32, 0x100, 0x14, 7, 40, 2, 63]


def pairs(div):
    r = lcg(0x5EED if not div else 0xD1D)
    out = []
    for i, a in enumerate(EDGE):
        b = EDGE[(i * 5 + 3) % len(EDGE)]
        out.append((a, b))
    out += [(M64, M64), (MIN64, M64), (MIN64, MIN64), (MAX64, MAX64), (MIN64, 1), (5, M64 - 2),
            (M64 - 6, 3)]
    while len(out) < N:
        a, b = next(r), next(r)
        if len(out) % 3 == 0:
            b >>= 40  # small divisors, mixed with wide ones
        if len(out) % 4 == 1:
            a = u64(-(a >> 20))
        out.append((a, b))
    if div:
        # Division by zero and -2^63 / -1 are undefined in PTX: keep them out.
        out = [(a, b if b != 0 else 3) for a, b in out]
        out = [(a, M64 - 1 if (a == MIN64 and b == M64) else b) for a, b in out]
    return out[:N]


def inputs(div):
    return [(a, b, SHIFTS[t % len(SHIFTS)]) for t, (a, b) in enumerate(pairs(div))]


def mulhi_s(a, b):
    return u64((s64(a) * s64(b)) >> 64)


def mulhi_u(a, b):
    return (a * b) >> 64


def shl(a, n):
    return u64(a << min(n, 64))


def shr_u(a, n):
    return a >> min(n, 64)


def shr_s(a, n):
    return u64(s64(a) >> min(n, 64))


def bfe(a, pos, ln, signed):
    # PTX bfe: msb = 63; sbit = 0 when unsigned or len = 0, else a[min(pos + len - 1, msb)];
    # d[i] = a[pos + i] for i < len and pos + i <= msb, else sbit.
    pos, ln = pos & 0xFF, ln & 0xFF
    sbit = (a >> min(pos + ln - 1, 63)) & 1 if signed and ln != 0 else 0
    d = 0
    for i in range(64):
        bit = (a >> (pos + i)) & 1 if i < ln and pos + i <= 63 else sbit
        d |= bit << i
    return d


def bfi(a, b, pos, ln):
    pos, ln = pos & 0xFF, ln & 0xFF
    f = b
    i = 0
    while i < ln and pos + i <= 63:
        f = (f & ~(1 << (pos + i))) | (((a >> i) & 1) << (pos + i))
        i += 1
    return f


def bfind(a, signed, shiftamt):
    v = a
    if signed and a >> 63:
        v = ~a & M64
    if v == 0:
        return M32
    p = v.bit_length() - 1
    return 63 - p if shiftamt else p


def tdiv(a, b):
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def trem(a, b):
    return a - tdiv(a, b) * b


def mul64(a, b, n):
    return [mulhi_s(a, b), mulhi_u(a, b), u64(a * b), u64(a * b + b), u64(mulhi_s(a, b) + a),
            u64(mulhi_u(a, b) + a), mulhi_s(a, 12345), mulhi_s(a, u64(-7)), mulhi_u(a, 0x123456789),
            u64(s64(a) * -3)]


def shift64(a, b, n):
    w = [shl(a, n), shr_u(a, n), shr_s(a, n)]
    for f in (shl, shr_u, shr_s):
        w += [f(a, k) for k in (1, 31, 32, 33, 63, 64, 70)]
    w.append(shl(a, n) | shr_u(a, (64 - n) & M32))
    return w


def arith64(a, b, n):
    s0 = a + b
    c0 = s0 >> 64
    s1 = b + a + c0
    c1 = s1 >> 64
    w = [u64(s0), u64(s1), c1]
    d0 = a - b
    br0 = 1 if d0 < 0 else 0
    d1 = b - a - br0
    br1 = 1 if d1 < 0 else 0
    w += [u64(d0), u64(d1), (0 - 0 - br1) & M32]
    sa, sb = s64(a), s64(b)
    w += [u64(min(sa, sb)), u64(max(sa, sb)), min(a, b), max(a, b), u64(-sa), u64(abs(sa)),
          int(format(a, "064b")[::-1], 2), bfe(a, n & 0xFF, 20, False), bfe(a, 24, n & 0xFF, True),
          bfi(a, b, n & 0xFF, 12), a & b, a | b, a ^ b, ~a & M64, 1 if a == 0 else 0, u64(min(sa, -5)),
          bin(a).count("1"), 64 - a.bit_length(), bfind(a, True, False), bfind(a, False, False),
          bfind(a, False, True),
          5 if a & b else 9, 5 if a & 0xFF00FF00FF00 == 0 else 9, 5 if a == b else 9,
          5 if sa < 0 else 9]
    return w


def divrem64(a, b, n):
    sa, sb = s64(a), s64(b)
    return [a // b, a % b, u64(tdiv(sa, sb)), u64(trem(sa, sb)), u64(tdiv(sa, 7)), a % 1000,
            a // 0x100000001]


def int64_O0(a, b, n):
    return [mulhi_s(a, b), mulhi_u(a, b), u64(a * b), u64(mulhi_s(a, b) + a), shl(a, n), shr_u(a, n),
            shr_s(a, n), 5 if a & b else 9, u64(tdiv(s64(a), 7))]


KERNELS = {
    "mul64": ("int64", mul64, "mul.hi/mul.lo/mad.lo/mad.hi on 64 bits (XMAD chains, I2I.S32.S32 RZ.CC and "
              "LOP.XOR RZ.CC sign tests read by CSETP)"),
    "shift64": ("int64", shift64, "shl.b64/shr.u64/shr.s64 by a register (0, 1, 31, 32, 33, 63, 64, 65, 100, "
                "0xffffffff, ...) and by immediates, and a rotate (SHF, SHL, SHR)"),
    "arith64": ("int64", arith64, "64-bit add/sub with carry, min/max, neg, abs, brev, bfe, bfi, logic, cnot, popc, "
                "clz, bfind, and 64-bit zero and sign tests (LOP.CC then LOP.X.NZ, LOP32I.CC)"),
    "divrem64": ("int64", divrem64, "div/rem .u64 and .s64 (CAL to ptxas's division subroutines)"),
    "int64_O0": ("int64_O0", int64_O0, "the same families at -O0 (IMAD RZ.CC then IMAD.HI.X chains, "
                 "I2I/LOP sign tests)"),
}


def words(vals):
    out = []
    for v in vals:
        out += [v & M32, v >> 32]
    return out


def table(ws):
    lines = []
    for i in range(0, len(ws), 8):
        lines.append(", ".join(hex(x) for x in ws[i:i + 8]))
    return "[" + ",\n       ".join(lines) + "]"


def trace(kernel):
    fixture, f, what = KERNELS[kernel]
    inp = inputs(kernel == "divrem64")
    ins, outs = [], []
    for a, b, n in inp:
        ins += words([a, b, n])
        outs += words(f(a, b, n))
    k = len(f(1, 1, 1))
    return f"""# {kernel} from a real cubin: ptxas 12.9 -arch=sm_50 {"-O0" if fixture.endswith("O0") else "-O3"} compiled the {kernel} kernel of
# tests/cubin/{fixture}.ptx: {what}.
# Written by tests/cubin/expect/int64.py, which computes every expected word from the PTX ISA's
# definitions (edge values first: 0, 1, -1, INT64_MIN, INT64_MAX, mixed signs; shift amounts 0, 1,
# 31, 32, 33, 63, 64, 65, 100, 0xffffffff; then pseudo-random values from a fixed LCG).
#
# Thread t reads a = in[3t], b = in[3t + 1] (u64) and n = the low word of in[3t + 2], and writes
# {k} u64 results to out + {8 * k} t. One CTA of 32 threads; the parameters in and out (64-bit) are
# bank-0 data from 0x140.

format = "warpjit-trace/1"

[[global]]                     # in[96]: a, b, n per thread, low word first
addr = {IN:#x}
u32 = {table(ins)}

[[global]]                     # out: {k} u64 per thread
addr = {OUT:#x}
size = {N * 8 * k}

[[const]]                      # parameters: in, out
bank = 0
offset = 0x140
u32 = [{IN:#x}, 0x0, {OUT:#x}, 0x0]

[[launch]]
code_file = "../cubin/{fixture}.cubin"
kernel = "{kernel}"
grid = [1]
block = [32]

[[expect]]
addr = {OUT:#x}
u32 = {table(outs)}
"""


if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in list(KERNELS) + ["all"]:
        sys.exit(__doc__)
    if sys.argv[1] == "all":
        import os
        here = os.path.dirname(os.path.abspath(__file__))
        for k in KERNELS:
            name = "O0" if k == "int64_O0" else k.replace("64", "")
            with open(os.path.join(here, "..", "..", "traces", f"cubin_int64_{name}.toml"), "w") as fh:
                fh.write(trace(k))
    else:
        sys.stdout.write(trace(sys.argv[1]))
